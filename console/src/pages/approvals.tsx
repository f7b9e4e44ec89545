import { ApiError, api, type Message, type Page } from '../api.ts';
import { ConfirmButton, can, ErrorNote, Loading, type PageProps, time, useLoad } from '../ui.tsx';

const PENDING = 'pending_approval';

interface Held {
  /** Messages waiting for a person, over every identity the key reaches. */
  messages: Message[];
  /** The API refused the status filter: this pmail holds no sends for approval. */
  unsupported: boolean;
}

/** Every identity's sends waiting for approval (`status=pending_approval`), newest first. */
async function held(identities: PageProps['identities']): Promise<Held> {
  const messages: Message[] = [];
  for (const i of identities) {
    try {
      const page = await api<Page<Message>>('GET', `/v1/identities/${encodeURIComponent(i.id)}/messages`, {
        query: { status: PENDING, direction: 'outbound', limit: '100' },
      });
      // Only what is pending, whatever else a page may hold.
      messages.push(...page.data.filter((m) => m.status === PENDING));
    } catch (e) {
      if (e instanceof ApiError && e.status === 400) return { messages: [], unsupported: true };
      throw e;
    }
  }
  messages.sort((a, b) => b.received_at.localeCompare(a.received_at));
  return { messages, unsupported: false };
}

/**
 * Sends held for a person's approval, with Approve and Reject (each asking first) where the key
 * holds `messages:approve`. The API decides: an approval re-runs the send's checks, and a send
 * another person already decided answers with its state, shown beside the button.
 */
export function Approvals({ me, identities }: PageProps) {
  const list = useLoad(() => held(identities), [identities.map((i) => i.id).join()]);
  const decide = can(me, 'messages:approve');
  const act = (m: Message, action: 'approve' | 'reject') => async () => {
    const base = `/v1/identities/${encodeURIComponent(m.identity_id)}/messages/${encodeURIComponent(m.id)}`;
    await api('POST', `${base}/${action}`);
    list.reload();
  };
  const rows = list.value?.messages ?? [];
  return (
    <>
      <ErrorNote error={list.error} />
      <Loading when={list.loading} />
      {!decide ? <p>This key may read held sends but not decide them (it lacks messages:approve).</p> : null}
      <table>
        <caption class="visually-hidden">Sends waiting for approval</caption>
        <thead>
          <tr>
            <th scope="col">Subject</th>
            <th scope="col">Recipients</th>
            <th scope="col">From</th>
            <th scope="col">Held since</th>
            {decide ? <th scope="col">Decision</th> : null}
          </tr>
        </thead>
        <tbody>
          {rows.map((m) => (
            <tr key={m.id} data-message={m.id}>
              <td>
                <a href={`#/messages/${encodeURIComponent(m.identity_id)}/${encodeURIComponent(m.id)}`}>
                  {m.subject || '(no subject)'}
                </a>
              </td>
              <td>{[...m.to, ...m.cc, ...m.bcc].map((r) => r.address).join(', ')}</td>
              <td>{m.from.address}</td>
              <td>{time(m.received_at)}</td>
              {decide ? (
                <td>
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
                </td>
              ) : null}
            </tr>
          ))}
          {list.value && rows.length === 0 ? (
            <tr>
              <td colSpan={decide ? 5 : 4}>
                {list.value.unsupported
                  ? 'No approvals: this pmail holds no sends for approval.'
                  : 'No approvals waiting.'}
              </td>
            </tr>
          ) : null}
        </tbody>
      </table>
    </>
  );
}
