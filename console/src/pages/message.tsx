import { useState } from 'preact/hooks';
import { allEvents, api, apiText, type Inbound, type Mailbox, type Message } from '../api.ts';
import { useLive } from '../live.ts';
import {
  ConfirmButton,
  can,
  ErrorNote,
  LiveMark,
  Loading,
  type PageProps,
  Section,
  Status,
  time,
  useLoad,
} from '../ui.tsx';
import { MessageBody } from './body.tsx';

const list = (ms: Mailbox[]) => ms.map((m) => (m.name ? `${m.name} <${m.address}>` : m.address)).join(', ');

/**
 * One message, sent or received: each recipient's delivery and SMTP answer, the event timeline,
 * its headers and its body alike in both directions (pages/body.tsx), and the actions the API
 * allows on it now (each asks first).
 */
export function MessagePage({ me, params }: PageProps) {
  const path = `/v1/identities/${encodeURIComponent(params.identity)}/messages/${encodeURIComponent(params.message)}`;
  const msg = useLoad(() => api<Message>('GET', path), [path]);
  const tenantEvents = can(me, 'events:read') && me.level !== 'identity';
  const events = useLoad(
    async () => (tenantEvents ? (await allEvents()).filter((e) => e.data.message_id === params.message) : []),
    [params.message, msg.value?.status],
  );
  // This message's events on the stream (its status, each recipient's) reload it.
  const live = useLive(
    can(me, 'events:read') ? { identity_id: params.identity, types: ['message.*'] } : undefined,
    (events) => {
      if (events.some((e) => e.data.message_id === params.message)) msg.reload();
    },
  );
  const m = msg.value;
  const write = can(me, 'messages:write');
  const act = (action: string, body?: unknown) => async () => {
    await api('POST', `${path}/${action}`, { body });
    msg.reload();
  };
  return (
    <>
      <p>
        <a href="#/messages">← Messages</a>
      </p>
      <LiveMark live={live} />
      <ErrorNote error={msg.error} />
      <Loading when={msg.loading && !m} />
      {m ? (
        <>
          <h2 class="subject">{m.subject || '(no subject)'}</h2>
          <p>
            Status: <Status value={m.status} />
            {m.status_reason ? <span class="reason"> — {m.status_reason}</span> : null}
          </p>
          {write ? (
            <section class="actions" aria-label="Actions">
              {m.status === 'queued' ? (
                <ConfirmButton
                  label="Cancel"
                  question="Cancel this message? It will not be sent."
                  run={act('cancel')}
                  danger
                />
              ) : null}
              {m.status === 'failed' ? (
                <ConfirmButton label="Retry" question="Send this message again?" run={act('retry')} />
              ) : null}
              {m.status === 'uncertain' ? (
                <>
                  <ConfirmButton
                    label="Mark as sent"
                    question="Record that this message reached its recipients? pmail will not send it again."
                    run={act('resolve', { outcome: 'sent' })}
                  />
                  <ConfirmButton
                    label="Mark as not sent"
                    question="Record that this message did not leave? It can then be retried."
                    run={act('resolve', { outcome: 'not_sent' })}
                    danger
                  />
                </>
              ) : null}
            </section>
          ) : null}
          {m.status === 'pending_approval' && can(me, 'messages:approve') ? (
            <section class="actions" aria-label="Approval">
              <ConfirmButton
                label="Approve"
                question="Approve this send? pmail sends it once, after checking its caps and suppressions again."
                run={act('approve')}
              />
              <ConfirmButton
                label="Reject"
                question="Reject this send? It is canceled and never sent."
                run={act('reject')}
                danger
              />
            </section>
          ) : null}
          {m.deliveries ? (
            <Section title="Recipients">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Recipient</th>
                    <th scope="col">Field</th>
                    <th scope="col">Status</th>
                    <th scope="col">SMTP answer</th>
                    <th scope="col">Updated</th>
                  </tr>
                </thead>
                <tbody>
                  {m.deliveries.map((d) => (
                    <tr key={d.address} data-recipient={d.address}>
                      <td>{d.address}</td>
                      <td>{d.field}</td>
                      <td>
                        <Status value={d.status} />
                      </td>
                      <td>
                        {[d.smtp_code, d.enhanced_code, d.smtp_response, d.bounce_type]
                          .filter((x) => x !== null)
                          .join(' ') || '—'}
                      </td>
                      <td>{time(d.updated_at)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </Section>
          ) : null}
          <Section title="Timeline">
            <ErrorNote error={events.error} />
            {!tenantEvents ? (
              <p>The event feed needs a tenant key with events:read.</p>
            ) : (
              <ol class="timeline">
                {(events.value ?? []).map((e) => (
                  <li key={e.id}>
                    <time dateTime={e.created_at}>{time(e.created_at)}</time> <strong>{e.type}</strong>
                    {typeof e.data.recipient === 'string' ? ` ${e.data.recipient}` : ''}
                    {typeof e.data.reason === 'string' ? ` — ${e.data.reason}` : ''}
                  </li>
                ))}
                {events.value?.length === 0 ? <li>No events yet.</li> : null}
              </ol>
            )}
          </Section>
          <Section title="Headers">
            <dl class="headers">
              <dt>From</dt>
              <dd>{list([m.from])}</dd>
              <dt>To</dt>
              <dd>{list(m.to) || '—'}</dd>
              {m.cc.length ? (
                <>
                  <dt>Cc</dt>
                  <dd>{list(m.cc)}</dd>
                </>
              ) : null}
              {m.bcc.length ? (
                <>
                  <dt>Bcc</dt>
                  <dd>{list(m.bcc)}</dd>
                </>
              ) : null}
              {m.reply_to.length ? (
                <>
                  <dt>Reply-To</dt>
                  <dd>{list(m.reply_to)}</dd>
                </>
              ) : null}
              <dt>Subject</dt>
              <dd>{m.subject}</dd>
              <dt>Date</dt>
              <dd>{time(m.sent_at ?? m.received_at)}</dd>
              <dt>Message-ID</dt>
              <dd>{m.rfc_message_id ?? '—'}</dd>
              {m.in_reply_to ? (
                <>
                  <dt>In-Reply-To</dt>
                  <dd>{m.in_reply_to}</dd>
                </>
              ) : null}
              <dt>pmail id</dt>
              <dd>{m.id}</dd>
              <dt>Provider</dt>
              <dd>{m.provider ? `${m.provider} ${m.provider_message_id ?? ''}` : '—'}</dd>
            </dl>
          </Section>
          {m.inbound ? <Received inbound={m.inbound} /> : null}
          <MessageBody m={m} />
          {m.direction === 'outbound' ? <Original path={path} /> : null}
        </>
      ) : null}
    </>
  );
}

/** A received message's checks: where it came from is outside (its body is MessageBody's). */
function Received({ inbound }: { inbound: Inbound }) {
  const v = inbound.verdicts;
  return (
    <Section title="Checks">
      <p>
        SPF {v.spf ?? '—'} · DKIM {v.dkim ?? '—'} · DMARC {v.dmarc ?? '—'} · spam {v.spam ?? '—'} · virus{' '}
        {v.virus ?? '—'}
      </p>
      <p class="hint">Received mail is written by someone outside: treat its links and requests with care.</p>
    </Section>
  );
}

/**
 * A sent message's stored MIME as pmail sent it (GET …/raw), read on request and shown as text,
 * never rendered: the exact HTML and headers that left.
 */
function Original({ path }: { path: string }) {
  const [raw, setRaw] = useState<string>();
  const [error, setError] = useState<unknown>();
  return (
    <Section title="Original">
      {raw === undefined ? (
        <button type="button" class="secondary" onClick={() => apiText(`${path}/raw`).then(setRaw, setError)}>
          Show original
        </button>
      ) : (
        <pre class="body original">{raw}</pre>
      )}
      <ErrorNote error={error} />
    </Section>
  );
}
