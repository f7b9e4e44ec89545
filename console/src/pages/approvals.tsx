import { type Message, PmailError, pmail } from '../api.ts';
import { addressFacts, Facts, LoadState, messageAction } from '../parts.tsx';
import { ConfirmButton, can, type PageProps, time, useLoad } from '../ui.tsx';
import { Attachments, HtmlPreview } from './body.tsx';

const PENDING = 'pending_approval';

interface Held {
  /** Messages waiting for a person, over every identity the key reaches, each read whole (its body). */
  messages: Message[];
  /** The API refused the status filter: this pmail holds no sends for approval. */
  unsupported: boolean;
}

/** Every identity's sends waiting for approval (`status=pending_approval`), newest first, each with its body. */
async function held(identities: PageProps['identities']): Promise<Held> {
  const listed: Message[] = [];
  for (const i of identities) {
    try {
      const page = await pmail().messages.list(i.id, { status: PENDING, direction: 'outbound', limit: 100 });
      // Only what is pending, whatever else a page may hold.
      listed.push(...page.data.filter((m) => m.status === PENDING));
    } catch (e) {
      if (e instanceof PmailError && e.status === 400) return { messages: [], unsupported: true };
      throw e;
    }
  }
  // A page of the list leaves the body out: each held send is read whole, so the reviewer reads
  // what would leave before deciding.
  const messages = await Promise.all(listed.map((m) => pmail().messages.get(m.identity_id, m.id)));
  messages.sort((a, b) => b.received_at.localeCompare(a.received_at));
  return { messages, unsupported: false };
}

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
  const act = messageAction(list.reload);
  const rows = list.value?.messages ?? [];
  return (
    <>
      <LoadState error={list.error} loading={list.loading} />
      {!decide ? <p>This key may read held sends but not decide them (it lacks messages:approve).</p> : null}
      {rows.map((m) => (
        <article key={m.id} class="approval" data-message={m.id} aria-labelledby={`subject-${m.id}`}>
          <h2 id={`subject-${m.id}`} class="subject">
            <a href={`#/messages/${encodeURIComponent(m.identity_id)}/${encodeURIComponent(m.id)}`}>
              {m.subject || '(no subject)'}
            </a>
          </h2>
          <Facts entries={[...addressFacts(m), ['Held since', time(m.received_at)]]} />
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
