import { BOOTSTRAP_TTL_MS, keyStatus, permissionsOf } from '../core/keys.ts';
import type { Deps } from '../deps.ts';
import { listApiKeyDefinitions } from '../store/api-keys.store.ts';
import { PLATFORM_PK } from '../store/audit-log.store.ts';
import { isTransactionCanceled } from '../store/db.ts';
import { mintKey } from './keys.ts';

/**
 * Two bootstraps at once must not both mint: each takes this lock in its mint transaction, so the
 * later one fails and is refused. The lock lapses after a minute, by when the key index shows the
 * first key to any later bootstrap.
 */
const LOCK_MS = 60_000;

/**
 * `pmail admin bootstrap`: the first platform key, written straight into the table (its
 * SHA-256, as every key), valid 24 hours, holding every permission a platform key can hold. Refused
 * while a platform key that is neither revoked nor expired exists: then the operator already has a
 * way in, and a second bootstrap would only widen who holds one.
 */
export type BootstrapResult =
  | { status: 'created'; key_id: string; secret: string; expires_at: number }
  | { status: 'exists'; key_ids: string[] };

export async function bootstrapPlatformKey(
  deps: Pick<Deps, 'db' | 'clock' | 'newId'>,
  opts: { name?: string } = {},
): Promise<BootstrapResult> {
  const now = deps.clock();
  const live: string[] = [];
  let after: string | undefined;
  do {
    const page = await listApiKeyDefinitions(deps.db, null, { limit: 100, after });
    for (const k of page.data) if (keyStatus(k, now) === 'active') live.push(k.key_id);
    after = page.next;
  } while (after);
  if (live.length > 0) return { status: 'exists', key_ids: live };
  try {
    const { definition, secret } = await mintKey(
      deps,
      { system: 'bootstrap' },
      {
        name: opts.name ?? 'bootstrap',
        level: 'platform',
        permissions: permissionsOf('platform'),
        expires_at: now + BOOTSTRAP_TTL_MS,
      },
      {
        finish: (d) => [
          {
            Put: {
              TableName: deps.db.table,
              Item: {
                pk: PLATFORM_PK,
                sk: 'BOOTSTRAP',
                type: 'bootstrap_lock',
                key_id: d.key_id,
                lock_until: now + LOCK_MS,
              },
              ConditionExpression: 'attribute_not_exists(pk) OR lock_until <= :now',
              ExpressionAttributeValues: { ':now': now },
            },
          },
        ],
      },
    );
    return { status: 'created', key_id: definition.key_id, secret, expires_at: definition.expires_at! };
  } catch (err) {
    // The lock (the last item of the transaction) was taken: another bootstrap minted just now.
    const reasons = isTransactionCanceled(err) ? (err.CancellationReasons ?? []) : [];
    if (reasons[reasons.length - 1]?.Code === 'ConditionalCheckFailed')
      return { status: 'exists', key_ids: [] };
    throw err;
  }
}
