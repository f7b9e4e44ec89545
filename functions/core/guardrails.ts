import {
  draftOnlyLocked,
  guardrailLocked,
  identityCapAboveCeiling,
  keyOutlivesCaller,
  type PmailError,
  permissionDenied,
} from './errors.ts';
import { type KeyScope, PERMISSION_LEVELS, type Permission } from './keys.ts';
import type { KeyLevel } from './model.ts';

/**
 * Who may change what (docs/security.md › Who may change what). The guardrails a person sets on an
 * agent — approval before a send, known recipients only, daily caps, the tenant's policy and lists,
 * who answers for the identity, how it presents itself — are changed only by a tenant-level or
 * platform key, never by the identity's own key, whatever permissions that key holds: identity keys
 * minted before `identities:write` became tenant-level still hold it, so the level decides, not the
 * permission alone. Every route that makes one of these changes asks `changeRefusal` and nothing else.
 */

const ALL: readonly KeyLevel[] = ['platform', 'tenant', 'identity'];
const PERSON: readonly KeyLevel[] = ['platform', 'tenant'];

interface ChangeRule {
  /** The key levels that may make the change. */
  levels: readonly KeyLevel[];
  /** The key must hold one of these (the first is the one a refusal names). */
  permissions: readonly Permission[];
  /** The change in words, for the refusal: "A identity key cannot {what}". */
  what: string;
}

export const CHANGE_RULES = {
  'identity.create': { levels: PERSON, permissions: ['identities:write'], what: 'create an identity' },
  'identity.send_policy': {
    levels: PERSON,
    permissions: ['identities:write'],
    what: 'change an identity’s send_policy (approval, known recipients, daily cap)',
  },
  'identity.owner': {
    levels: PERSON,
    permissions: ['identities:write'],
    what: 'change who answers for an identity (owner)',
  },
  'identity.display_name': {
    levels: PERSON,
    permissions: ['identities:write'],
    what: 'change the name an identity sends under (display_name)',
  },
  'identity.receive_policy': {
    levels: PERSON,
    permissions: ['identities:write'],
    what: 'change which received mail is held back from it (receive_policy)',
  },
  'identity.metadata': {
    levels: PERSON,
    permissions: ['identities:write'],
    what: 'change an identity’s metadata',
  },
  'identity.pause': {
    levels: ALL,
    permissions: ['identities:write', 'messages:send'],
    what: 'pause an identity',
  },
  'identity.resume': { levels: PERSON, permissions: ['identities:write'], what: 'resume a paused identity' },
  'identity.delete': { levels: PERSON, permissions: ['identities:write'], what: 'delete an identity' },
  'tenant.policy': { levels: PERSON, permissions: ['policy:write'], what: 'change the tenant policy' },
  'tenant.lists': {
    levels: PERSON,
    permissions: ['suppressions:manage'],
    what: 'read or change the tenant’s suppressions and send lists',
  },
  'tenant.receive_lists': {
    levels: PERSON,
    permissions: ['suppressions:manage'],
    what: 'read or change the tenant’s receive lists',
  },
  'key.mint': { levels: ALL, permissions: ['keys:manage'], what: 'mint a key' },
  'key.rotate': { levels: ALL, permissions: ['keys:manage'], what: 'rotate a key' },
  'key.revoke': { levels: ALL, permissions: ['keys:manage'], what: 'revoke a key' },
  'key.grant_approval': {
    levels: PERSON,
    permissions: ['messages:approve'],
    what: 'mint a key holding messages:approve',
  },
  'key.grant_hold': {
    levels: PERSON,
    permissions: ['messages:hold'],
    what: 'mint a key holding messages:hold (held mail)',
  },
} as const satisfies Record<string, ChangeRule>;

export type Change = keyof typeof CHANGE_RULES;
export const CHANGES = Object.keys(CHANGE_RULES) as Change[];

const NARROWEST: KeyLevel[] = ['identity', 'tenant', 'platform'];

/** Why this key may not make the change (guardrail_locked, else permission_denied), or undefined. */
export function changeRefusal(
  key: Pick<KeyScope, 'level' | 'scopes'>,
  change: Change,
): PmailError | undefined {
  const rule: ChangeRule = CHANGE_RULES[change];
  if (!rule.levels.includes(key.level)) {
    const required = NARROWEST.find((l) => rule.levels.includes(l))!;
    return guardrailLocked(change, rule.what, required, key.level);
  }
  if (!rule.permissions.some((p) => key.scopes.includes(p))) return permissionDenied(rule.permissions[0]);
  return undefined;
}

/** Throws the first refusal among `changes`. */
export function authorizeChanges(key: Pick<KeyScope, 'level' | 'scopes'>, changes: readonly Change[]): void {
  for (const change of changes) {
    const refusal = changeRefusal(key, change);
    if (refusal) throw refusal;
  }
}

/** The changes a `PATCH /v1/identities/{identity_id}` body makes, in the order they are checked. */
export function identityChangesOf(body: {
  status?: 'active' | 'paused';
  display_name?: unknown;
  owner?: unknown;
  send_policy?: unknown;
  metadata?: unknown;
  receive_policy?: unknown;
}): Change[] {
  const changes: Change[] = [];
  if (body.send_policy !== undefined) changes.push('identity.send_policy');
  if (body.receive_policy !== undefined) changes.push('identity.receive_policy');
  if (body.owner !== undefined) changes.push('identity.owner');
  if (body.display_name !== undefined) changes.push('identity.display_name');
  if (body.metadata !== undefined) changes.push('identity.metadata');
  if (body.status === 'paused') changes.push('identity.pause');
  if (body.status === 'active') changes.push('identity.resume');
  return changes;
}

/**
 * An identity's own `send_policy.daily_cap` above the tenant's `identity_daily_send_cap` needs a
 * platform key: a tenant cannot raise its own ceiling this way.
 */
export function dailyCapRefusal(
  key: Pick<KeyScope, 'level'>,
  dailyCap: number | undefined,
  ceiling: number,
): PmailError | undefined {
  if (dailyCap === undefined || key.level === 'platform' || dailyCap <= ceiling) return undefined;
  return identityCapAboveCeiling(ceiling);
}

/**
 * What a new key may not take beyond what "not wider" (core/keys.ts › notWider) already refuses:
 * `messages:approve` and `messages:hold` are granted by a person only (an agent never mints its own
 * approver, nor a reader of the mail held back from it), a draft-only key mints only draft-only
 * keys, and a key an identity key mints expires no later than that key (a key given to an agent for
 * a day cannot leave behind one that lasts).
 */
export function mintRefusal(
  caller: Pick<KeyScope, 'level' | 'scopes' | 'expires_at' | 'sends_need_approval'>,
  key: { permissions: readonly string[]; expires_at?: number; sends_need_approval?: boolean },
): PmailError | undefined {
  const grants: [string, Change][] = [
    ['messages:approve', 'key.grant_approval'],
    ['messages:hold', 'key.grant_hold'],
  ];
  for (const [permission, change] of grants) {
    const refusal = key.permissions.includes(permission) ? changeRefusal(caller, change) : undefined;
    if (refusal) return refusal;
  }
  const lifted = liftRefusal(caller, key);
  if (lifted) return lifted;
  const outlives =
    caller.level === 'identity' &&
    caller.expires_at !== undefined &&
    (key.expires_at === undefined || key.expires_at > caller.expires_at);
  return outlives ? keyOutlivesCaller(caller.expires_at!) : undefined;
}

/**
 * A draft-only key (`sends_need_approval`) cannot lift its own guardrail: it mints and rotates only
 * keys that are draft-only too (a key without the flag, or its new secret, would send without
 * approval), and approves no send, its own least of all. 403 guardrail_locked.
 */
export function liftRefusal(
  caller: Pick<KeyScope, 'level' | 'sends_need_approval'>,
  target: { sends_need_approval?: boolean },
): PmailError | undefined {
  if (!caller.sends_need_approval || target.sends_need_approval) return undefined;
  return draftOnlyLocked(caller.level, 'mint or rotate a key whose sends do not need approval');
}

/** A draft-only key never approves a send (the route asks for `messages:approve` first). */
export function approveRefusal(key: Pick<KeyScope, 'level' | 'sends_need_approval'>): PmailError | undefined {
  return key.sends_need_approval ? draftOnlyLocked(key.level, 'approve a send') : undefined;
}

/** The permissions a key may put on a new key of `level` (what the console offers). */
export function grantablePermissions(
  caller: Pick<KeyScope, 'level' | 'scopes'>,
  level: KeyLevel,
): Permission[] {
  return (Object.keys(PERMISSION_LEVELS) as Permission[]).filter(
    (p) =>
      caller.scopes.includes(p) &&
      (PERMISSION_LEVELS[p] as readonly KeyLevel[]).includes(level) &&
      !(p === 'messages:approve' && changeRefusal(caller, 'key.grant_approval')) &&
      !(p === 'messages:hold' && changeRefusal(caller, 'key.grant_hold')),
  );
}
