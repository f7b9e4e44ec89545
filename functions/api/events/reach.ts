import { invalidQuery } from '../../core/errors.ts';
import type { EventFilter, EventReader } from '../../core/event-access.ts';
import { maySeeHeld } from '../../core/hold.ts';
import { isId } from '../../core/ids.ts';
import type { Db } from '../../store/db.ts';
import { type Caller, identityInScope } from '../auth.ts';

/** Who reads the tenant's events with this key: an identity key reads only its identities' events. */
export const readerOf = (key: Caller): EventReader => ({
  ...(key.identity_ids ? { identity_ids: key.identity_ids } : {}),
  ...(maySeeHeld(key) ? { sees_held: true } : {}),
});

/**
 * A filter asked of `GET /v1/events`, a ticket or a stream, checked against the key: its
 * `identity_id` in the key's scope and the tenant's (else `404 identity_not_found`, as for a
 * missing identity), its `thread_id` a thread id. The types are parsed by their caller.
 */
export async function checkedFilter(db: Db, key: Caller, asked: EventFilter): Promise<EventFilter> {
  if (asked.identity_id !== undefined) await identityInScope(db, key, asked.identity_id);
  if (asked.thread_id !== undefined && !isId('thread', asked.thread_id))
    throw invalidQuery([{ path: 'thread_id', message: 'not a thread id (thr_…)' }]);
  return Object.fromEntries(Object.entries(asked).filter(([, v]) => v !== undefined)) as EventFilter;
}
