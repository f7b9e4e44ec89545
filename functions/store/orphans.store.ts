import type { Db } from './db.ts';
import { keys } from './table-keys.ts';

/**
 * Of `messageIds` (one identity's), those whose message may exist: the ones read, plus any the table
 * did not answer for after a few tries (UnprocessedKeys) — the orphan pass deletes only what it
 * read as absent. Strongly consistent BatchGetItem, keys only, 100 keys a request.
 */
export async function messagesThatMayExist(
  db: Db,
  identityId: string,
  messageIds: string[],
): Promise<Set<string>> {
  const found = new Set<string>();
  for (let i = 0; i < messageIds.length; i += 100) {
    let pending: Record<string, unknown>[] = messageIds
      .slice(i, i + 100)
      .map((id) => keys.message(identityId, id));
    for (let tries = 0; pending.length > 0 && tries < 5; tries++) {
      const out = await db.batchGet({
        RequestItems: {
          [db.table]: { Keys: pending, ConsistentRead: true, ProjectionExpression: 'sk' },
        },
      });
      for (const item of out.Responses?.[db.table] ?? []) found.add(String(item.sk).slice('M#'.length));
      pending = (out.UnprocessedKeys?.[db.table]?.Keys ?? []) as Record<string, unknown>[];
    }
    // Not answered: counted as existing, never deleted on a doubt.
    for (const k of pending) found.add(String(k.sk).slice('M#'.length));
  }
  return found;
}
