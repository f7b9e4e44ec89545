import { type Message, pmail } from '../api.ts';
import { LoadState, messageAction, Table } from '../parts.tsx';
import { ConfirmButton, type PageProps, time, useLoad } from '../ui.tsx';

/** A held message as `GET …/held` lists it (openapi.yaml › Message: `held`, `inbound.trust`). */
type HeldMessage = Message & {
  inbound?:
    | (Message['inbound'] & { trust?: { authenticated: boolean; listed: string | null } | null })
    | null;
};

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
    const page = await pmail().messages.held(i.id, { limit: 100 });
    messages.push(...(page.data as HeldMessage[]));
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
  const act = messageAction(list.reload);
  const rows = list.value?.messages ?? [];
  return (
    <>
      <LoadState error={list.error} loading={list.loading} />
      {list.value ? (
        <p>
          {list.value.totals.count} held
          {list.value.totals.dropped ? `; ${list.value.totals.dropped} dropped past the held caps` : ''}.
        </p>
      ) : null}
      <Table<HeldMessage>
        caption="Mail held back from the agents"
        rows={rows}
        rowKey={(m) => m.id}
        attrs={(m) => ({ 'data-message': m.id })}
        empty="No held mail."
        loaded={Boolean(list.value)}
        columns={[
          { head: 'From', cell: (m) => m.from.address },
          { head: 'Subject', cell: (m) => m.subject || '(no subject)' },
          {
            head: 'To identity',
            cell: (m) => identities.find((i) => i.id === m.identity_id)?.primary_address ?? m.identity_id,
          },
          {
            head: 'Why held',
            cell: (m) => (
              <>
                {REASONS[m.held?.reason ?? ''] ?? m.held?.reason}
                {m.inbound?.trust?.authenticated ? ' (sender authenticated)' : ''}
              </>
            ),
          },
          { head: 'Received', cell: (m) => time(m.received_at) },
          {
            head: 'Decision',
            cell: (m) => (
              <>
                <ConfirmButton
                  label="Release"
                  question={`Release “${m.subject}”? The agent reads it from now on, as if it had just arrived.`}
                  run={act(m, 'release')}
                />
                <ConfirmButton
                  label="Delete"
                  question={`Delete “${m.subject}”? It is gone for good, with its raw copy.`}
                  run={act(m, 'delete')}
                  danger
                />
              </>
            ),
          },
        ]}
      />
    </>
  );
}
