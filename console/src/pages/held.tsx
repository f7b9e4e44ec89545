import { api, type Message, type Page } from '../api.ts';
import { ConfirmButton, ErrorNote, Loading, type PageProps, time, useLoad } from '../ui.tsx';

/** A held message as `GET …/held` lists it (openapi.yaml › Message: `held`, `inbound.trust`). */
type HeldMessage = Message & {
  held: { reason: string; held_at: string | null } | null;
  inbound?:
    | (Message['inbound'] & { trust?: { authenticated: boolean; listed: string | null } | null })
    | null;
};

interface HeldPage extends Page<HeldMessage> {
  held: { count: number; bytes: number; dropped: number; caps: { count: number; bytes: number } };
}

/** Why each reason holds mail (docs/guides/receiving.md › Held mail), in a person's words. */
const REASONS: Record<string, string> = {
  blocked: 'sender on the receive block list',
  unauthenticated: 'does not prove its From',
  unknown: 'sender is no contact',
  rate: 'past the stranger rate',
};

/** Every identity's held mail, newest first, with what each identity holds against its caps. */
async function heldMail(identities: PageProps['identities']) {
  const messages: HeldMessage[] = [];
  const totals = { count: 0, dropped: 0 };
  for (const i of identities) {
    const page = await api<HeldPage>('GET', `/v1/identities/${encodeURIComponent(i.id)}/held`, {
      query: { limit: '100' },
    });
    messages.push(...page.data);
    totals.count += page.held.count;
    totals.dropped += page.held.dropped;
  }
  messages.sort((a, b) => b.received_at.localeCompare(a.received_at));
  return { messages, totals };
}

/**
 * Mail held back from the agents (a key holding `messages:hold` sees this page): who sent it, why
 * it is held, and Release (the agent reads it from then on, as if it had just arrived) or Delete,
 * each asking first. Senders and subjects are mail from outside: shown as text only.
 */
export function Held({ identities }: PageProps) {
  const list = useLoad(() => heldMail(identities), [identities.map((i) => i.id).join()]);
  const act = (m: HeldMessage, method: 'POST' | 'DELETE') => async () => {
    const base = `/v1/identities/${encodeURIComponent(m.identity_id)}/messages/${encodeURIComponent(m.id)}`;
    await api(method, method === 'POST' ? `${base}/release` : base);
    list.reload();
  };
  const rows = list.value?.messages ?? [];
  return (
    <>
      <ErrorNote error={list.error} />
      <Loading when={list.loading} />
      {list.value ? (
        <p>
          {list.value.totals.count} held
          {list.value.totals.dropped ? `; ${list.value.totals.dropped} dropped past the held caps` : ''}.
        </p>
      ) : null}
      <table>
        <caption class="visually-hidden">Mail held back from the agents</caption>
        <thead>
          <tr>
            <th scope="col">From</th>
            <th scope="col">Subject</th>
            <th scope="col">To identity</th>
            <th scope="col">Why held</th>
            <th scope="col">Received</th>
            <th scope="col">Decision</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((m) => (
            <tr key={m.id} data-message={m.id}>
              <td>{m.from.address}</td>
              <td>{m.subject || '(no subject)'}</td>
              <td>{identities.find((i) => i.id === m.identity_id)?.primary_address ?? m.identity_id}</td>
              <td>
                {REASONS[m.held?.reason ?? ''] ?? m.held?.reason}
                {m.inbound?.trust?.authenticated ? ' (sender authenticated)' : ''}
              </td>
              <td>{time(m.received_at)}</td>
              <td>
                <ConfirmButton
                  label="Release"
                  question={`Release “${m.subject}”? The agent reads it from now on, as if it had just arrived.`}
                  run={act(m, 'POST')}
                />
                <ConfirmButton
                  label="Delete"
                  question={`Delete “${m.subject}”? It is gone for good, with its raw copy.`}
                  run={act(m, 'DELETE')}
                  danger
                />
              </td>
            </tr>
          ))}
          {list.value && rows.length === 0 ? (
            <tr>
              <td colSpan={6}>No held mail.</td>
            </tr>
          ) : null}
        </tbody>
      </table>
    </>
  );
}
