import { keyNotFound, keyTooWide, permissionsNotForLevel } from './errors.ts';
import type { ApiKeyDefinition, ApiKeyRecord, KeyLevel } from './model.ts';

/**
 * API keys: levels, permissions and the rules of who may mint, read, rotate and revoke what
 * (docs/guides/sending.md › Tenants, identities and keys; docs/security.md › Who may change what),
 * for one organisation's deployment: no partner level. Pure: the store and the API call these.
 */
export const KEY_LEVELS = ['platform', 'tenant', 'identity'] as const satisfies readonly KeyLevel[];

const ALL: readonly KeyLevel[] = KEY_LEVELS;
const PLATFORM_TENANT: readonly KeyLevel[] = ['platform', 'tenant'];

/** Every permission, and the levels that may hold it. No wildcards, no implicit set. */
export const PERMISSION_LEVELS = {
  'tenants:manage': ['platform'],
  'keys:manage': ALL,
  'policy:write': PLATFORM_TENANT,
  'audit:read': PLATFORM_TENANT,
  'suppressions:manage': PLATFORM_TENANT,
  'identities:read': ALL,
  'identities:write': PLATFORM_TENANT,
  'messages:send': ALL,
  'messages:read': ALL,
  'messages:write': ALL,
  'messages:approve': ALL,
  'messages:hold': ALL,
  'webhooks:read': ALL,
  'webhooks:manage': PLATFORM_TENANT,
  'events:read': ALL,
  'domains:read': ALL,
  'domains:write': PLATFORM_TENANT,
  'templates:read': ALL,
  'templates:write': PLATFORM_TENANT,
} as const satisfies Record<string, readonly KeyLevel[]>;

export type Permission = keyof typeof PERMISSION_LEVELS;
export const PERMISSIONS = Object.keys(PERMISSION_LEVELS) as Permission[];

/**
 * Permissions an identity key holds only when it is created with them: its full set leaves them
 * out. `messages:approve` is a person's decision over the agent's sends (core/approval.ts), and
 * `messages:hold` reads the mail held back from the agent (core/hold.ts), so the agent's own
 * identity key holds neither by default.
 */
const EXPLICIT_FOR_IDENTITY: ReadonlySet<Permission> = new Set<Permission>([
  'messages:approve',
  'messages:hold',
]);

/** The permissions a key of this level holds by default (the full set a bootstrap or seeded key gets). */
export const permissionsOf = (level: KeyLevel): Permission[] =>
  PERMISSIONS.filter(
    (p) =>
      (PERMISSION_LEVELS[p] as readonly KeyLevel[]).includes(level) &&
      !(level === 'identity' && EXPLICIT_FOR_IDENTITY.has(p)),
  );

const RANK: Record<KeyLevel, number> = { platform: 3, tenant: 2, identity: 1 };

/** Rotation overlap bounds, hours. */
export const MAX_OVERLAP_HOURS = 168;
/** The bootstrap key's lifetime. */
export const BOOTSTRAP_TTL_MS = 24 * 3600 * 1000;
/** `last_used_at` is written at most this often per key, so authentication stays a read. */
export const LAST_USED_EVERY_MS = 60_000;

/** What scope rules need of a key: its level, tenant, identity and permissions. */
export interface KeyScope {
  key_id: string;
  level: KeyLevel;
  tenant_id?: string;
  identity_id?: string;
  scopes: readonly string[];
  /** Epoch ms; a key an identity key mints expires no later (core/guardrails.ts › mintRefusal). */
  expires_at?: number;
  /** Draft-only: its sends wait for approval, and it mints and rotates only draft-only keys. */
  sends_need_approval?: boolean;
}

/** The level of a stored key; keys minted before levels existed are tenant or identity keys. */
export function levelOf(k: Pick<ApiKeyRecord, 'level' | 'identity_ids'>): KeyLevel {
  return k.level ?? (k.identity_ids ? 'identity' : 'tenant');
}

export function scopeOf(k: ApiKeyRecord | ApiKeyDefinition): KeyScope {
  const level = levelOf(k as ApiKeyRecord);
  const identity =
    k.identity_id ??
    ((k as ApiKeyRecord).identity_ids?.length === 1 ? (k as ApiKeyRecord).identity_ids![0] : undefined);
  return {
    key_id: k.key_id,
    level,
    tenant_id: k.tenant_id,
    identity_id: identity,
    scopes: k.scopes,
    ...(k.expires_at !== undefined ? { expires_at: k.expires_at } : {}),
    ...(k.sends_need_approval ? { sends_need_approval: true } : {}),
  };
}

/** Why a presented secret does not authenticate, or undefined when it does. */
export function secretProblem(k: ApiKeyRecord, now: number): 'key_revoked' | 'key_expired' | undefined {
  if (k.revoked_at !== undefined) return 'key_revoked';
  if (k.expires_at !== undefined && k.expires_at <= now) return 'key_expired';
  if (k.secret_expires_at !== undefined && k.secret_expires_at <= now) return 'key_expired';
  return undefined;
}

/** A key's state as the API shows it. */
export function keyStatus(k: Pick<ApiKeyDefinition, 'revoked_at' | 'expires_at'>, now: number) {
  if (k.revoked_at !== undefined) return 'revoked' as const;
  if (k.expires_at !== undefined && k.expires_at <= now) return 'expired' as const;
  return 'active' as const;
}

/** 400 invalid_request with reason permission_not_allowed_for_level, for the first such permission. */
export function checkPermissionsForLevel(level: KeyLevel, permissions: readonly string[]): void {
  const refused = permissions.filter(
    (p) => !(PERMISSION_LEVELS[p as Permission] as readonly KeyLevel[] | undefined)?.includes(level),
  );
  if (refused.length > 0) {
    throw permissionsNotForLevel(level, refused);
  }
}

/**
 * Reach: a platform key reaches every key; a tenant key the keys of its tenant; an identity key the
 * identity keys of its own identity. A key always reaches itself.
 */
export function reaches(caller: KeyScope, target: KeyScope): boolean {
  if (caller.key_id === target.key_id) return true;
  if (caller.level === 'platform') return true;
  if (target.tenant_id === undefined || target.tenant_id !== caller.tenant_id) return false;
  if (caller.level === 'tenant') return target.level !== 'platform';
  return target.level === 'identity' && target.identity_id === caller.identity_id;
}

/** Not wider: the target's level at most the caller's and each of its permissions held by the caller. */
export function notWider(caller: KeyScope, target: Pick<KeyScope, 'level' | 'scopes'>): boolean {
  return RANK[target.level] <= RANK[caller.level] && target.scopes.every((p) => caller.scopes.includes(p));
}

/** Whether `caller` may read, rotate or revoke `target`: reach (else 404) and not wider (else 403). */
export function checkKeyAccess(caller: KeyScope, target: KeyScope): void {
  if (!reaches(caller, target)) throw keyNotFound();
  if (caller.key_id !== target.key_id && !notWider(caller, target)) {
    throw keyTooWide(target.level);
  }
}
