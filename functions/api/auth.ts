import { PmailError } from '../core/errors.ts';
import { sha256Hex } from '../core/fingerprint.ts';
import type { ApiKeyRecord, Identity, Tenant } from '../core/model.ts';
import type { Db } from '../store/db.ts';
import { getApiKey, getIdentityAndTenant } from '../store/directory.store.ts';

/** Every permission a tenant key can hold (the local stack's key holds them all). */
export const TENANT_PERMISSIONS = [
  'messages:send',
  'messages:read',
  'messages:write',
  'identities:read',
  'identities:write',
  'suppressions:manage',
  'webhooks:read',
  'webhooks:manage',
  'domains:read',
  'domains:write',
  'events:read',
] as const;
export type Permission = (typeof TENANT_PERMISSIONS)[number];

/** `Authorization: Bearer <key>`; keys are looked up by their SHA-256 only. */
export async function authenticate(db: Db, authorization: string | undefined): Promise<ApiKeyRecord> {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  if (!m) throw new PmailError('unauthenticated', 'Missing or malformed Authorization header.');
  const key = await getApiKey(db, sha256Hex(m[1]));
  if (!key) throw new PmailError('unauthenticated', 'Unknown API key.');
  return key;
}

export function requirePermission(key: ApiKeyRecord, permission: Permission): void {
  if (!key.scopes.includes(permission)) {
    throw new PmailError('permission_denied', `This key lacks the ${permission} permission.`, {
      details: { required: permission },
    });
  }
}

/**
 * The identity, if the key may act for it. Outside the key's scope is `identity_not_found`, exactly
 * as for a missing identity (seed 000 › Handler step 1).
 */
export async function identityInScope(
  db: Db,
  key: ApiKeyRecord,
  identityId: string,
): Promise<{ identity: Identity; tenant: Tenant }> {
  const notFound = () =>
    new PmailError('identity_not_found', 'No identity with this id is visible to this key.');
  if (!/^idn_[0-9a-z]{26}$/.test(identityId)) throw notFound();
  if (key.identity_ids && !key.identity_ids.includes(identityId)) throw notFound();
  const { identity, tenant } = await getIdentityAndTenant(db, identityId, key.tenant_id);
  if (!identity || !tenant || identity.tenant_id !== key.tenant_id || identity.status === 'deleted')
    throw notFound();
  return { identity, tenant };
}
