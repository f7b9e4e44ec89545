import { type components, Pmail, PmailError } from '../../packages/client/src/index.ts';

/**
 * The console's one door to the pmail API: the typed client (`@pmail/client`, packages/client)
 * on this origin, with the key the person typed. The key lives in this tab's sessionStorage only
 * (never a URL, a cookie or a log).
 */
const KEY = 'pmail.console.apiKey';

export const session = {
  key: (): string | null => sessionStorage.getItem(KEY),
  signIn: (key: string) => sessionStorage.setItem(KEY, key),
  // Signing out forgets everything the tab kept: the key and the identity the pages opened on.
  signOut: () => sessionStorage.clear(),
};

export { PmailError };

/** No cookie goes with a call and no answer is kept by the browser: the key is the only credential. */
const consoleFetch = (request: Request) => fetch(request, { credentials: 'omit', cache: 'no-store' });

let current: { key: string; client: Pmail } | undefined;

/** The client for the key of this tab's session (a new one when the key changes). */
export function pmail(): Pmail {
  const key = session.key() ?? '';
  if (current?.key !== key) {
    current = { key, client: new Pmail({ apiKey: key, baseUrl: location.origin, fetch: consoleFetch }) };
  }
  return current.client;
}

type Schemas = components['schemas'];
export type Me = Schemas['Me'];
/** What a page needs of an identity the key reaches. */
export type Identity = Pick<Schemas['Identity'], 'id' | 'username' | 'primary_address'>;
export type Mailbox = Schemas['Mailbox'];
/** A message as the API answers it; a list's search hit (`q`) also carries its highlight. */
export type Message = Schemas['MessageListItem'];
export type Inbound = NonNullable<Schemas['Message']['inbound']>;
export type EventView = Omit<Schemas['Event'], 'data'> & {
  data: Record<string, unknown> & { message_id?: string };
};

/** Every event of the tenant, oldest first, up to `maxPages` pages of 100. */
export async function allEvents(maxPages = 20): Promise<EventView[]> {
  const out: EventView[] = [];
  let after: string | undefined;
  for (let i = 0; i < maxPages; i++) {
    const page = await pmail().events.list({ limit: 100, after });
    out.push(...(page.data as EventView[]));
    if (!page.next_cursor) break;
    after = page.next_cursor;
  }
  return out;
}

/** The identities this key reaches: its own, or its tenant's. */
export async function identitiesOf(me: Me): Promise<Identity[]> {
  if (me.identity_id) {
    const one = await pmail()
      .identities.get(me.identity_id)
      .catch(() => undefined);
    return [one ?? { id: me.identity_id, username: me.identity_id, primary_address: me.identity_id }];
  }
  if (!me.tenant_id) return [];
  const page = await pmail()
    .identities.list(me.tenant_id, { limit: 100 })
    .catch(() => ({ data: [] as Identity[] }));
  return page.data;
}
