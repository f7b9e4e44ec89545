import { describe, expect, it } from 'vitest';
import { localDay } from '../../functions/core/quota.ts';
import { hooksOf } from '../../functions/store/dynamodb.ts';
import { LEASE_MS } from '../../functions/store/idempotency.store.ts';
import { readDailyCounts } from '../../functions/store/quota.store.ts';
import { faults, writes } from '../support/faults.ts';
import { stackPerTest, type TestStack } from '../support/local.ts';

/**
 * The tenant's day allowance is leased to identities in blocks, so no item is written by
 * every send of a tenant (store/quota.store.ts reserveSend: count on the identity's lease; lease a
 * block from the tenant's item; grant it and count, one write). Each step is broken here on purpose:
 * a crash or a lost answer between the lease and the grant, sends of two identities racing for the
 * last block, a cancel giving its allowance back. The tenant's cap is never passed, a key never
 * makes a second email, and a stranded block only ever errs towards refusing.
 */
const stack = stackPerTest();

const to = (address: string, subject = 'Lease') => ({ to: [address], subject, text: 'the body' });
const sendAs = (s: TestStack, identityId: string, body: unknown, key: string) =>
  s.call('POST', `/v1/identities/${identityId}/messages`, { body, headers: { 'idempotency-key': key } });
const counts = (s: TestStack, identityId: string, now = Date.now()) =>
  readDailyCounts(s.deps.db, s.tenantId, identityId, localDay(now, 'UTC'));

describe('a fault between leasing a block and counting the send', () => {
  for (const [where, inject] of [
    ['a crash after the lease', (f: ReturnType<typeof faults>) => f.crashAfter(writes.lease)],
    ['a crash before the grant', (f: ReturnType<typeof faults>) => f.crashBefore(writes.grant)],
  ] as const) {
    it(`${where}: the retry leases again and sends once; the stranded unit errs towards refusing`, async () => {
      const at = { now: Date.now() };
      const s = await stack({ clock: () => at.now, seed: { policy: { daily_send_cap: 2 } } });
      const f = faults(s.deps.db);
      inject(f);
      const first = await s.send(to(s.peer.address), 'lease-crash');
      expect(first.status).toBeGreaterThanOrEqual(500);
      f.revive();
      // Leased, held by no identity: the tenant's item counts it, the identity has nothing.
      expect(await counts(s, s.agent.id, at.now)).toEqual({ tenant: 1, identity: 0, lease: 0 });
      at.now += LEASE_MS + 1;
      const retry = await s.send(to(s.peer.address), 'lease-crash');
      expect(retry.status).toBe(202);
      expect((await s.send(to(s.peer.address), 'lease-crash')).body).toEqual({
        ...retry.body,
        deduplicated: true,
      });
      await s.settle();
      expect((await s.mailbox(s.agent.id, 'outbound')).map((m) => m.id)).toEqual([retry.body.id]);
      expect(await s.mailbox(s.peer.id, 'inbound')).toHaveLength(1);
      expect(await counts(s, s.agent.id, at.now)).toEqual({ tenant: 2, identity: 1, lease: 1 });
      // One email sent of a cap of 2, and the cap is reached: the stranded unit refuses, never passes.
      const next = await sendAs(s, s.peer.id, to(s.agent.address, 'another'), 'after-stranded');
      expect(next.status).toBe(429);
      expect(next.body.error.details).toMatchObject({ cap: 'tenant', limit: 2 });
    });
  }
});

describe('a lost answer of the lease', () => {
  it('the send leases again and is accepted; the unit whose answer was lost errs towards refusing', async () => {
    const s = await stack({ seed: { policy: { daily_send_cap: 2 } } });
    const f = faults(s.deps.db);
    f.loseAnswer(writes.lease);
    const first = await s.send(to(s.peer.address), 'lost-lease');
    expect(first.status).toBe(202);
    expect(await counts(s, s.agent.id)).toEqual({ tenant: 2, identity: 1, lease: 1 });
    await s.settle();
    expect(await s.mailbox(s.peer.id, 'inbound')).toHaveLength(1);
    const next = await sendAs(s, s.peer.id, to(s.agent.address, 'another'), 'after-lost');
    expect(next.body.error).toMatchObject({
      code: 'daily_cap_reached',
      details: { cap: 'tenant', limit: 2 },
    });
  });
});

describe('sends racing for the last blocks', () => {
  it("two identities' sends in parallel: exactly the tenant's cap is accepted and sent", async () => {
    const s = await stack({ seed: { policy: { daily_send_cap: 3 } } });
    const answers = await Promise.all(
      [0, 1, 2, 3].flatMap((i) => [
        sendAs(s, s.agent.id, to(`delivered+a${i}@simulator.invalid`), `race-a${i}`),
        sendAs(s, s.peer.id, to(`delivered+p${i}@simulator.invalid`), `race-p${i}`),
      ]),
    );
    expect(answers.filter((a) => a.status === 202)).toHaveLength(3);
    for (const a of answers.filter((x) => x.status !== 202)) {
      expect(a.status).toBe(429);
      expect(a.body.error).toMatchObject({ code: 'daily_cap_reached', details: { cap: 'tenant', limit: 3 } });
    }
    await s.settle();
    const sent = [...(await s.mailbox(s.agent.id, 'outbound')), ...(await s.mailbox(s.peer.id, 'outbound'))];
    expect(sent).toHaveLength(3);
    const [a, p] = await Promise.all([counts(s, s.agent.id), counts(s, s.peer.id)]);
    // Every unit leased is held, and every unit held is a send: nothing stranded by the races.
    expect(a.tenant).toBe(3);
    expect(a.identity + p.identity).toBe(3);
    expect(a.lease + p.lease).toBe(3);
  });

  it('a large cap is leased in blocks: one tenant write for many sends of an identity', async () => {
    const s = await stack({ seed: { policy: { daily_send_cap: 10_000 } } });
    const tenantWrites: string[] = [];
    hooksOf(s.deps.db).aroundCall(async (_operation, given, next) => {
      const input = given as { Key?: { pk?: string; sk?: string }; UpdateExpression?: string };
      if (input.Key?.pk?.startsWith('T#') && input.Key.sk?.startsWith('Q#'))
        tenantWrites.push(String(input.UpdateExpression));
      return next();
    });
    for (let i = 0; i < 5; i++)
      expect((await s.send(to(`delivered+${i}@simulator.invalid`))).status).toBe(202);
    expect(tenantWrites).toHaveLength(1);
    expect(await counts(s, s.agent.id)).toEqual({ tenant: 16, identity: 5, lease: 16 });
  });
});

describe('giving a send back', () => {
  it("a cancel gives the send's allowance back to the tenant, and another identity may use it", async () => {
    // Executions held: the scheduled send stays queued (cancelable), nothing is sent.
    const s = await stack({
      seed: { policy: { daily_send_cap: 1 } },
      dispatcher: { start: async () => undefined },
    });
    const later = new Date(Date.now() + 3600_000).toISOString();
    const scheduled = await s.send({ ...to(s.peer.address), send_at: later }, 'to-cancel');
    expect(scheduled.status).toBe(202);
    const refused = await sendAs(s, s.peer.id, to(s.agent.address), 'peer-before');
    expect(refused.body.error).toMatchObject({ code: 'daily_cap_reached', details: { cap: 'tenant' } });
    const canceled = await s.call(
      'POST',
      `/v1/identities/${s.agent.id}/messages/${scheduled.body.id}/cancel`,
    );
    expect(canceled.status).toBe(200);
    expect(await counts(s, s.agent.id)).toEqual({ tenant: 0, identity: 0, lease: 0 });
    const accepted = await sendAs(s, s.peer.id, to(s.agent.address), 'peer-after');
    expect(accepted.status).toBe(202);
    expect(await counts(s, s.peer.id)).toEqual({ tenant: 1, identity: 1, lease: 1 });
  });

  it('a duplicate invocation of a key counts once and sends once', async () => {
    const s = await stack({ seed: { policy: { daily_send_cap: 5 } } });
    const answers = await Promise.all([1, 2, 3].map(() => s.send(to(s.peer.address), 'twice')));
    const ok = answers.filter((a) => a.status === 202);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    for (const a of answers.filter((x) => x.status !== 202))
      expect(a.body.error.code).toBe('request_in_progress');
    expect(new Set(ok.map((a) => a.body.id)).size).toBe(1);
    await s.settle();
    expect(await s.mailbox(s.peer.id, 'inbound')).toHaveLength(1);
    expect(await counts(s, s.agent.id)).toEqual({ tenant: 1, identity: 1, lease: 1 });
  });
});

describe('a block leased ahead (the first read found the lease used up)', () => {
  const tenantLeaseWrites = (s: TestStack) => {
    const seen: string[] = [];
    hooksOf(s.deps.db).aroundCall(async (_operation, given, next) => {
      const input = given as { Key?: { pk?: string; sk?: string }; UpdateExpression?: string };
      if (input.Key?.pk?.startsWith('T#') && input.Key.sk?.startsWith('Q#'))
        seen.push(String(input.UpdateExpression));
      return next();
    });
    return seen;
  };

  it('a send the pipeline refuses gives the block it leased ahead back', async () => {
    const s = await stack({ seed: { policy: { daily_send_cap: 3 } } });
    expect((await s.send(to(s.peer.address), 'one')).status).toBe(202);
    const seen = tenantLeaseWrites(s);
    const refused = await s.send({ ...to(s.peer.address), kind: 'marketing' }, 'refused');
    expect(refused.body.error.code).toBe('marketing_requirements_missing');
    // Leased ahead, then given back: the counts are as before the refused send.
    expect(seen).toEqual(['ADD leased :b SET #type = :type, #ttl = :ttl', 'ADD leased :minus']);
    expect(await counts(s, s.agent.id)).toEqual({ tenant: 1, identity: 1, lease: 1 });
  });

  it('a crash after leasing ahead: the retry sends once; the stranded block errs towards refusing', async () => {
    const at = { now: Date.now() };
    const s = await stack({ clock: () => at.now, seed: { policy: { daily_send_cap: 3 } } });
    expect((await s.send(to(s.peer.address), 'one')).status).toBe(202);
    await s.settle();
    const f = faults(s.deps.db);
    f.crashAfter(writes.lease);
    expect((await s.send(to(s.peer.address, 'two'), 'two')).status).toBeGreaterThanOrEqual(500);
    f.revive();
    expect(await counts(s, s.agent.id, at.now)).toEqual({ tenant: 2, identity: 1, lease: 1 });
    at.now += LEASE_MS + 1;
    const retry = await s.send(to(s.peer.address, 'two'), 'two');
    expect(retry.status).toBe(202);
    expect(await counts(s, s.agent.id, at.now)).toEqual({ tenant: 3, identity: 2, lease: 2 });
    const third = await s.send(to(s.peer.address, 'three'), 'three');
    expect(third.body.error).toMatchObject({ code: 'daily_cap_reached', details: { cap: 'tenant' } });
    await s.settle();
    expect(await s.mailbox(s.peer.id, 'inbound')).toHaveLength(2);
  });

  it("two sends racing at a block's start each keep the block they leased: the later grant lands on top, nothing is given back", async () => {
    const s = await stack({ seed: { policy: { daily_send_cap: 10_000 } } });
    const f = faults(s.deps.db);
    const leases: number[] = [];
    hooksOf(s.deps.db).aroundCall(async (operation, given, next) => {
      const input = given as { Key?: { sk?: unknown }; UpdateExpression?: string };
      if (operation === 'UpdateItem' && String(input.Key?.sk).startsWith('Q#'))
        leases.push(input.UpdateExpression?.includes('ADD leased :minus') ? -1 : 0);
      return next();
    });
    // Both find the identity's lease used up (its first sends of the day) and lease a block ahead;
    // the first grant is held until the other send is accepted, so it finds the lease moved.
    const held = f.pauseBefore(writes.grant);
    const a = s.send(to('delivered+1@simulator.invalid'), 'race-a');
    const b = s.send(to('delivered+2@simulator.invalid'), 'race-b');
    await held.reached;
    const first = await Promise.race([a, b]);
    expect(first.status).toBe(202);
    held.go();
    expect((await Promise.all([a, b])).map((r) => r.status)).toEqual([202, 202]);
    // Two blocks of 16 leased and both held by the identity: Σ lease = leased, and no write gave
    // one back to the tenant.
    expect(await counts(s, s.agent.id)).toEqual({ tenant: 32, identity: 2, lease: 32 });
    expect(leases.filter((l) => l < 0)).toEqual([]);
    // The next 30 sends count on that lease alone: the tenant's item is not written again.
    for (let i = 0; i < 30; i++)
      expect((await s.send(to(`delivered+${i + 3}@simulator.invalid`), `after-${i}`)).status).toBe(202);
    expect(await counts(s, s.agent.id)).toEqual({ tenant: 32, identity: 32, lease: 32 });
    await s.settle();
    expect(await s.mailbox(s.agent.id, 'outbound')).toHaveLength(32);
  });

  it('two sends of one identity leasing ahead at once near the cap: both counted, the cap holds', async () => {
    const s = await stack({ seed: { policy: { daily_send_cap: 3 } } });
    expect((await s.send(to(s.peer.address), 'one')).status).toBe(202);
    const answers = await Promise.all([
      s.send(to('delivered+1@simulator.invalid'), 'p1'),
      s.send(to('delivered+2@simulator.invalid'), 'p2'),
    ]);
    expect(answers.map((a) => a.status)).toEqual([202, 202]);
    expect(await counts(s, s.agent.id)).toEqual({ tenant: 3, identity: 3, lease: 3 });
    expect((await s.send(to('delivered+3@simulator.invalid'), 'p3')).status).toBe(429);
  });
});
