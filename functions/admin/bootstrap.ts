import { BOOTSTRAP_TTL_MS, keyStatus, permissionsOf } from '../core/keys.ts';
import type { Deps } from '../deps.ts';
import { listApiKeyDefinitions } from '../store/api-keys.store.ts';
import { mintKey } from './keys.ts';

/**
 * `pmail admin bootstrap` (issue 10): the first platform key, written straight into the table (its
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
  const { definition, secret } = await mintKey(
    deps,
    { system: 'bootstrap' },
    {
      name: opts.name ?? 'bootstrap',
      level: 'platform',
      permissions: permissionsOf('platform'),
      expires_at: now + BOOTSTRAP_TTL_MS,
    },
  );
  return { status: 'created', key_id: definition.key_id, secret, expires_at: definition.expires_at! };
}
