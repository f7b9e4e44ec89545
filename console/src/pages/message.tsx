import { useState } from 'preact/hooks';
import { allEvents, type EventView, type Inbound, type Message, pmail } from '../api.ts';
import { useLive } from '../live.ts';
import { addresses, addressFacts, Facts, LoadState, messageAction, Table } from '../parts.tsx';
import { ConfirmButton, can, ErrorNote, type PageProps, Section, Status, time, useLoad } from '../ui.tsx';
import { MessageBody } from './body.tsx';

type Delivery = NonNullable<Message['deliveries']>[number];

/**
 * One message, sent or received: each recipient's delivery and SMTP answer, the event timeline,
 * its headers and its body alike in both directions (pages/body.tsx), and the actions the API
 * allows on it now (each asks first).
 */
export function MessagePage({ me, params }: PageProps) {
  const { identity, message } = params;
  const msg = useLoad(() => pmail().messages.get(identity, message), [identity, message]);
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
  return (
    <>
      <p>
        <a href="#/messages">← Messages</a>
      </p>
      <LoadState live={live} error={msg.error} loading={msg.loading && !m} />
      {m ? (
        <>
          <h2 class="subject">{m.subject || '(no subject)'}</h2>
          <p>
            Status: <Status value={m.status} />
            {m.status_reason ? <span class="reason"> — {m.status_reason}</span> : null}
          </p>
          <Actions me={me} m={m} reload={msg.reload} />
          {m.deliveries ? <Recipients deliveries={m.deliveries} /> : null}
          <Timeline events={events} tenantEvents={tenantEvents} />
          <Headers m={m} />
          {m.inbound ? <Received inbound={m.inbound} /> : null}
          <MessageBody m={m} />
          {m.direction === 'outbound' ? <Original identity={identity} message={message} /> : null}
        </>
      ) : null}
    </>
  );
}

/** The actions the API allows on the message now and the key may take, each asking first. */
function Actions({ me, m, reload }: { me: PageProps['me']; m: Message; reload: () => void }) {
  const write = can(me, 'messages:write');
  const act = (action: 'cancel' | 'retry' | 'approve' | 'reject') => messageAction(reload)(m, action);
  const resolve = (outcome: 'sent' | 'not_sent') => async () => {
    await pmail().messages.resolve(m.identity_id, m.id, { outcome });
    reload();
  };
  return (
    <>
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
                run={resolve('sent')}
              />
              <ConfirmButton
                label="Mark as not sent"
                question="Record that this message did not leave? It can then be retried."
                run={resolve('not_sent')}
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
    </>
  );
}

/** Each recipient's delivery: its status and the SMTP answer. */
function Recipients({ deliveries }: { deliveries: Delivery[] }) {
  return (
    <Section title="Recipients">
      <Table<Delivery>
        rows={deliveries}
        rowKey={(d) => d.address}
        attrs={(d) => ({ 'data-recipient': d.address })}
        columns={[
          { head: 'Recipient', cell: (d) => d.address },
          { head: 'Field', cell: (d) => d.field },
          { head: 'Status', cell: (d) => <Status value={d.status} /> },
          {
            head: 'SMTP answer',
            cell: (d) =>
              [d.smtp_code, d.enhanced_code, d.smtp_response, d.bounce_type]
                .filter((x) => x !== null)
                .join(' ') || '—',
          },
          { head: 'Updated', cell: (d) => time(d.updated_at) },
        ]}
      />
    </Section>
  );
}

/** The message's events from the tenant's feed, oldest first. */
function Timeline(props: { events: { value?: EventView[]; error?: unknown }; tenantEvents: boolean }) {
  const { events } = props;
  return (
    <Section title="Timeline">
      <ErrorNote error={events.error} />
      {!props.tenantEvents ? (
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
  );
}

/** The message's headers, as sent or received. */
function Headers({ m }: { m: Message }) {
  return (
    <Section title="Headers">
      <Facts
        entries={[
          ...addressFacts(m),
          ['Reply-To', addresses(m.reply_to) || undefined],
          ['Subject', m.subject],
          ['Date', time(m.sent_at ?? m.received_at)],
          ['Message-ID', m.rfc_message_id ?? '—'],
          ['In-Reply-To', m.in_reply_to || undefined],
          ['pmail id', m.id],
          ['Provider', m.provider ? `${m.provider} ${m.provider_message_id ?? ''}` : '—'],
        ]}
      />
    </Section>
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
function Original({ identity, message }: { identity: string; message: string }) {
  const [raw, setRaw] = useState<string>();
  const [error, setError] = useState<unknown>();
  return (
    <Section title="Original">
      {raw === undefined ? (
        <button
          type="button"
          class="secondary"
          onClick={() => pmail().messages.raw(identity, message).then(setRaw, setError)}
        >
          Show original
        </button>
      ) : (
        <pre class="body original">{raw}</pre>
      )}
      <ErrorNote error={error} />
    </Section>
  );
}
