import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  approveRefusal,
  CHANGE_RULES,
  CHANGES,
  type Change,
  changeRefusal,
  dailyCapRefusal,
  grantablePermissions,
  identityChangesOf,
  liftRefusal,
  mintRefusal,
} from '../../functions/core/guardrails.ts';
import { PERMISSIONS, permissionsOf } from '../../functions/core/keys.ts';
import type { KeyLevel } from '../../functions/core/model.ts';

/** Who may change what (functions/core/guardrails.ts, docs/security.md › Who may change what). */

/** Every key a test of the rule needs: each level with its default set, and identity keys with more. */
const KEYS: Record<string, { level: KeyLevel; scopes: string[] }> = {
  platform: { level: 'platform', scopes: permissionsOf('platform') },
  tenant: { level: 'tenant', scopes: permissionsOf('tenant') },
  identity: { level: 'identity', scopes: permissionsOf('identity') },
  'identity + messages:approve': {
    level: 'identity',
    scopes: [...permissionsOf('identity'), 'messages:approve'],
  },
  // An identity key minted while identities:write was open to every level, holding everything a tenant key holds.
  'identity (every permission)': { level: 'identity', scopes: [...PERMISSIONS] },
};

const OK = 'ok';
const LOCKED = 'guardrail_locked';
/** The expected answer of each change for each key of KEYS, in KEYS' order. */
const TABLE: Record<Change, string[]> = {
  'identity.create': [OK, OK, LOCKED, LOCKED, LOCKED],
  'identity.send_policy': [OK, OK, LOCKED, LOCKED, LOCKED],
  'identity.owner': [OK, OK, LOCKED, LOCKED, LOCKED],
  'identity.display_name': [OK, OK, LOCKED, LOCKED, LOCKED],
  'identity.metadata': [OK, OK, LOCKED, LOCKED, LOCKED],
  'identity.receive_policy': [OK, OK, LOCKED, LOCKED, LOCKED],
  'identity.pause': [OK, OK, OK, OK, OK],
  'identity.resume': [OK, OK, LOCKED, LOCKED, LOCKED],
  'identity.delete': [OK, OK, LOCKED, LOCKED, LOCKED],
  'tenant.policy': [OK, OK, LOCKED, LOCKED, LOCKED],
  'tenant.lists': [OK, OK, LOCKED, LOCKED, LOCKED],
  'tenant.receive_lists': [OK, OK, LOCKED, LOCKED, LOCKED],
  'key.mint': [OK, OK, OK, OK, OK],
  'key.rotate': [OK, OK, OK, OK, OK],
  'key.revoke': [OK, OK, OK, OK, OK],
  // A platform key holds messages:approve by default, a tenant key too; an identity key never grants it.
  'key.grant_approval': [OK, OK, LOCKED, LOCKED, LOCKED],
  // So with messages:hold: the mail held back from an agent is a person's to read.
  'key.grant_hold': [OK, OK, LOCKED, LOCKED, LOCKED],
};

describe('who may change what', () => {
  it('has a row for every change', () => {
    expect(Object.keys(TABLE).sort()).toEqual([...CHANGES].sort());
  });

  it.each(CHANGES)('%s: each key level as the table says', (change) => {
    const got = Object.values(KEYS).map((k) => changeRefusal(k, change)?.code ?? OK);
    expect(got).toEqual(TABLE[change]);
  });

  it('names the change and the narrowest level that may make it', () => {
    expect(changeRefusal(KEYS.identity, 'identity.send_policy')).toMatchObject({
      code: 'guardrail_locked',
      message: expect.stringMatching(
        /^An identity key cannot change an identity’s send_policy .*; that needs a tenant-level key or wider\.$/,
      ),
      details: { change: 'identity.send_policy', required_level: 'tenant', key_level: 'identity' },
    });
  });

  it('asks for the permission once the level may: a tenant key without it is permission_denied', () => {
    const bare = { level: 'tenant' as const, scopes: ['messages:read'] };
    for (const change of CHANGES) {
      expect(changeRefusal(bare, change), change).toMatchObject({
        code: 'permission_denied',
        details: { required: CHANGE_RULES[change].permissions[0] },
      });
    }
    // A pause passes with either identities:write or messages:send.
    expect(changeRefusal({ level: 'identity', scopes: ['messages:send'] }, 'identity.pause')).toBeUndefined();
    expect(
      changeRefusal({ level: 'tenant', scopes: ['identities:write'] }, 'identity.pause'),
    ).toBeUndefined();
  });

  it('is the table docs/security.md shows', () => {
    const doc = readFileSync(new URL('../../docs/security.md', import.meta.url), 'utf8');
    const rows = doc.split('\n').filter((l) => l.startsWith('| `'));
    for (const change of CHANGES) {
      const row = rows.find((r) => r.split('|')[1].includes(`\`${change}\``));
      expect(row, `${change} has a row`).toBeDefined();
      const [platform, tenant, identity] = row!
        .split('|')
        .slice(2, 5)
        .map((c) => c.trim() === 'yes');
      const levels = CHANGE_RULES[change].levels as readonly string[];
      expect({ platform, tenant, identity }, change).toEqual({
        platform: levels.includes('platform'),
        tenant: levels.includes('tenant'),
        identity: levels.includes('identity'),
      });
    }
  });

  it('reads the changes a PATCH body makes, status by its direction', () => {
    expect(identityChangesOf({ send_policy: { require_approval: false } })).toEqual(['identity.send_policy']);
    expect(identityChangesOf({ send_policy: null, metadata: null })).toEqual([
      'identity.send_policy',
      'identity.metadata',
    ]);
    expect(identityChangesOf({ owner: null, display_name: 'x', status: 'paused' })).toEqual([
      'identity.owner',
      'identity.display_name',
      'identity.pause',
    ]);
    expect(identityChangesOf({ status: 'active' })).toEqual(['identity.resume']);
    expect(identityChangesOf({ receive_policy: { hold: 'none' } })).toEqual(['identity.receive_policy']);
  });
});

describe('a daily cap above the tenant ceiling', () => {
  it.each([
    ['platform', 500, undefined],
    ['tenant', 100, undefined],
    ['tenant', 101, 'scope_denied'],
    ['identity', 101, 'scope_denied'],
    ['tenant', undefined, undefined],
  ] as const)('%s key, cap %s: %s', (level, cap, code) => {
    expect(dailyCapRefusal({ level }, cap, 100)?.code).toBe(code);
  });
});

describe('what a minted key keeps of its minter', () => {
  const day = 86_400_000;
  it.each([
    [
      'identity key grants messages:approve',
      KEYS['identity + messages:approve'],
      ['messages:approve'],
      undefined,
      LOCKED,
    ],
    ['tenant key grants messages:approve', KEYS.tenant, ['messages:approve'], undefined, OK],
    ['identity key without expiry mints one without', KEYS.identity, ['messages:send'], undefined, OK],
    [
      'identity key with expiry mints one without',
      { ...KEYS.identity, expires_at: day },
      ['messages:send'],
      undefined,
      'key_scope_exceeded',
    ],
    [
      'identity key with expiry mints a later one',
      { ...KEYS.identity, expires_at: day },
      ['messages:send'],
      day + 1,
      'key_scope_exceeded',
    ],
    [
      'identity key with expiry mints one as long',
      { ...KEYS.identity, expires_at: day },
      ['messages:send'],
      day,
      OK,
    ],
    [
      'tenant key with expiry mints one without',
      { ...KEYS.tenant, expires_at: day },
      ['messages:send'],
      undefined,
      OK,
    ],
  ] as const)('%s: %s', (_name, caller, permissions, expiresAt, code) => {
    expect(mintRefusal(caller, { permissions, expires_at: expiresAt })?.code ?? OK).toBe(code);
  });

  it('keeps a draft-only key draft-only: it mints and rotates only draft-only keys, and approves nothing', () => {
    const draft = { ...KEYS.identity, sends_need_approval: true };
    expect(mintRefusal(draft, { permissions: ['messages:send'] })).toMatchObject({
      code: 'guardrail_locked',
      details: { change: 'key.sends_need_approval' },
    });
    expect(mintRefusal(draft, { permissions: ['messages:send'], sends_need_approval: true })).toBeUndefined();
    expect(liftRefusal(draft, { sends_need_approval: false })?.code).toBe('guardrail_locked');
    expect(liftRefusal(draft, { sends_need_approval: true })).toBeUndefined();
    expect(liftRefusal(KEYS.identity, {})).toBeUndefined();
    expect(approveRefusal({ ...KEYS.tenant, sends_need_approval: true })?.code).toBe('guardrail_locked');
    expect(approveRefusal(KEYS.tenant)).toBeUndefined();
  });

  it('offers only what the minter may grant', () => {
    expect(grantablePermissions(KEYS['identity + messages:approve'], 'identity')).not.toContain(
      'messages:approve',
    );
    expect(grantablePermissions(KEYS['identity (every permission)'], 'identity')).toEqual(
      permissionsOf('identity'),
    );
    expect(grantablePermissions(KEYS.tenant, 'identity')).toEqual(
      PERMISSIONS.filter(
        (p) => p === 'messages:approve' || p === 'messages:hold' || permissionsOf('identity').includes(p),
      ),
    );
    expect(grantablePermissions(KEYS.tenant, 'tenant')).toEqual(permissionsOf('tenant'));
  });
});
