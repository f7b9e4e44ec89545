import { describe, expect, it } from 'vitest';
import { PmailError } from '../../functions/core/errors.ts';
import {
  checkKeyAccess,
  checkPermissionsForLevel,
  type KeyScope,
  notWider,
  PERMISSIONS,
  permissionsOf,
  reaches,
  secretProblem,
} from '../../functions/core/keys.ts';
import { mergePolicy } from '../../functions/core/tenant-policy.ts';

const key = (k: Partial<KeyScope> & Pick<KeyScope, 'key_id' | 'level'>): KeyScope => ({ scopes: [], ...k });
const platform = key({ key_id: 'key_p', level: 'platform', scopes: PERMISSIONS });
const tenantA = key({
  key_id: 'key_ta',
  level: 'tenant',
  tenant_id: 'ten_a',
  scopes: permissionsOf('tenant'),
});
const tenantB = key({
  key_id: 'key_tb',
  level: 'tenant',
  tenant_id: 'ten_b',
  scopes: permissionsOf('tenant'),
});
const agentA = key({
  key_id: 'key_ia',
  level: 'identity',
  tenant_id: 'ten_a',
  identity_id: 'idn_1',
  scopes: ['messages:send'],
});
const peerA = key({
  key_id: 'key_ip',
  level: 'identity',
  tenant_id: 'ten_a',
  identity_id: 'idn_2',
  scopes: ['messages:send'],
});

describe('key levels and permissions', () => {
  it('lets tenants:manage be held only by platform keys, and audit:read never by identity keys', () => {
    expect(permissionsOf('platform')).toEqual(PERMISSIONS);
    expect(permissionsOf('tenant')).not.toContain('tenants:manage');
    expect(permissionsOf('identity')).not.toContain('audit:read');
    expect(() => checkPermissionsForLevel('tenant', ['tenants:manage'])).toThrow(PmailError);
    expect(() => checkPermissionsForLevel('identity', ['messages:send', 'keys:manage'])).not.toThrow();
  });

  it('reaches its own tenant only, and an identity key only its own identity', () => {
    expect(reaches(platform, tenantB)).toBe(true);
    expect(reaches(tenantA, agentA)).toBe(true);
    expect(reaches(tenantA, tenantB)).toBe(false);
    expect(reaches(tenantA, platform)).toBe(false);
    expect(reaches(agentA, peerA)).toBe(false);
    expect(reaches(agentA, tenantA)).toBe(false);
    expect(reaches(agentA, agentA)).toBe(true);
  });

  it('is never narrower than a key it acts on, except on itself', () => {
    expect(notWider(tenantA, agentA)).toBe(true);
    expect(notWider(agentA, { level: 'identity', scopes: ['messages:read'] })).toBe(false);
    expect(() => checkKeyAccess(agentA, agentA)).not.toThrow();
    const narrowTenant = key({
      key_id: 'key_n',
      level: 'tenant',
      tenant_id: 'ten_a',
      scopes: ['keys:manage'],
    });
    expect(() => checkKeyAccess(narrowTenant, tenantA)).toThrow(
      expect.objectContaining({ code: 'key_scope_exceeded' }),
    );
    expect(() => checkKeyAccess(tenantB, agentA)).toThrow(expect.objectContaining({ code: 'key_not_found' }));
  });

  it('tells a revoked key from an expired one and from a secret past its overlap', () => {
    const base = { key_id: 'k', scopes: [] };
    expect(secretProblem({ ...base, revoked_at: 1, expires_at: 0 }, 5)).toBe('key_revoked');
    expect(secretProblem({ ...base, expires_at: 5 }, 5)).toBe('key_expired');
    expect(secretProblem({ ...base, secret_expires_at: 6 }, 5)).toBeUndefined();
    expect(secretProblem({ ...base, secret_expires_at: 5 }, 5)).toBe('key_expired');
  });
});

describe('policy merge', () => {
  it('merges deeply, resets a field with null and drops an emptied object', () => {
    const p = mergePolicy(
      { max_recipients: 20, abuse: { bounce_rate_pause: 0.1 }, auto_reply: { enabled: false } },
      { max_recipients: null, abuse: { complaint_rate_pause: 0.01 }, auto_reply: { enabled: null } },
    );
    expect(p).toEqual({ abuse: { bounce_rate_pause: 0.1, complaint_rate_pause: 0.01 } });
  });
});
