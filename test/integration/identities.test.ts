import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { TENANT_PERMISSIONS } from '../../functions/api/auth.ts';
import { sha256Hex } from '../../functions/core/fingerprint.ts';
import { getIdentity, putApiKey } from '../../functions/store/directory.store.ts';
import { stackPerTest, type TestStack, tenantItems } from '../support/local.ts';

const stack = stackPerTest();

/** A key limited to one identity, with every permission a tenant key can hold. */
async function identityKey(s: TestStack, identityId: string) {
  const key = `pm_test_${randomBytes(24).toString('base64url')}`;
  await putApiKey(s.deps.db, sha256Hex(key), {
    key_id: `key_${s.deps.newId()}`,
    tenant_id: s.tenantId,
    scopes: [...TENANT_PERMISSIONS],
    identity_ids: [identityId],
  });
  return key;
}

const eventsOf = async (s: TestStack, type: string) =>
  (await tenantItems(s, 'E#')).map((i) => i.event).filter((e) => e.type === type);
const auditOf = async (s: TestStack, action: string) =>
  (await tenantItems(s, 'AU#')).filter((a) => a.action === action);

async function pauseByComplaints(s: TestStack) {
  for (let i = 1; i <= 4; i++) {
    await s.send({ to: [`complaint+${i}@simulator.invalid`], subject: 'Hi', text: 'x' });
    await s.settle();
  }
  expect(await getIdentity(s.deps.db, s.agent.id)).toMatchObject({ pause_reason: 'abuse_threshold' });
}

describe('PATCH /v1/identities/{identity_id}', () => {
  it('refuses an identity key the resume of an abuse pause, and lets a tenant key resume it', async () => {
    const s = await stack();
    await pauseByComplaints(s);
    const own = await identityKey(s, s.agent.id);

    const denied = await s.call('PATCH', `/v1/identities/${s.agent.id}`, {
      key: own,
      body: { status: 'active' },
    });
    expect(denied.status).toBe(403);
    expect(denied.body.error).toMatchObject({
      code: 'guardrail_locked',
      details: { change: 'identity.resume', required_level: 'tenant', key_level: 'identity' },
    });
    expect((await getIdentity(s.deps.db, s.agent.id))!.status).toBe('paused');
    expect(await eventsOf(s, 'identity.resumed')).toEqual([]);

    const resumed = await s.call('PATCH', `/v1/identities/${s.agent.id}`, { body: { status: 'active' } });
    expect(resumed.status).toBe(200);
    expect(resumed.body).toMatchObject({ id: s.agent.id, status: 'active', pause_reason: null });
    expect(await getIdentity(s.deps.db, s.agent.id)).toMatchObject({ status: 'active' });
    expect((await getIdentity(s.deps.db, s.agent.id))!.pause_reason).toBeUndefined();
    expect((await eventsOf(s, 'identity.resumed')).map((e) => e.data)).toEqual([{ identity_id: s.agent.id }]);
    const audit = await auditOf(s, 'identity.resume');
    expect(audit).toHaveLength(1);
    expect(audit[0].details).toEqual({ previous_pause_reason: 'abuse_threshold' });

    const next = await s.send({ to: ['delivered@simulator.invalid'], subject: 'Hi', text: 'x' });
    expect(next.status).toBe(202);
  });

  it('pauses by hand with an identity key, refuses sends, and resumes only with a tenant key', async () => {
    const s = await stack();
    const own = await identityKey(s, s.agent.id);
    const paused = await s.call('PATCH', `/v1/identities/${s.agent.id}`, {
      key: own,
      body: { status: 'paused' },
    });
    expect(paused.status).toBe(200);
    expect(paused.body).toMatchObject({ status: 'paused', pause_reason: 'manual' });
    const refused = await s.send({ to: ['delivered@simulator.invalid'], subject: 'Hi', text: 'x' });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('identity_paused');

    // The same status again changes and emits nothing.
    const again = await s.call('PATCH', `/v1/identities/${s.agent.id}`, {
      key: own,
      body: { status: 'paused' },
    });
    expect(again.status).toBe(200);
    expect(await eventsOf(s, 'identity.paused')).toHaveLength(1);

    // A manual pause may be a person's: the identity's own key never lifts it.
    const lifted = await s.call('PATCH', `/v1/identities/${s.agent.id}`, {
      key: own,
      body: { status: 'active' },
    });
    expect([lifted.status, lifted.body.error.code]).toEqual([403, 'guardrail_locked']);
    expect((await getIdentity(s.deps.db, s.agent.id))!.status).toBe('paused');
    const resumed = await s.call('PATCH', `/v1/identities/${s.agent.id}`, { body: { status: 'active' } });
    expect(resumed.status).toBe(200);
    expect((await s.send({ to: ['delivered@simulator.invalid'], subject: 'Hi', text: 'x' })).status).toBe(
      202,
    );
    expect((await auditOf(s, 'identity.pause'))[0]).toMatchObject({ actor: expect.stringMatching(/^key_/) });
  });

  it('emits one identity.resumed when ten resumes race', async () => {
    const s = await stack();
    await pauseByComplaints(s);
    const answers = await Promise.all(
      Array.from({ length: 10 }, () =>
        s.call('PATCH', `/v1/identities/${s.agent.id}`, { body: { status: 'active' } }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    expect(answers.every((a) => a.body.status === 'active')).toBe(true);
    expect(await eventsOf(s, 'identity.resumed')).toHaveLength(1);
    expect(await auditOf(s, 'identity.resume')).toHaveLength(1);
  });

  it('answers another identity as missing to an identity key, and rejects unknown fields', async () => {
    const s = await stack();
    const own = await identityKey(s, s.agent.id);
    const other = await s.call('PATCH', `/v1/identities/${s.peer.id}`, {
      key: own,
      body: { status: 'paused' },
    });
    expect(other.status).toBe(404);
    expect(other.body.error.code).toBe('identity_not_found');
    expect((await getIdentity(s.deps.db, s.peer.id))!.status).toBe('active');
    const bad = await s.call('PATCH', `/v1/identities/${s.agent.id}`, {
      body: { status: 'active', name: 'x' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('invalid_request');
    const read = await s.call('GET', `/v1/identities/${s.agent.id}`, { key: own });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ id: s.agent.id, username: 'agent', status: 'active' });
  });
});
