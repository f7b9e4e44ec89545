import { describe, expect, it } from 'vitest';
import { permissionsOf } from '../../functions/core/keys.ts';
import { seedPlatformKey, seedTestTenant } from '../../functions/local/seed.ts';
import { stackPerTest, type TestStack } from '../support/local.ts';

const stack = stackPerTest();

type Res = Awaited<ReturnType<TestStack['call']>>;

/** A response with its request id taken out: what must be byte-identical for a foreign and a missing id. */
function bytes(res: Res): string {
  const body = res.body === undefined ? undefined : structuredClone(res.body);
  if (body?.error) delete body.error.request_id;
  const { 'request-id': _r, ...headers } = res.headers;
  return JSON.stringify({ status: res.status, headers, body });
}

const MISSING = {
  tenant: 'ten_00000000000000000000000000',
  identity: 'idn_00000000000000000000000000',
  key: 'key_00000000000000000000000000',
};

async function mint(
  s: TestStack,
  key: string,
  body: Record<string, unknown>,
): Promise<{ id: string; secret: string }> {
  const res = await s.call('POST', '/v1/keys', { key, body });
  if (res.status !== 201) throw new Error(`mint answered ${res.status} ${JSON.stringify(res.body)}`);
  return { id: res.body.id, secret: res.body.secret };
}

/** Tenant A (the stack's) and tenant B, each with a tenant key and an identity key per identity. */
async function twoTenants(s: TestStack) {
  const platform = await seedPlatformKey(s.deps);
  const b = await seedTestTenant(s.deps);
  const keysOf = async (tenantId: string, tenantKey: string, identities: { id: string }[]) => {
    const tenant = await mint(s, tenantKey, {
      name: 'backend',
      level: 'tenant',
      tenant_id: tenantId,
      permissions: permissionsOf('tenant'),
    });
    const [agent, peer] = await Promise.all(
      identities.map((i) =>
        mint(s, tenantKey, {
          name: 'agent',
          level: 'identity',
          identity_id: i.id,
          permissions: permissionsOf('identity'),
        }),
      ),
    );
    return { seeded: tenantKey, tenant, agent, peer };
  };
  const A = {
    tenantId: s.tenantId,
    identities: s.identities,
    keys: await keysOf(s.tenantId, s.apiKey, s.identities),
  };
  const B = {
    tenantId: b.tenantId,
    identities: b.identities,
    keys: await keysOf(b.tenantId, b.apiKey, b.identities),
  };
  return { platform, A, B };
}

/** Everything B has, as a platform key reads it: to prove nothing changed. */
async function snapshot(s: TestStack, platformKey: string, B: Awaited<ReturnType<typeof twoTenants>>['B']) {
  const get = async (path: string, query?: Record<string, string>) =>
    (await s.call('GET', path, { key: platformKey, query })).body;
  return JSON.stringify({
    tenant: await get(`/v1/tenants/${B.tenantId}`),
    policy: await get(`/v1/tenants/${B.tenantId}/policy`),
    identities: await get(`/v1/tenants/${B.tenantId}/identities`),
    keys: await get('/v1/keys', { tenant_id: B.tenantId }),
    identity: await Promise.all(B.identities.map((i) => get(`/v1/identities/${i.id}`))),
  });
}

describe('scope of the control plane', () => {
  it('answers every new route called with another tenant’s ids exactly as with missing ones, and changes nothing', async () => {
    const s = await stack();
    const { platform, A, B } = await twoTenants(s);
    const before = await snapshot(s, platform.apiKey, B);
    const bKeyIds = [B.keys.tenant.id, B.keys.agent.id, B.keys.peer.id];

    // Each call: [method, path with B's id, the same path with a missing id, body].
    const calls = (foreign: { tenant: string; identity: string; key: string }) =>
      [
        ['GET', `/v1/tenants/${foreign.tenant}`],
        ['PATCH', `/v1/tenants/${foreign.tenant}`, { name: 'taken over' }],
        ['GET', `/v1/tenants/${foreign.tenant}/policy`],
        ['PATCH', `/v1/tenants/${foreign.tenant}/policy`, { max_recipients: 1 }],
        ['GET', `/v1/tenants/${foreign.tenant}/identities`],
        ['POST', `/v1/tenants/${foreign.tenant}/identities`, { username: 'intruder' }],
        ['GET', `/v1/identities/${foreign.identity}`],
        ['PATCH', `/v1/identities/${foreign.identity}`, { display_name: 'x' }],
        ['DELETE', `/v1/identities/${foreign.identity}`],
        ['GET', `/v1/keys/${foreign.key}`],
        ['POST', `/v1/keys/${foreign.key}/rotate`, { overlap_hours: 0 }],
        ['DELETE', `/v1/keys/${foreign.key}`],
        ['GET', `/v1/audit-events?tenant_id=${foreign.tenant}`],
        [
          'POST',
          '/v1/keys',
          { name: 'x', level: 'tenant', tenant_id: foreign.tenant, permissions: ['messages:read'] },
        ],
        [
          'POST',
          '/v1/keys',
          { name: 'x', level: 'identity', identity_id: foreign.identity, permissions: ['messages:read'] },
        ],
      ] as const;

    for (const [level, key] of Object.entries({
      tenant: A.keys.tenant.secret,
      seeded: A.keys.seeded,
      identity: A.keys.agent.secret,
    })) {
      for (const bKey of bKeyIds) {
        const foreign = calls({ tenant: B.tenantId, identity: B.identities[0].id, key: bKey });
        const missing = calls(MISSING);
        for (let i = 0; i < foreign.length; i++) {
          const [method, fPath, body] = foreign[i] as readonly [string, string, unknown?];
          const [, mPath] = missing[i] as readonly [string, string, unknown?];
          const path = fPath.split('?')[0];
          const query = Object.fromEntries(new URLSearchParams(fPath.split('?')[1] ?? ''));
          const mQuery = Object.fromEntries(new URLSearchParams(mPath.split('?')[1] ?? ''));
          const f = await s.call(method, path, { key, body, query });
          const m = await s.call(method, mPath.split('?')[0], { key, body, query: mQuery });
          expect(f.status, `${level} ${method} ${fPath}`).toBeGreaterThanOrEqual(400);
          expect(bytes(f), `${level} ${method} ${fPath}`).toBe(bytes(m));
        }
      }
      // Lists name nothing of B.
      const listed = await s.call('GET', '/v1/keys', { key, query: { limit: '100' } });
      for (const id of bKeyIds) expect(JSON.stringify(listed.body)).not.toContain(id);
      const audit = await s.call('GET', '/v1/audit-events', { key, query: { limit: '100' } });
      expect(JSON.stringify(audit.body)).not.toContain(B.tenantId);
      for (const path of ['/v1/tenants', `/v1/tenants/${A.tenantId}/identities`, '/v1/me']) {
        const res = await s.call('GET', path, {
          key,
          query: path === '/v1/me' ? undefined : { limit: '100' },
        });
        const text = JSON.stringify(res.body);
        expect(text, `${level} GET ${path}`).not.toContain(B.tenantId);
        for (const i of B.identities) expect(text, `${level} GET ${path}`).not.toContain(i.id);
      }
    }
    expect(await snapshot(s, platform.apiKey, B)).toBe(before);
    // B's keys all still work.
    for (const secret of [B.keys.tenant.secret, B.keys.agent.secret, B.keys.peer.secret]) {
      expect((await s.call('GET', '/v1/me', { key: secret })).status).toBe(200);
    }
  });

  it('never lets an identity key reach a sibling identity or its key', async () => {
    const s = await stack();
    const { A } = await twoTenants(s);
    const [agent, peer] = A.identities;
    const key = A.keys.agent.secret;
    const pairs: [string, string, string, unknown?][] = [
      ['GET', `/v1/identities/${peer.id}`, `/v1/identities/${MISSING.identity}`],
      ['PATCH', `/v1/identities/${peer.id}`, `/v1/identities/${MISSING.identity}`, { status: 'paused' }],
      ['DELETE', `/v1/identities/${peer.id}`, `/v1/identities/${MISSING.identity}`],
      ['GET', `/v1/identities/${peer.id}/messages`, `/v1/identities/${MISSING.identity}/messages`],
      ['GET', `/v1/keys/${A.keys.peer.id}`, `/v1/keys/${MISSING.key}`],
      ['POST', `/v1/keys/${A.keys.peer.id}/rotate`, `/v1/keys/${MISSING.key}/rotate`, {}],
      ['DELETE', `/v1/keys/${A.keys.peer.id}`, `/v1/keys/${MISSING.key}`],
      ['GET', `/v1/keys/${A.keys.tenant.id}`, `/v1/keys/${MISSING.key}`],
    ];
    for (const [method, sibling, missing, body] of pairs) {
      const f = await s.call(method, sibling, { key, body });
      const m = await s.call(method, missing, { key, body });
      expect(f.status, `${method} ${sibling}`).toBeGreaterThanOrEqual(400);
      expect(bytes(f), `${method} ${sibling}`).toBe(bytes(m));
    }
    const minted = await s.call('POST', '/v1/keys', {
      key,
      body: { name: 'x', level: 'identity', identity_id: peer.id, permissions: ['messages:read'] },
    });
    expect(minted.status).toBe(403);
    expect(minted.body.error.code).toBe('key_scope_exceeded');
    // Its own key list holds itself only; its own identity is still its own.
    const listed = await s.call('GET', '/v1/keys', { key });
    expect(listed.body.data.map((k: { id: string }) => k.id)).toEqual([A.keys.agent.id]);
    expect((await s.call('GET', `/v1/identities/${agent.id}`, { key })).status).toBe(200);
    expect((await s.call('GET', '/v1/me', { key: A.keys.peer.secret })).status).toBe(200);
  });

  it('refuses to mint, rotate or revoke a wider key, and a permission its level cannot hold', async () => {
    const s = await stack();
    const { A } = await twoTenants(s);
    const narrow = await mint(s, A.keys.tenant.secret, {
      name: 'narrow',
      level: 'tenant',
      tenant_id: A.tenantId,
      permissions: ['keys:manage', 'messages:read'],
    });
    const wider = await s.call('POST', '/v1/keys', {
      key: narrow.secret,
      body: { name: 'w', level: 'tenant', tenant_id: A.tenantId, permissions: ['messages:send'] },
    });
    expect([wider.status, wider.body.error.code]).toEqual([403, 'key_scope_exceeded']);
    for (const [method, path] of [
      ['GET', `/v1/keys/${A.keys.tenant.id}`],
      ['POST', `/v1/keys/${A.keys.tenant.id}/rotate`],
      ['DELETE', `/v1/keys/${A.keys.tenant.id}`],
    ]) {
      const res = await s.call(method, path, {
        key: narrow.secret,
        body: method === 'POST' ? {} : undefined,
      });
      expect([res.status, res.body.error.code], `${method} ${path}`).toEqual([403, 'key_scope_exceeded']);
    }
    const platformPerm = await s.call('POST', '/v1/keys', {
      key: A.keys.tenant.secret,
      body: { name: 'p', level: 'identity', identity_id: A.identities[0].id, permissions: ['audit:read'] },
    });
    expect(platformPerm.status).toBe(400);
    expect(platformPerm.body.error.details.reason).toBe('permission_not_allowed_for_level');
    const tenantUp = await s.call('POST', '/v1/keys', {
      key: A.keys.tenant.secret,
      body: { name: 'p', level: 'platform', permissions: ['keys:manage'] },
    });
    expect([tenantUp.status, tenantUp.body.error.code]).toEqual([403, 'key_scope_exceeded']);
    // The tenant key still works: nothing was revoked or rotated.
    expect((await s.call('GET', '/v1/me', { key: A.keys.tenant.secret })).status).toBe(200);
  });
});

describe('keys over time', () => {
  it('expires a key at expires_at (401 key_expired), keeps an old secret for the overlap, and writes last_used_at at most once a minute', async () => {
    let now = Date.now();
    const s = await stack({ clock: () => now });
    const tenantKey = s.apiKey;
    const expiring = await s.call('POST', '/v1/keys', {
      key: tenantKey,
      body: {
        name: 'short',
        level: 'identity',
        identity_id: s.agent.id,
        permissions: ['messages:read', 'keys:manage'],
        expires_at: new Date(now + 3 * 3600_000).toISOString(),
      },
    });
    expect(expiring.status).toBe(201);
    const key = expiring.body.secret as string;
    const lastUsed = async () =>
      (await s.call('GET', `/v1/keys/${expiring.body.id}`, { key: tenantKey })).body.last_used_at;

    await Promise.all(Array.from({ length: 5 }, () => s.call('GET', '/v1/me', { key })));
    const first = await lastUsed();
    expect(first).toBe(new Date(now).toISOString());
    now += 30_000;
    await s.call('GET', '/v1/me', { key });
    expect(await lastUsed()).toBe(first);
    now += 31_000;
    await s.call('GET', '/v1/me', { key });
    expect(await lastUsed()).toBe(new Date(now).toISOString());

    // Rotation with a one-hour overlap: both secrets work, then only the new one.
    const rotated = await s.call('POST', `/v1/keys/${expiring.body.id}/rotate`, {
      key,
      body: { overlap_hours: 1 },
    });
    expect(rotated.status).toBe(200);
    expect((await s.call('GET', '/v1/me', { key })).status).toBe(200);
    now += 3600_000 + 1;
    const old = await s.call('GET', '/v1/me', { key });
    expect([old.status, old.body.error.code]).toEqual([401, 'key_expired']);
    expect((await s.call('GET', '/v1/me', { key: rotated.body.secret })).status).toBe(200);
    now += 2 * 3600_000;
    const expired = await s.call('GET', '/v1/me', { key: rotated.body.secret });
    expect([expired.status, expired.body.error.code]).toEqual([401, 'key_expired']);
  });

  it('mints one key for an Idempotency-Key however many times it is sent at once, and replays it without the secret', async () => {
    const s = await stack();
    const body = { name: 'once', level: 'tenant', tenant_id: s.tenantId, permissions: ['messages:read'] };
    const answers = await Promise.all(
      Array.from({ length: 6 }, () =>
        s.call('POST', '/v1/keys', { body, headers: { 'idempotency-key': 'mint-once' } }),
      ),
    );
    const created = answers.filter((a) => a.status === 201 && a.body.secret);
    expect(created).toHaveLength(1);
    for (const a of answers.filter((a) => a.status === 201 && !a.body.secret)) {
      expect(a.body).toMatchObject({ id: created[0].body.id, secret_replayed: false });
    }
    for (const a of answers.filter((a) => a.status !== 201))
      expect(a.body.error.code).toBe('request_in_progress');
    const listed = await s.call('GET', '/v1/keys', { query: { limit: '100' } });
    expect(listed.body.data.filter((k: { name: string }) => k.name === 'once')).toHaveLength(1);
    const conflict = await s.call('POST', '/v1/keys', {
      body: { ...body, name: 'other' },
      headers: { 'idempotency-key': 'mint-once' },
    });
    expect(conflict.body.error.code).toBe('idempotency_conflict');
  });
});

describe('tenants, policy and identities', () => {
  it('merges policy patches, resets with null, and never loses one of many concurrent patches', async () => {
    const s = await stack();
    const platform = await seedPlatformKey(s.deps);
    const key = platform.apiKey;
    const path = `/v1/tenants/${s.tenantId}/policy`;
    const first = await s.call('PATCH', path, {
      key,
      body: { max_recipients: 20, abuse: { bounce_rate_pause: 0.1 } },
    });
    expect(first.status).toBe(200);
    expect(first.body.policy).toMatchObject({
      max_recipients: 20,
      abuse: { bounce_rate_pause: 0.1, complaint_rate_pause: 0.003 },
    });
    const version = first.body.policy_version as number;
    const stale = await s.call('PATCH', path, {
      key,
      body: { max_recipients: 5, policy_version: version - 1 },
    });
    expect([stale.status, stale.body.error.code]).toEqual([409, 'policy_version_conflict']);
    const fields = ['daily_send_cap', 'identity_daily_send_cap', 'max_recipients'] as const;
    const values = { daily_send_cap: 5000, identity_daily_send_cap: 50, max_recipients: 7 };
    await Promise.all(fields.map((f) => s.call('PATCH', path, { key, body: { [f]: values[f] } })));
    const after = await s.call('GET', path, { key });
    expect(after.body.policy).toMatchObject(values);
    expect(after.body.policy_version).toBe(version + 3);
    const reset = await s.call('PATCH', path, {
      key,
      body: { abuse: { bounce_rate_pause: null }, max_recipients: null },
    });
    expect(reset.body.policy).toMatchObject({ max_recipients: 10, abuse: { bounce_rate_pause: 0.05 } });
    // The send path reads what was written.
    await s.call('PATCH', path, { key, body: { max_recipients: 2 } });
    const tooMany = await s.send({
      to: ['a@simulator.invalid', 'b@simulator.invalid', 'c@simulator.invalid'],
      subject: 's',
      text: 't',
    });
    expect(tooMany.body.error.code).toBe('too_many_recipients');
  });

  it('suspends a tenant (sends get tenant_suspended), keeps its mode, and resumes it', async () => {
    const s = await stack();
    const platform = await seedPlatformKey(s.deps);
    const key = platform.apiKey;
    const mode = await s.call('PATCH', `/v1/tenants/${s.tenantId}`, { key, body: { mode: 'live' } });
    expect(mode.status).toBe(400);
    const suspended = await s.call('PATCH', `/v1/tenants/${s.tenantId}`, {
      key,
      body: { status: 'suspended' },
    });
    expect(suspended.body).toMatchObject({ status: 'suspended', mode: 'test' });
    const refused = await s.send({ to: ['a@simulator.invalid'], subject: 's', text: 't' });
    expect([refused.status, refused.body.error.code]).toEqual([403, 'tenant_suspended']);
    await s.call('PATCH', `/v1/tenants/${s.tenantId}`, { key, body: { status: 'active' } });
    expect((await s.send({ to: ['a@simulator.invalid'], subject: 's', text: 't' })).status).toBe(202);
    const audit = await s.call('GET', '/v1/audit-events', {
      key,
      query: { tenant_id: s.tenantId, limit: '100' },
    });
    expect(audit.body.data.map((a: { action: string }) => a.action)).toEqual(
      expect.arrayContaining(['tenant.suspend', 'tenant.resume']),
    );
  });

  it('creates identities idempotently by client_id, needs an owner to send, and retires the address and keys on delete', async () => {
    const s = await stack();
    const body = { username: 'ops', client_id: 'crm:ops' };
    const path = `/v1/tenants/${s.tenantId}/identities`;
    const made = await Promise.all([s.call('POST', path, { body }), s.call('POST', path, { body })]);
    expect(made.map((m) => m.status).sort()).toEqual([200, 201]);
    expect(made[0].body.id).toBe(made[1].body.id);
    const id = made[0].body.id as string;
    const other = await s.call('POST', path, { body: { ...body, display_name: 'Other' } });
    expect(other.body.error.code).toBe('client_id_conflict');
    const taken = await s.call('POST', path, { body: { username: 'ops' } });
    expect(taken.body.error.code).toBe('address_taken');
    const reserved = await s.call('POST', path, { body: { username: 'postmaster' } });
    expect(reserved.body.error.code).toBe('address_invalid');

    const send = (key?: string) =>
      s.call('POST', `/v1/identities/${id}/messages`, {
        key,
        body: { to: ['a@simulator.invalid'], subject: 's', text: 't' },
        headers: { 'idempotency-key': `k-${Math.random()}` },
      });
    expect((await send()).body.error.code).toBe('identity_owner_required');
    const patched = await s.call('PATCH', `/v1/identities/${id}`, {
      body: { owner: { name: 'Kim', email: 'kim@example.com' }, metadata: { team: 'ops' } },
    });
    expect(patched.body).toMatchObject({
      owner: { name: 'Kim', email: 'kim@example.com' },
      metadata: { team: 'ops' },
    });
    const identityKey = await mint(s, s.apiKey, {
      name: 'ops',
      level: 'identity',
      identity_id: id,
      permissions: ['messages:send'],
    });
    expect((await send(identityKey.secret)).status).toBe(202);
    const over = await s.call('PATCH', `/v1/identities/${id}`, {
      body: { send_policy: { daily_cap: 1001 } },
    });
    expect([over.status, over.body.error.details.field]).toEqual([403, 'send_policy.daily_cap']);
    const under = await s.call('PATCH', `/v1/identities/${id}`, {
      body: { send_policy: { daily_cap: 1000 } },
    });
    expect(under.body.send_policy).toEqual({ daily_cap: 1000 });
    const listed = await s.call('GET', path, { query: { client_id: 'crm:ops' } });
    expect(listed.body.data.map((i: { id: string }) => i.id)).toEqual([id]);

    const deleted = await s.call('DELETE', `/v1/identities/${id}`);
    expect(deleted.body.status).toBe('deleted');
    const refused = await send(identityKey.secret);
    expect([refused.status, refused.body.error.code]).toEqual([401, 'key_revoked']);
    expect((await s.call('GET', `/v1/identities/${id}`)).status).toBe(404);
    // The address is never given to another identity.
    const again = await s.call('POST', path, { body: { username: 'ops' } });
    expect(again.body.error.code).toBe('address_taken');
  });

  it('gives a live tenant’s identity an address only on a domain of that tenant', async () => {
    const s = await stack({ seed: { mode: 'live', domain: 'mail.live-a.example' } });
    const other = await seedTestTenant(s.deps, { mode: 'live', domain: 'mail.live-b.example' });
    const path = `/v1/tenants/${s.tenantId}/identities`;
    const none = await s.call('POST', path, { body: { username: 'sales1' } });
    expect([none.status, none.body.error.details.reason]).toEqual([422, 'domain_required']);
    const foreign = await s.call('POST', path, {
      body: { username: 'sales1', domain: 'mail.live-b.example' },
    });
    const missing = await s.call('POST', path, {
      body: { username: 'sales1', domain: 'mail.nowhere.example' },
    });
    expect(foreign.body.error.code).toBe('domain_unavailable');
    expect(foreign.body.error.details.reason).toBe(missing.body.error.details.reason);
    const own = await s.call('POST', path, { body: { username: 'sales1', domain: 'mail.live-a.example' } });
    expect([own.status, own.body.primary_address]).toEqual([201, 'sales1@mail.live-a.example']);
    expect(other.tenantId).not.toBe(s.tenantId);
  });
});
