import {
  identityNotFound,
  keyExpired,
  keyRevoked,
  malformedAuthorization,
  permissionDenied,
  unknownApiKey,
} from '../core/errors.ts';
import { sha256Hex } from '../core/fingerprint.ts';
import { isId } from '../core/ids.ts';
import {
  type KeyScope,
  LAST_USED_EVERY_MS,
  type Permission,
  permissionsOf,
  scopeOf,
  secretProblem,
} from '../core/keys.ts';
import type { ApiKeyRecord, Identity, Tenant } from '../core/model.ts';
import type { Deps } from '../deps.ts';
import { touchLastUsed } from '../store/api-keys.store.ts';
import type { Db } from '../store/db.ts';
import { getApiKey, getIdentity, getIdentityAndTenant, getTenant } from '../store/directory.store.ts';

export type { Permission } from '../core/keys.ts';

/** Every permission a tenant key can hold (the local stack's tenant key holds them all). */
export const TENANT_PERMISSIONS = permissionsOf('tenant');

/** The calling key: its stored record and its scope (level, tenant, identity, permissions). */
export type Caller = ApiKeyRecord & { scope: KeyScope };

/**
 * `Authorization: Bearer <key>`; keys are looked up by their SHA-256 only. A revoked key is 401
 * key_revoked, an expired key (or a secret replaced by a rotation, past its overlap) 401 key_expired.
 * `last_used_at` is written at most once a minute per key and never delays the answer's read path:
 * the read decides, and the conditional write is skipped within the minute.
 */
export async function authenticate(
  deps: Pick<Deps, 'db' | 'clock' | 'log'>,
  authorization: string | undefined,
): Promise<Caller> {
  const hash = bearerHash(authorization);
  return admitCaller(deps, await getApiKey(deps.db, hash), hash);
}

/** The SHA-256 of the bearer secret (what the `K#{sha256}` item is keyed by); 401 when malformed. */
export function bearerHash(authorization: string | undefined): string {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  if (!m) throw malformedAuthorization();
  return sha256Hex(m[1]);
}

/**
 * The rest of authentication on the key's item, however it was read (alone, or in the send's first
 * BatchGetItem): unknown, revoked or expired keys are 401; `last_used_at` is written at most once a
 * minute.
 */
export async function admitCaller(
  deps: Pick<Deps, 'db' | 'clock' | 'log'>,
  key: ApiKeyRecord | undefined,
  hash: string,
): Promise<Caller> {
  const { db, clock, log } = deps;
  if (!key) throw unknownApiKey();
  const now = clock();
  const problem = secretProblem(key, now);
  if (problem === 'key_revoked') throw keyRevoked();
  if (problem === 'key_expired') throw keyExpired();
  if (key.last_used_at === undefined || key.last_used_at < now - LAST_USED_EVERY_MS) {
    try {
      await touchLastUsed(db, key.key_id, hash, now, now - LAST_USED_EVERY_MS);
    } catch (err) {
      // Bookkeeping only: a failed write never fails the request.
      log.warn('last_used_at not written', { key_id: key.key_id, error: String(err) });
    }
  }
  return { ...key, scope: scopeOf(key) };
}

export function requirePermission(key: ApiKeyRecord, permission: Permission): void {
  if (!key.scopes.includes(permission)) throw permissionDenied(permission);
}

/**
 * The identity, if the key may act for it. Outside the key's scope is `identity_not_found`, exactly
 * as for a missing identity.
 */
/**
 * The identity as `identityInScope` admits it, on an identity item already read (the send's first
 * read); the tenant is read by the caller when it needs it (`tenantOfIdentity`).
 */
export function identityVisible(
  key: ApiKeyRecord,
  identityId: string,
  identity: Identity | undefined,
): Identity {
  const notFound = () => identityNotFound();
  if (!isId('identity', identityId)) throw notFound();
  if (key.identity_ids && !key.identity_ids.includes(identityId)) throw notFound();
  if (key.level !== 'platform' && (!key.tenant_id || identity?.tenant_id !== key.tenant_id)) throw notFound();
  if (!identity || identity.status === 'deleted') throw notFound();
  return identity;
}

/** The tenant of a visible identity; 404 identity_not_found when it is gone. */
export async function tenantOfIdentity(db: Db, identity: Identity): Promise<Tenant> {
  const tenant = await getTenant(db, identity.tenant_id);
  if (!tenant) throw identityNotFound();
  return tenant;
}

export async function identityInScope(
  db: Db,
  key: ApiKeyRecord,
  identityId: string,
): Promise<{ identity: Identity; tenant: Tenant }> {
  const notFound = () => identityNotFound();
  if (!isId('identity', identityId)) throw notFound();
  if (key.identity_ids && !key.identity_ids.includes(identityId)) throw notFound();
  if (key.level === 'platform') {
    const identity = await getIdentity(db, identityId);
    const tenant = identity && (await getTenant(db, identity.tenant_id));
    if (!identity || !tenant || identity.status === 'deleted') throw notFound();
    return { identity, tenant };
  }
  if (!key.tenant_id) throw notFound();
  const { identity, tenant } = await getIdentityAndTenant(db, identityId, key.tenant_id);
  if (!identity || !tenant || identity.tenant_id !== key.tenant_id || identity.status === 'deleted')
    throw notFound();
  return { identity, tenant };
}
