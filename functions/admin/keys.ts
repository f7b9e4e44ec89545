import { randomBytes } from 'node:crypto';
import {
  expiredKeyNotRotated,
  identityNotFound,
  invalidField,
  keptChanging,
  keyNotFound,
  newKeyTooWide,
  tenantNotFound,
} from '../core/errors.ts';
import { sha256Hex } from '../core/fingerprint.ts';
import { liftRefusal, mintRefusal } from '../core/guardrails.ts';
import {
  checkKeyAccess,
  checkPermissionsForLevel,
  type KeyScope,
  MAX_OVERLAP_HOURS,
  notWider,
} from '../core/keys.ts';
import type { ApiKeyDefinition, KeyLevel } from '../core/model.ts';
import type { Deps } from '../deps.ts';
import {
  createApiKey,
  getApiKeyDefinition,
  getSecretItems,
  revokeApiKey,
  rotateApiKey,
} from '../store/api-keys.store.ts';
import { auditPut } from '../store/audit-log.store.ts';
import { getIdentity, getTenant } from '../store/directory.store.ts';

/**
 * Minting, rotating and revoking API keys. The secret exists only in the answer to the
 * call that made it; the table holds its SHA-256. Each change writes its audit item in the same
 * transaction, and `finish` lets the caller add its idempotency record to it.
 */
type Extra = Parameters<typeof createApiKey>[2];

/** Who asks: a key, or the bootstrap / local seed (no key yet). */
export type Actor = { key: KeyScope } | { system: 'bootstrap' | 'local-seed' };
const actorId = (a: Actor) => ('key' in a ? a.key.key_id : a.system);

export interface MintInput {
  name: string;
  level: KeyLevel;
  tenant_id?: string;
  identity_id?: string;
  permissions: string[];
  /** Epoch ms. */
  expires_at?: number;
  /** Draft-only: every send through the key waits for approval (core/guardrails.ts › liftRefusal). */
  sends_need_approval?: boolean;
}

/** A new secret: `pm_{mode}_` and 32 random bytes, base64url. */
export const newSecret = (mode: 'live' | 'test') => `pm_${mode}_${randomBytes(32).toString('base64url')}`;

export async function mintKey(
  deps: Pick<Deps, 'db' | 'clock' | 'newId'>,
  actor: Actor,
  input: MintInput,
  opts: { requestId?: string; finish?: (d: ApiKeyDefinition) => Extra } = {},
): Promise<{ definition: ApiKeyDefinition; secret: string }> {
  const now = deps.clock();
  checkMintInput(input, now);
  checkMintScope(actor, input);
  const { tenantId, mode } = await placeOfKey(deps, actor, input);
  const secret = newSecret(mode);
  const definition: ApiKeyDefinition = {
    key_id: `key_${deps.newId()}`,
    name: input.name,
    level: input.level,
    ...(tenantId ? { tenant_id: tenantId } : {}),
    ...(input.identity_id ? { identity_id: input.identity_id } : {}),
    scopes: [...new Set(input.permissions)],
    mode,
    ...(input.expires_at !== undefined ? { expires_at: input.expires_at } : {}),
    ...(input.sends_need_approval ? { sends_need_approval: true } : {}),
    created_at: now,
    created_by: actorId(actor),
    secrets: [sha256Hex(secret)],
    version: 1,
  };
  await createApiKey(deps.db, definition, [
    auditPut(deps.db, {
      id: deps.newId(),
      tenant_id: tenantId,
      action: 'key.create',
      actor: actorId(actor),
      target_type: 'api_key',
      target_id: definition.key_id,
      details: {
        level: definition.level,
        permissions: definition.scopes,
        ...(definition.sends_need_approval ? { sends_need_approval: true } : {}),
        ...('system' in actor ? { via: actor.system } : {}),
      },
      request_id: opts.requestId,
      created_at: now,
    }),
    ...(opts.finish?.(definition) ?? []),
  ]);
  return { definition, secret };
}

/** The permissions and fields of a new key, first, so a refused permission is 400 whatever the caller. */
function checkMintInput(input: MintInput, now: number): void {
  const invalid = invalidField;
  checkPermissionsForLevel(input.level, input.permissions);
  if (input.level === 'platform' && (input.tenant_id || input.identity_id))
    throw invalid('tenant_id', 'a platform key names no tenant or identity');
  if (input.level === 'tenant' && !input.tenant_id)
    throw invalid('tenant_id', 'a tenant key needs tenant_id');
  if (input.level === 'tenant' && input.identity_id)
    throw invalid('identity_id', 'a tenant key names no identity');
  if (input.level === 'identity' && !input.identity_id)
    throw invalid('identity_id', 'an identity key needs identity_id');
  if (input.expires_at !== undefined && input.expires_at <= now)
    throw invalid('expires_at', 'must be a time in the future');
}

/**
 * The new key lies within the caller's own (403 key_scope_exceeded) and keeps the caller's
 * guardrails (core/guardrails.ts › mintRefusal), checked before anything is read, so another
 * tenant's ids and missing ones answer alike.
 */
function checkMintScope(actor: Actor, input: MintInput): void {
  if (!('key' in actor)) return;
  const c = actor.key;
  const scope: KeyScope = {
    key_id: '',
    level: input.level,
    tenant_id: input.tenant_id,
    identity_id: input.identity_id,
    scopes: input.permissions,
  };
  const exceeded =
    !notWider(c, scope) ||
    (c.level !== 'platform' && input.tenant_id !== undefined && input.tenant_id !== c.tenant_id) ||
    (c.level === 'identity' && input.identity_id !== c.identity_id);
  if (exceeded) throw newKeyTooWide(input.level);
  const refusal = mintRefusal(c, input);
  if (refusal) throw refusal;
}

/** The tenant a new key belongs to (an identity key's from its identity) and that tenant's mode. */
async function placeOfKey(
  deps: Pick<Deps, 'db'>,
  actor: Actor,
  input: MintInput,
): Promise<{ tenantId: string | undefined; mode: 'live' | 'test' }> {
  let tenantId = input.tenant_id;
  if (input.level === 'identity') {
    const identity = await getIdentity(deps.db, input.identity_id!);
    const reachable =
      identity &&
      identity.status !== 'deleted' &&
      (tenantId === undefined || identity.tenant_id === tenantId) &&
      (!('key' in actor) || actor.key.level === 'platform' || actor.key.tenant_id === identity.tenant_id);
    if (!reachable) throw identityNotFound();
    tenantId = identity.tenant_id;
  }
  if (tenantId === undefined) return { tenantId, mode: 'live' };
  const tenant = await getTenant(deps.db, tenantId);
  if (!tenant) throw tenantNotFound();
  return { tenantId, mode: tenant.mode };
}

/** The key, if the caller may act on it (reach, else 404; not wider, else 403). */
export async function keyInReach(deps: Pick<Deps, 'db'>, caller: KeyScope, keyId: string) {
  const d = await getApiKeyDefinition(deps.db, keyId);
  if (!d) throw keyNotFound();
  checkKeyAccess(caller, { ...d, scopes: d.scopes });
  return d;
}

/** DELETE /v1/keys/{key_id}: revoked at once, every secret with it. Revoking twice changes nothing. */
export async function revokeKey(
  deps: Pick<Deps, 'db' | 'clock' | 'newId'>,
  caller: KeyScope,
  keyId: string,
  requestId?: string,
): Promise<ApiKeyDefinition> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const d = await keyInReach(deps, caller, keyId);
    if (d.revoked_at !== undefined) return d;
    const now = deps.clock();
    const done = await revokeApiKey(deps.db, d, now, [
      auditPut(deps.db, {
        id: deps.newId(),
        tenant_id: d.tenant_id,
        action: 'key.revoke',
        actor: caller.key_id,
        target_type: 'api_key',
        target_id: d.key_id,
        details: {},
        request_id: requestId,
        created_at: now,
      }),
    ]);
    if (done) return { ...d, revoked_at: now, version: d.version + 1 };
  }
  throw keptChanging('key');
}

/**
 * POST /v1/keys/{key_id}/rotate: a new secret for the same key; the old ones keep working for
 * `overlapHours` (0: they stop at once). A revoked or expired key cannot be rotated (404 / 401 as
 * reading it would not help): it answers key_not_found for revoked, so nothing revives it.
 */
export async function rotateKey(
  deps: Pick<Deps, 'db' | 'clock' | 'newId'>,
  caller: KeyScope,
  keyId: string,
  overlapHours: number,
  opts: { requestId?: string; finish?: (d: ApiKeyDefinition) => Extra } = {},
): Promise<{ definition: ApiKeyDefinition; secret: string; oldUntil: number }> {
  if (!(overlapHours >= 0 && overlapHours <= MAX_OVERLAP_HOURS)) throw new Error('overlap out of range');
  for (let attempt = 0; attempt < 3; attempt++) {
    const d = await keyInReach(deps, caller, keyId);
    if (d.revoked_at !== undefined) throw keyNotFound();
    const lifted = liftRefusal(caller, d);
    if (lifted) throw lifted;
    const now = deps.clock();
    if (d.expires_at !== undefined && d.expires_at <= now) throw expiredKeyNotRotated();
    const items = await getSecretItems(deps.db, d.secrets);
    const live = d.secrets.filter((h) => {
      const s = items.get(h);
      return s && (s.secret_expires_at === undefined || s.secret_expires_at > now);
    });
    const dropped = d.secrets.filter((h) => !live.includes(h));
    const oldUntil = now + overlapHours * 3600_000;
    const shorten = live.filter((h) => {
      const end = items.get(h)?.secret_expires_at;
      return end === undefined || end > oldUntil;
    });
    const secret = newSecret(d.mode);
    const newHash = sha256Hex(secret);
    const next: ApiKeyDefinition = { ...d, secrets: [...live, newHash], version: d.version + 1 };
    const done = await rotateApiKey(deps.db, d, { newHash, oldUntil, live, shorten, dropped }, [
      auditPut(deps.db, {
        id: deps.newId(),
        tenant_id: d.tenant_id,
        action: 'key.rotate',
        actor: caller.key_id,
        target_type: 'api_key',
        target_id: d.key_id,
        details: { overlap_hours: overlapHours },
        request_id: opts.requestId,
        created_at: now,
      }),
      ...(opts.finish?.(next) ?? []),
    ]);
    if (done) return { definition: next, secret, oldUntil };
  }
  throw keptChanging('key');
}
