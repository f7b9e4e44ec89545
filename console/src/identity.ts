import { useEffect, useState } from 'preact/hooks';
import { pmail } from './api.ts';

/**
 * Which identity the Messages, Inbox and Threads pages open on: the one the page's address names,
 * else the one chosen earlier in this tab (sessionStorage, like the key), else the first the key
 * reaches that has mail (the seeded `agent` on `npm start`), else the first. A choice is remembered
 * for the tab's session and shared by the three pages.
 */
const KEY = 'pmail.console.identity';
/** How many identities are asked whether they have mail, at most (one small request each). */
const PROBED = 25;

export function useIdentity(
  identities: { id: string }[],
  given?: string | null,
): [identity: string, choose: (id: string) => void] {
  const known = (id: string | null | undefined) =>
    id && identities.some((i) => i.id === id) ? id : undefined;
  const [identity, setIdentity] = useState(known(given) ?? known(sessionStorage.getItem(KEY)) ?? '');
  useEffect(() => {
    if (identity || identities.length === 0) return;
    let live = true;
    firstWithMail(identities).then((id) => live && setIdentity((now) => now || id));
    return () => {
      live = false;
    };
  }, [identities.map((i) => i.id).join()]);
  const choose = (id: string) => {
    sessionStorage.setItem(KEY, id);
    setIdentity(id);
  };
  return [identity, choose];
}

async function firstWithMail(identities: { id: string }[]): Promise<string> {
  for (const i of identities.slice(0, PROBED)) {
    const page = await pmail()
      .messages.list(i.id, { limit: 1 })
      .catch(() => undefined);
    if (page?.data.length) return i.id;
  }
  return identities[0].id;
}
