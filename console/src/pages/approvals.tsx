import { ApiError, api, type Mailbox, type Message, type Page } from '../api.ts';
import { ConfirmButton, can, ErrorNote, Loading, type PageProps, time, useLoad } from '../ui.tsx';
import { Attachments, HtmlPreview } from './body.tsx';

const PENDING = 'pending_approval';

interface Held {
  /** Messages waiting for a person, over every identity the key reaches, each read whole (its body). */
  messages: Message[];
  /** The API refused the status filter: this pmail holds no sends for approval. */
  unsupported: boolean;
}

const messagePath = (m: Message) =>
  `/v1/identities/${encodeURIComponent(m.identity_id)}/messages/${encodeURIComponent(m.id)}`;

/** Every identity's sends waiting for approval (`status=pending_approval`), newest first, each with its body. */
async function held(identities: PageProps['identities']): Promise<Held> {
  const listed: Message[] = [];
  for (const i of identities) {
    try {
      const page = await api<Page<Message>>('GET', `/v1/identities/${encodeURIComponent(i.id)}/messages`, {
        query: { status: PENDING, direction: 'outbound', limit: '100' },
      });
      // Only what is pending, whatever else a page may hold.
      listed.push(...page.data.filter((m) => m.status === PENDING));
    } catch (e) {
      if (e instanceof ApiError && e.status === 400) return { messages: [], unsupported: true };
      throw e;
    }
  }
  // A page of the list leaves the body out: each held send is read whole, so the reviewer reads
  // what would leave before deciding.
  const messages = await Promise.all(listed.map((m) => api<Message>('GET', messagePath(m))));
  messages.sort((a, b) => b.received_at.localeCompare(a.received_at));
  return { messages, unsupported: false };
}

const addresses = (ms: Mailbox[]) =>
  ms.map((m) => (m.name ? `${m.name} <${m.address}>` : m.address)).join(', ');

/**
 * Sends held for a person's approval, each shown as it would leave — its recipients, subject and
 * body (text, HTML in the sandboxed preview, attachments) — before the decision, with Approve and
 * Reject (each asking first) apart at the two ends of its footer, where the key holds
 * `messages:approve`. The API decides: an approval re-runs the send's checks, and a send another
 * person already decided answers with its state, shown beside the button.
 */
export function Approvals({ me, identities }: PageProps) {
  const list = useLoad(() => held(identities), [identities.map((i) => i.id).join()]);
  const decide = can(me, 'messages:approve');
  const act = (m: Message, action: 'approve' | 'reject') => async () => {
    await api('POST', `${messagePath(m)}/${action}`);
    list.reload();
  };
  const rows = list.value?.messages ?? [];
  return (
    <>
      <ErrorNote error={list.error} />
      <Loading when={list.loading} />
      {!decide ? <p>This key may read held sends but not decide them (it lacks messages:approve).</p> : null}
      {rows.map((m) => (
        <article key={m.id} class="approval" data-message={m.id} aria-labelledby={`subject-${m.id}`}>
          <h2 id={`subject-${m.id}`} class="subject">
            <a href={`#/messages/${encodeURIComponent(m.identity_id)}/${encodeURIComponent(m.id)}`}>
              {m.subject || '(no subject)'}
            </a>
          </h2>
          <dl class="headers">
            <dt>From</dt>
            <dd>{addresses([m.from])}</dd>
            <dt>To</dt>
            <dd>{addresses(m.to) || '—'}</dd>
            {m.cc.length ? (
              <>
                <dt>Cc</dt>
                <dd>{addresses(m.cc)}</dd>
              </>
            ) : null}
            {m.bcc.length ? (
              <>
                <dt>Bcc</dt>
                <dd>{addresses(m.bcc)}</dd>
              </>
            ) : null}
            <dt>Held since</dt>
            <dd>{time(m.received_at)}</dd>
          </dl>
          {m.text !== null ? <pre class="body">{m.text}</pre> : <p>No text part.</p>}
          {m.html !== null ? <HtmlPreview html={m.html} title={`HTML of ${m.subject || m.id}`} /> : null}
          <Attachments m={m} />
          {decide ? (
            <footer class="decision">
              <ConfirmButton
                label="Approve"
                question={`Approve “${m.subject}”? pmail sends it once, after checking its caps and suppressions again.`}
                run={act(m, 'approve')}
              />
              <ConfirmButton
                label="Reject"
                question={`Reject “${m.subject}”? It is canceled and never sent.`}
                run={act(m, 'reject')}
                danger
              />
            </footer>
          ) : null}
        </article>
      ))}
      {list.value && rows.length === 0 ? (
        <p>
          {list.value.unsupported
            ? 'No approvals: this pmail holds no sends for approval.'
            : 'No approvals waiting.'}
        </p>
      ) : null}
    </>
  );
}
