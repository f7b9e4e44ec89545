import { beforeAll, describe, expect, it } from 'vitest';
import { localDay } from '../../../functions/core/quota.ts';
import { type Db, isOutcomeUnknown, isTransient } from '../../../functions/store/db.ts';
import { listMessages } from '../../../functions/store/messages.store.ts';
import {
  leaseAhead,
  markWarned,
  readDailyCounts,
  releaseSend,
  reserveSend,
} from '../../../functions/store/quota.store.ts';
import { type Call, faults, writes } from '../../support/faults.ts';
import { stackPerTest } from '../../support/local.ts';

/**
 * The daily caps under lost answers (docs/lost-answers.md, count): no quota write is sent again
 * after its outcome is unknown. A count or a block leased is taken as applied and the send is not
 * accepted (its caller's retry is a new send); a give-back is taken as not applied. Each answer is
 * lost inside the SDK's retry after DynamoDB applied the write, alone and with another send of the
 * same identity or tenant written before anything could resend it. Every test checks the day's
 * counts: accepted sends never pass a cap, each is counted, and no block is granted twice.
 */
const stack = stackPerTest();
let db: Db;
beforeAll(async () => {
  db = (await stack()).deps.db;
});

const now = Date.now();
const day = localDay(now, 'UTC');
let next = 0;
/** A tenant of its own with identities `a` and `b` (fresh counter items), and its caps. */
function tenant(caps = { tenant: 2000, identity: 1000 }) {
  const id = `${now.toString(36)}q${next++}`;
  const of = (identity: string) => ({
    tenantId: `ten_${id}`,
    identityId: `idn_${id}${identity}`,
    day,
    now,
    expiresAt: now + 3 * 86_400_000,
  });
  const t = {
    tenantId: `ten_${id}`,
    caps,
    a: of('a'),
    b: of('b'),
    send: (who: ReturnType<typeof of>) => reserveSend(db, { ...who, caps }),
    release: (who: ReturnType<typeof of>) => releaseSend(db, { ...who, daily: true }),
    counts: (who: ReturnType<typeof of>) => readDailyCounts(db, who.tenantId, who.identityId, day),
  };
  return t;
}

/** The partition key a call writes, from the SDK's input or the request's raw body alike. */
const pkOf = (c: Call) => {
  const pk = ((c.input.Key ?? c.input.Item) as { pk?: unknown } | undefined)?.pk;
  return typeof pk === 'string' ? pk : String((pk as { S?: string } | undefined)?.S ?? '');
};
const of = (pk: string, match: (c: Call) => boolean) => (c: Call) => pkOf(c) === pk && match(c);
/**
 * The grant that lands on an identity's first send of the day: its item does not exist yet, so the
 * form that expects the current rate window is refused and the one that opens the window applies
 * (a fault rule takes the first request it matches, refused or not).
 */
const firstGrant = (c: Call) => writes.grant(c) && String(c.input.UpdateExpression).startsWith('SET rm');
const count = (c: Call) =>
  writes.counts(c) && String(c.input.UpdateExpression).includes('sends :one') && !writes.grant(c);
const release = (c: Call) => writes.counts(c) && String(c.input.UpdateExpression).includes('sends :minus');
const giveBack = (c: Call) => writes.counts(c) && String(c.input.UpdateExpression) === 'ADD leased :minus';
const warned = (c: Call) => c.command === 'PutItem' && c.sk.includes('#warned#');
/** `loseAnswerInRetry`'s option that runs another writer's write before anything can resend. */
// biome-ignore lint/suspicious/noThenProperty: the fault helper names this option `then`
const thenWrite = (write: () => Promise<unknown>) => ({ then: write });
const unknown = (err: unknown) => isOutcomeUnknown(err) && isTransient(err);

describe('quota.store.ts › reserveSend, its identity write quota.store.ts › countOnIdentity: the grant and the count are taken as applied', () => {
  it('the grant: never sent again; the send is not accepted; the block is the identity’s once', async () => {
    const t = tenant();
    const f = faults(db);
    const rule = f.loseAnswerInRetry(of(`I#${t.a.identityId}`, firstGrant));
    expect(unknown(await t.send(t.a).catch((e) => e))).toBe(true);
    expect(f.sent(rule)).toBe(1);
    // Applied: one block of 16 leased and granted, the send counted (one too many, never too few).
    expect(await t.counts(t.a)).toEqual({ tenant: 16, identity: 1, lease: 16 });
    // The retry is a new send: it counts on the lease the grant left, the tenant is not written.
    expect((await t.send(t.a)).ok).toBe(true);
    expect(await t.counts(t.a)).toEqual({ tenant: 16, identity: 2, lease: 16 });
  });

  it('the grant, then another send of the identity: nothing lands on top, both blocks stay single', async () => {
    const t = tenant();
    const f = faults(db);
    let theirs: Awaited<ReturnType<typeof t.send>> | undefined;
    const rule = f.loseAnswerInRetry(
      of(`I#${t.a.identityId}`, firstGrant),
      thenWrite(async () => {
        theirs = await t.send(t.a);
      }),
    );
    expect(unknown(await t.send(t.a).catch((e) => e))).toBe(true);
    expect(theirs?.ok).toBe(true);
    // Only the first send's grant: the other send counted on the lease it left.
    expect(f.sent(rule)).toBe(1);
    expect(await t.counts(t.a)).toEqual({ tenant: 16, identity: 2, lease: 16 });
  });

  it('the count: never sent again; the send is not accepted; counted once', async () => {
    const t = tenant();
    expect((await t.send(t.a)).ok).toBe(true);
    const f = faults(db);
    const rule = f.loseAnswerInRetry(of(`I#${t.a.identityId}`, count));
    expect(unknown(await t.send(t.a).catch((e) => e))).toBe(true);
    expect(f.sent(rule)).toBe(1);
    expect(await t.counts(t.a)).toEqual({ tenant: 16, identity: 2, lease: 16 });
  });

  it('the count, then another send of the identity: each counted once', async () => {
    const t = tenant();
    expect((await t.send(t.a)).ok).toBe(true);
    const f = faults(db);
    const rule = f.loseAnswerInRetry(
      of(`I#${t.a.identityId}`, count),
      thenWrite(() => t.send(t.a)),
    );
    expect(unknown(await t.send(t.a).catch((e) => e))).toBe(true);
    // The first send's count and the other send's: two requests, each once.
    expect(f.sent(rule)).toBe(2);
    expect(await t.counts(t.a)).toEqual({ tenant: 16, identity: 3, lease: 16 });
  });

  it('the identity’s cap under a lost grant: never passed, whatever is retried', async () => {
    const t = tenant({ tenant: 2000, identity: 3 });
    const f = faults(db);
    const answers: unknown[] = [];
    f.loseAnswerInRetry(
      of(`I#${t.a.identityId}`, firstGrant),
      thenWrite(async () => answers.push(await t.send(t.a))),
    );
    answers.push(await t.send(t.a).catch((e) => e));
    for (let i = 0; i < 4; i++) answers.push(await t.send(t.a));
    // The send inside the fault, the one after, then the cap: one count too many, never a send.
    expect(answers.map((a) => (a as { ok?: boolean }).ok)).toEqual([
      true,
      undefined,
      true,
      false,
      false,
      false,
    ]);
    const c = await t.counts(t.a);
    expect(c.identity).toBe(3);
    expect(c.lease).toBeLessThanOrEqual(3);
    expect(c.tenant).toBe(c.lease);
  });

  it('the grant’s answer lost where the caller sees it: the error goes up, the caps hold', async () => {
    const t = tenant({ tenant: 3, identity: 1000 });
    const f = faults(db);
    f.loseAnswer(of(`I#${t.a.identityId}`, firstGrant));
    expect(await t.send(t.a).catch((e) => e.name)).toBe('TimeoutError');
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await t.send(i % 2 ? t.a : t.b));
    expect(answers.filter((a) => a.ok)).toHaveLength(2);
    expect(answers.filter((a) => !a.ok).map((a) => !a.ok && a.refused)).toEqual(['tenant', 'tenant']);
    const [a, b] = [await t.counts(t.a), await t.counts(t.b)];
    expect(a.tenant).toBe(3);
    expect(a.lease + b.lease).toBe(3);
    expect(a.identity + b.identity).toBe(3);
  });
});

describe('quota.store.ts › leaseFromTenant: a block whose lease is unknown is leased, never used', () => {
  it('its answer lost: the send is not accepted, the block stays leased and held by no one', async () => {
    const t = tenant();
    const f = faults(db);
    const rule = f.loseAnswerInRetry(of(`T#${t.tenantId}`, writes.lease));
    expect(unknown(await t.send(t.a).catch((e) => e))).toBe(true);
    expect(f.sent(rule)).toBe(1);
    expect(await t.counts(t.a)).toEqual({ tenant: 16, identity: 0, lease: 0 });
    expect((await t.send(t.a)).ok).toBe(true);
    expect(await t.counts(t.a)).toEqual({ tenant: 32, identity: 1, lease: 16 });
  });

  it('its answer lost, then another identity’s send leases its block: each block leased once', async () => {
    const t = tenant();
    const f = faults(db);
    const rule = f.loseAnswerInRetry(
      of(`T#${t.tenantId}`, writes.lease),
      thenWrite(() => t.send(t.b)),
    );
    expect(unknown(await t.send(t.a).catch((e) => e))).toBe(true);
    // The first send's lease and the other send's, each once.
    expect(f.sent(rule)).toBe(2);
    expect(await t.counts(t.a)).toEqual({ tenant: 32, identity: 0, lease: 0 });
    expect(await t.counts(t.b)).toEqual({ tenant: 32, identity: 1, lease: 16 });
  });

  it('leased ahead, its answer lost: no block ahead, the send leases its own', async () => {
    const t = tenant();
    const f = faults(db);
    const rule = f.loseAnswerInRetry(of(`T#${t.tenantId}`, writes.lease));
    const early = leaseAhead(db, { ...t.a, caps: t.caps, seen: 0 });
    expect(await early.take()).toBeUndefined();
    expect((await reserveSend(db, { ...t.a, caps: t.caps, early })).ok).toBe(true);
    expect(f.sent(rule)).toBe(2);
    expect(await t.counts(t.a)).toEqual({ tenant: 32, identity: 1, lease: 16 });
  });
});

describe('quota.store.ts › giveBackLease: a give-back whose outcome is unknown is not sent again', () => {
  /**
   * A grant refused at the identity's cap gives its block back: the identity (cap 1) has sent, and a
   * block leased ahead on the lease it had before finds the cap reached.
   */
  const refusedGrant = async () => {
    const t = tenant({ tenant: 2000, identity: 1 });
    expect((await t.send(t.a)).ok).toBe(true);
    return t;
  };
  const sendAhead = (t: ReturnType<typeof tenant>) =>
    reserveSend(db, { ...t.a, caps: t.caps, early: leaseAhead(db, { ...t.a, caps: t.caps, seen: 0 }) });

  it('its answer lost: the refusal stands, the block went back once', async () => {
    const t = await refusedGrant();
    const f = faults(db);
    const rule = f.loseAnswerInRetry(of(`T#${t.tenantId}`, giveBack));
    expect(await sendAhead(t)).toEqual({ ok: false, refused: 'identity' });
    expect(f.sent(rule)).toBe(1);
    expect(await t.counts(t.a)).toEqual({ tenant: 1, identity: 1, lease: 1 });
  });

  it('its answer lost, then another identity leases: the allowance it holds is not given back', async () => {
    const t = await refusedGrant();
    const f = faults(db);
    const rule = f.loseAnswerInRetry(
      of(`T#${t.tenantId}`, giveBack),
      thenWrite(() => t.send(t.b)),
    );
    expect(await sendAhead(t)).toEqual({ ok: false, refused: 'identity' });
    expect(f.sent(rule)).toBe(1);
    const [a, b] = [await t.counts(t.a), await t.counts(t.b)];
    expect(b).toEqual({ tenant: 2, identity: 1, lease: 1 });
    // Σ lease ≤ leased: every unit an identity holds is still leased on the tenant's item.
    expect(a.lease + b.lease).toBe(a.tenant);
  });
});

describe('quota.store.ts › releaseSend: a give-back whose outcome is unknown is not sent again', () => {
  it('its answer lost: the error goes up, no other form is tried, the send given back once', async () => {
    const t = tenant();
    expect((await t.send(t.a)).ok).toBe(true);
    expect((await t.send(t.a)).ok).toBe(true);
    const f = faults(db);
    const rule = f.loseAnswerInRetry(of(`I#${t.a.identityId}`, release));
    expect(unknown(await t.release(t.a).catch((e) => e))).toBe(true);
    expect(f.sent(rule)).toBe(1);
    // Applied: one send given back, the lease down to the send that remains; the units it no
    // longer holds stay leased on the tenant's item (errs towards refusing).
    expect(await t.counts(t.a)).toEqual({ tenant: 16, identity: 1, lease: 1 });
  });

  it('its answer lost, then another send of the identity: that send stays counted', async () => {
    const t = tenant();
    expect((await t.send(t.a)).ok).toBe(true);
    const f = faults(db);
    let theirs: Awaited<ReturnType<typeof t.send>> | undefined;
    const rule = f.loseAnswerInRetry(
      of(`I#${t.a.identityId}`, release),
      thenWrite(async () => {
        theirs = await t.send(t.a);
      }),
    );
    expect(unknown(await t.release(t.a).catch((e) => e))).toBe(true);
    expect(theirs?.ok).toBe(true);
    expect(f.sent(rule)).toBe(1);
    // The release left nothing; the other send leased a new block and is counted.
    expect(await t.counts(t.a)).toEqual({ tenant: 32, identity: 1, lease: 16 });
  });
});

describe('quota.store.ts › markWarned: a create that recognises its own earlier send', () => {
  const warning = (t: ReturnType<typeof tenant>) =>
    markWarned(db, { tenantId: t.tenantId, day, scope: 'tenant', threshold: 80, expiresAt: t.a.expiresAt });

  it('its answer lost: the warning is still this call’s, once', async () => {
    const t = tenant();
    const f = faults(db);
    const rule = f.loseAnswerInRetry(of(`T#${t.tenantId}`, warned));
    expect(await warning(t)).toBe(true);
    expect(f.sent(rule)).toBe(2);
    expect(await warning(t)).toBe(false);
  });

  it('its answer lost, then another send marks the same warning: exactly one of them emits it', async () => {
    const t = tenant();
    const f = faults(db);
    let theirs: boolean | undefined;
    f.loseAnswerInRetry(
      of(`T#${t.tenantId}`, warned),
      thenWrite(async () => {
        theirs = await warning(t);
      }),
    );
    expect(await warning(t)).toBe(true);
    expect(theirs).toBe(false);
  });
});

describe('quota.store.ts › reserveSend end to end: a cap of 128 with the grant’s answer lost', () => {
  it('130 sends: at most 128 accepted and stored, every accepted one counted', async () => {
    // Executions held: only the submit path runs, nothing is delivered. The clock moves 0.6 s a
    // send (100 a minute: under the rate window) from noon, inside one day.
    const at = { now: Date.UTC(2031, 0, 15, 12) };
    const s = await stack({
      clock: () => at.now,
      seed: { policy: { daily_send_cap: 128 } },
      dispatcher: { start: async () => undefined },
    });
    const f = faults(s.deps.db);
    f.loseAnswerInRetry(firstGrant);
    const statuses: number[] = [];
    for (let i = 0; i < 130; i++) {
      const r = await s.send(
        { to: [`delivered+${i}@simulator.invalid`], subject: 'cap', text: 'the body' },
        `cap-${i}`,
      );
      statuses.push(r.status);
      at.now += 600;
      if (r.status === 429)
        expect(r.body.error).toMatchObject({ code: 'daily_cap_reached', details: { limit: 128 } });
    }
    const accepted = statuses.filter((x) => x === 202).length;
    expect(accepted).toBeLessThanOrEqual(128);
    expect(statuses[0]).toBe(503);
    expect(accepted).toBeGreaterThanOrEqual(126);
    expect(statuses.filter((x) => x !== 202 && x !== 429)).toEqual([503]);
    const stored = await listMessages(s.deps.db, s.agent.id, { direction: 'outbound', limit: 200 });
    expect(stored.data).toHaveLength(accepted);
    const c = await readDailyCounts(s.deps.db, s.tenantId, s.agent.id, localDay(at.now, 'UTC'));
    expect(c.tenant).toBe(128);
    expect(c.identity).toBeGreaterThanOrEqual(accepted);
    expect(c.identity).toBeLessThanOrEqual(accepted + 1);
  });
});
