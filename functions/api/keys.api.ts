import type { DepsFor } from '../lambda-ports.ts';
import { createKeyRoute } from './keys/create-key.ts';
import { getKeyRoute } from './keys/get-key.ts';
import { getMeRoute } from './keys/get-me.ts';
import { listAuditEventsRoute } from './keys/list-audit-events.ts';
import { listKeysRoute } from './keys/list-keys.ts';
import { revokeKeyRoute } from './keys/revoke-key.ts';
import { rotateKeyRoute } from './keys/rotate-key.ts';
import { type KeyedRoute, keyedGroup } from './operation.ts';

/** The operations of the group, each behind the shared step: the key and the permission it names. */
const OPERATIONS: Record<string, KeyedRoute> = {
  getMe: getMeRoute,
  createKey: createKeyRoute,
  listKeys: listKeysRoute,
  getKey: getKeyRoute,
  revokeKey: revokeKeyRoute,
  rotateKey: rotateKeyRoute,
  listAuditEvents: listAuditEventsRoute,
};

/**
 * The `keys` route group: API keys (`keys:manage`), `/v1/me` (any key) and the audit log
 * (`audit:read`), one file per operation under functions/api/keys/. A key never mints, reads,
 * rotates or revokes a key wider than itself; a key out of reach answers 404 key_not_found exactly
 * as a missing one.
 */
export function keysApi(deps: DepsFor<'api-keys'>) {
  return keyedGroup(deps, OPERATIONS);
}
