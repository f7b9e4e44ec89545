import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../functions/core/fingerprint.ts';
import { PERMISSIONS, permissionsOf } from '../../functions/core/keys.ts';
import { seedPlatformKey } from '../../functions/local/seed.ts';
import { listApiKeyDefinitions } from '../../functions/store/api-keys.store.ts';
import { getIdentity, getTenant, putApiKey } from '../../functions/store/directory.store.ts';
import { stackPerTest, type TestStack, tenantItems } from '../support/local.ts';

/**
 * Who may change what (docs/security.md › Who may change what), through the HTTP API on DynamoDB
 * Local: every guarded field and action × every key level, the status and code of each answer, and
 * on a refusal that nothing changed anywhere — the identity, its tenant and policy, the lists, the
 * keys, the audit log, the events.
 */
const stack = stackPerTest();
const GATED = { send_policy: { require_approval: true, require_known_recipient: true, daily_cap: 50 } };

async function mint(s: TestStack, permissions: string[], extra: Record<string, unknown> = {}) {
  const res = await s.call('POST', '/v1/keys', {
    body: { name: 'agent', level: 'identity', identity_id: s.agent.id, permissions, ...extra },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { id: res.body.id as string, secret: res.body.secret as string };
}

/** An identity key as one minted while `identities:write` was open to identity keys could be: it holds everything a tenant key holds. */
async function legacyIdentityKey(s: TestStack): Promise<string> {
  const secret = `pm_test_${randomBytes(24).toString('base64url')}`;
  await putApiKey(s.deps.db, sha256Hex(secret), {
    key_id: `key_${s.deps.newId()}`,
    level: 'identity',
    tenant_id: s.tenantId,
    identity_id: s.agent.id,
    identity_ids: [s.agent.id],
    scopes: PERMISSIONS.filter((p) => p !== 'tenants:manage'),
  });
  return secret;
}

const CALLERS = [
  'platform key',
  'tenant key',
  'identity key (default permissions)',
  'identity key (+ messages:approve)',
  'identity key (every tenant permission)',
] as const;
type CallerName = (typeof CALLERS)[number];

async function callerKey(s: TestStack, name: CallerName): Promise<string> {
  if (name === 'platform key') return (await seedPlatformKey(s.deps)).apiKey;
  if (name === 'tenant key') return s.apiKey;
  if (name === 'identity key (default permissions)') return (await mint(s, permissionsOf('identity'))).secret;
  if (name === 'identity key (+ messages:approve)')
    return (await mint(s, [...permissionsOf('identity'), 'messages:approve'])).secret;
  return legacyIdentityKey(s);
}

/** Everything a guarded change could touch, as stored. */
async function snapshot(s: TestStack) {
  const keys = (await listApiKeyDefinitions(s.deps.db, s.tenantId, { limit: 100 })).data.map(
    ({ last_used_at: _, ...k }) => k,
  );
  const tenantRows =
    (
      await s.deps.db.query({
        TableName: s.deps.db.table,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': `T#${s.tenantId}` },
      })
    ).Items ?? [];
  return {
    identity: await getIdentity(s.deps.db, s.agent.id),
    tenant: await getTenant(s.deps.db, s.tenantId),
    keys,
    rows: tenantRows.map(({ last_used_at: _, ...r }) => r),
  };
}

interface Row {
  name: string;
  /** The expected status, or the expected 403 code, per caller in CALLERS' order. */
  expect: (number | string)[];
  request: (s: TestStack, sibling: string) => [string, string, unknown?];
  /** On success, what must have changed. */
  changed?: (after: Awaited<ReturnType<typeof snapshot>>, s: TestStack) => void;
}

const PERSON = (ok: number): (number | string)[] => [
  ok,
  ok,
  'guardrail_locked',
  'guardrail_locked',
  'guardrail_locked',
];
const patch = (body: unknown) => (s: TestStack) =>
  ['PATCH', `/v1/identities/${s.agent.id}`, body] as [string, string, unknown];

/** In order: a row may rely on the rows before it (resume after pause; delete last). */
const ROWS: Row[] = [
  {
    name: 'send_policy.require_approval off',
    expect: PERSON(200),
    request: patch({
      send_policy: { require_approval: false, require_known_recipient: true, daily_cap: 50 },
    }),
    changed: (a) => expect(a.identity!.send_policy!.require_approval).toBe(false),
  },
  {
    name: 'send_policy.require_known_recipient off',
    expect: PERSON(200),
    request: patch({
      send_policy: { require_approval: true, require_known_recipient: false, daily_cap: 50 },
    }),
    changed: (a) => expect(a.identity!.send_policy!.require_known_recipient).toBe(false),
  },
  {
    name: 'send_policy.daily_cap raised',
    expect: PERSON(200),
    request: patch({ send_policy: { require_approval: true, require_known_recipient: true, daily_cap: 90 } }),
    changed: (a) => expect(a.identity!.send_policy!.daily_cap).toBe(90),
  },
  {
    name: 'send_policy cleared',
    expect: PERSON(200),
    request: patch({ send_policy: null }),
    changed: (a) => expect(a.identity!.send_policy).toBeUndefined(),
  },
  {
    name: 'owner',
    expect: PERSON(200),
    request: patch({ owner: { name: 'Someone Else', email: 'else@example.com' } }),
    changed: (a) => expect(a.identity!.owner_email).toBe('else@example.com'),
  },
  {
    name: 'display_name',
    expect: PERSON(200),
    request: patch({ display_name: 'Your Bank' }),
    changed: (a) => expect(a.identity!.display_name).toBe('Your Bank'),
  },
  {
    name: 'metadata',
    expect: PERSON(200),
    request: patch({ metadata: { team: 'other' } }),
    changed: (a) => expect(a.identity!.metadata).toEqual({ team: 'other' }),
  },
  {
    name: 'status paused',
    expect: [200, 200, 200, 200, 200],
    request: patch({ status: 'paused' }),
    changed: (a) => expect(a.identity).toMatchObject({ status: 'paused', pause_reason: 'manual' }),
  },
  {
    name: 'status active (resume)',
    expect: PERSON(200),
    request: patch({ status: 'active' }),
    changed: (a) => expect(a.identity!.status).toBe('active'),
  },
  {
    name: 'tenant policy',
    expect: PERSON(200),
    request: (s) => ['PATCH', `/v1/tenants/${s.tenantId}/policy`, { max_recipients: 3 }],
    changed: (a) => expect(a.tenant!.policy!.max_recipients).toBe(3),
  },
  {
    name: 'send list entry',
    expect: PERSON(201),
    request: (s) => ['PUT', `/v1/tenants/${s.tenantId}/lists/send/allow/@example.com`, {}],
  },
  {
    name: 'suppression',
    expect: PERSON(201),
    request: (s) => [
      'POST',
      `/v1/tenants/${s.tenantId}/suppressions`,
      { address: 'victim@example.com', reason: 'manual' },
    ],
  },
  {
    name: 'create identity',
    expect: PERSON(201),
    request: (s) => ['POST', `/v1/tenants/${s.tenantId}/identities`, { username: 'second' }],
  },
  {
    name: 'mint an identity key',
    expect: [201, 201, 201, 201, 201],
    request: (s) => [
      'POST',
      '/v1/keys',
      { name: 'n', level: 'identity', identity_id: s.agent.id, permissions: ['messages:read'] },
    ],
  },
  {
    name: 'mint an identity key holding messages:approve',
    expect: [201, 201, 'key_scope_exceeded', 'guardrail_locked', 'guardrail_locked'],
    request: (s) => [
      'POST',
      '/v1/keys',
      { name: 'n', level: 'identity', identity_id: s.agent.id, permissions: ['messages:approve'] },
    ],
  },
  {
    name: 'rotate a narrower key of the identity',
    expect: [200, 200, 200, 200, 200],
    request: (_s, sibling) => ['POST', `/v1/keys/${sibling}/rotate`, { overlap_hours: 0 }],
  },
  {
    name: 'revoke a narrower key of the identity',
    expect: [204, 204, 204, 204, 204],
    request: (_s, sibling) => ['DELETE', `/v1/keys/${sibling}`],
    changed: (a) => expect(a.keys.some((k) => k.revoked_at !== undefined)).toBe(true),
  },
  {
    name: 'delete the identity',
    expect: PERSON(200),
    request: patchless('DELETE'),
    changed: (a) => expect(a.identity!.status).toBe('deleted'),
  },
];

function patchless(method: string) {
  return (s: TestStack) => [method, `/v1/identities/${s.agent.id}`] as [string, string];
}

describe('who may change what, through the HTTP API', () => {
  it.each(CALLERS.map((c, i) => [c, i] as const))('every guarded change, %s', async (caller, column) => {
    const s = await stack({ seed: { identity: GATED } });
    const key = await callerKey(s, caller);
    const sibling = (await mint(s, ['messages:read'])).id;
    for (const row of ROWS) {
      const before = await snapshot(s);
      const [method, path, body] = row.request(s, sibling);
      const res = await s.call(method, path, { key, body });
      const want = row.expect[column];
      const got = res.status === 403 ? res.body.error.code : res.status;
      expect(got, `${caller}: ${row.name}: ${JSON.stringify(res.body)}`).toBe(want);
      if (typeof want === 'string') {
        expect(await snapshot(s), `${caller}: ${row.name} changed something`).toEqual(before);
      } else {
        row.changed?.(await snapshot(s), s);
      }
    }
  });

  it('refuses an agent’s own key switching off its approval gate, and its next send to a stranger waits', async () => {
    const s = await stack({ seed: { identity: { send_policy: { require_approval: true } } } });
    const own = await mint(s, permissionsOf('identity'));
    const attack = await s.call('PATCH', `/v1/identities/${s.agent.id}`, {
      key: own.secret,
      body: { send_policy: { require_approval: false, require_known_recipient: false } },
    });
    expect(attack.status).toBe(403);
    expect(attack.body.error).toMatchObject({
      code: 'guardrail_locked',
      details: { change: 'identity.send_policy', required_level: 'tenant', key_level: 'identity' },
    });
    expect((await getIdentity(s.deps.db, s.agent.id))!.send_policy).toEqual({ require_approval: true });

    const sent = await s.send({ to: ['stranger@simulator.invalid'], subject: 'Hi', text: 'x' }, undefined, {
      key: own.secret,
    });
    expect(sent.status).toBe(202);
    expect(sent.body.status).toBe('pending_approval');
  });

  it('audits a change of send_policy with what it was and what it became', async () => {
    const s = await stack({ seed: { identity: { send_policy: { require_approval: true } } } });
    const res = await s.call('PATCH', `/v1/identities/${s.agent.id}`, {
      body: { send_policy: { require_approval: false } },
    });
    expect(res.status).toBe(200);
    const audit = (await tenantItems(s, 'AU#')).filter((a) => a.action === 'identity.update');
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      actor: expect.stringMatching(/^key_/),
      target_id: s.agent.id,
      details: {
        fields: ['send_policy'],
        send_policy: { from: { require_approval: true }, to: { require_approval: false } },
      },
    });
  });

  it('lets an identity key with an expiry mint only keys that expire no later', async () => {
    const s = await stack();
    const until = Date.now() + 86_400_000;
    const own = await mint(s, permissionsOf('identity'), { expires_at: new Date(until).toISOString() });
    const mintAs = (expiresAt?: number) =>
      s.call('POST', '/v1/keys', {
        key: own.secret,
        body: {
          name: 'child',
          level: 'identity',
          identity_id: s.agent.id,
          permissions: ['messages:read'],
          ...(expiresAt ? { expires_at: new Date(expiresAt).toISOString() } : {}),
        },
      });
    const before = (await listApiKeyDefinitions(s.deps.db, s.tenantId, { limit: 100 })).data.length;
    for (const expiresAt of [undefined, until + 60_000]) {
      const refused = await mintAs(expiresAt);
      expect(refused.status).toBe(403);
      expect(refused.body.error).toMatchObject({
        code: 'key_scope_exceeded',
        details: { reason: 'expires_after_caller' },
      });
    }
    expect((await listApiKeyDefinitions(s.deps.db, s.tenantId, { limit: 100 })).data).toHaveLength(before);
    expect((await mintAs(until - 60_000)).status).toBe(201);
  });
});
