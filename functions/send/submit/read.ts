import { possibleLocalDays } from '../../core/quota.ts';
import type { Deps } from '../../deps.ts';
import { type FirstReadArgs, readFirst } from '../../store/submit-read.store.ts';
import type { FirstReadAt } from './input.ts';

/**
 * Read: the first read of a send, in one BatchGetItem (store/submit-read.store.ts) — the calling
 * key, the identity, the Idempotency-Key's item and the identity's counters of every local day the
 * request can fall on. The route admits the caller on it; a duplicate is answered from it alone.
 */
export async function readSubmit(
  deps: Pick<Deps, 'db' | 'clock'>,
  read: Pick<FirstReadArgs, 'apiKeyHash' | 'identityId' | 'idempotencyKeyHash'>,
): Promise<FirstReadAt> {
  const now = deps.clock();
  return { ...(await readFirst(deps.db, { ...read, days: possibleLocalDays(now), now })), now };
}
