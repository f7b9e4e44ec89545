import { describe, expect, it } from 'vitest';
import {
  createOldTable,
  describeTable,
  ownTable,
  type TestStack,
  testStack,
  withOwnDynamoDb,
} from '../support/local.ts';

/**
 * The two send machines (docs/architecture.md › The send machines) run locally (functions/local/state-machine.ts): back-off in the
 * Standard machine with its 24-hour end, scheduled sends, cancel, resolve and the sweeper. The
 * Standard machine's waits take no real time (`waitTimeOverrides`); where the 24-hour line matters,
 * the injected clock moves instead.
 */
const NO_WAITS = { Backoff: 0, WaitUntilSendAt: 0 };

async function outbox(s: TestStack, type: string) {
  const out = await s.deps.db.query({
    TableName: s.deps.db.table,
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :e)',
    ExpressionAttributeValues: { ':pk': `T#${s.tenantId}`, ':e': 'E#' },
  });
  return (out.Items ?? []).map((i) => i.event).filter((e) => e.type === type);
}

describe('back-off in the Standard send machine', () => {
  it('backs off a rate-limited send and delivers it on the retry, under the execution named on the message', async () => {
    const s = await testStack({ waitTimeOverrides: NO_WAITS, config: { simEventDelaySeconds: 0 } });
    try {
      const sent = await s.send({ to: ['ratelimit@simulator.invalid'], subject: 'R', text: 'x' });
      expect(sent.status).toBe(202);
      await s.settle();
      const m = await s.message(s.agent.id, sent.body.id);
      expect(m?.status).toBe('delivered');
      expect(m?.provider_message_id).toBeTruthy();
      expect(m?.backoff).toBeUndefined();
      // the Express attempt, then the Standard execution Record named on the message
      expect(s.machine.started).toEqual([`${sent.body.id}-d1`, `${sent.body.id}-s2`]);
    } finally {
      await s.close();
    }
  });

  it('ends a send that is rate-limited forever as failed (quota_exhausted) at the 24-hour line, with zero accepts', async () => {
    let t = Date.UTC(2026, 0, 5, 9);
    // every reading of the clock moves it 10 minutes: 24 hours pass in a few dozen attempts
    const s = await testStack({
      waitTimeOverrides: NO_WAITS,
      clock: () => {
        t += 10 * 60_000;
        return t;
      },
    });
    try {
      const sent = await s.send({ to: ['ratelimit-always@simulator.invalid'], subject: 'R', text: 'x' });
      expect(sent.status).toBe(202);
      await s.settle();
      const m = await s.message(s.agent.id, sent.body.id);
      expect(m).toMatchObject({ status: 'failed', status_reason: 'quota_exhausted' });
      expect(m?.deliveries?.map((d) => d.status)).toEqual(['failed']);
      expect(m?.provider_message_id).toBeUndefined();
      expect(m?.backoff).toBeUndefined();
      expect(m?.dispatch).toBeUndefined();
      // The clock moves 10 minutes per reading and one attempt reads it a few times, so the end
      // lands within an hour of the 24-hour line, on whichever side the last retry fell.
      expect(m!.updated_at - m!.created_at).toBeGreaterThanOrEqual(23 * 3600_000);
      expect(m!.updated_at - m!.created_at).toBeLessThanOrEqual(25 * 3600_000);
      const failed = await outbox(s, 'message.failed');
      expect(failed.map((e) => e.data)).toEqual([
        {
          message_id: sent.body.id,
          identity_id: s.agent.id,
          thread_id: m!.thread_id,
          reason: 'quota_exhausted',
        },
      ]);
      // one Standard execution looped through every retry
      expect(s.machine.started).toEqual([`${sent.body.id}-d1`, `${sent.body.id}-s2`]);
    } finally {
      await s.close();
    }
  });
});

/** What one sweeper pass did to this message (the table is shared with other tests' tenants). */
async function sweepOf(s: TestStack, messageId: string) {
  const r = await s.sweep();
  return {
    redispatched: r.redispatched.includes(messageId),
    uncertain: r.uncertain.includes(messageId),
    running: r.running.includes(messageId),
  };
}

const inbound = async (s: TestStack) => (await s.mailbox(s.peer.id, 'inbound')).length;

async function audit(s: TestStack) {
  const out = await s.deps.db.query({
    TableName: s.deps.db.table,
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :a)',
    ExpressionAttributeValues: { ':pk': `T#${s.tenantId}`, ':a': 'AU#' },
  });
  // The entries `npm start` seeds (tenant, identities, key) are not what these tests look at.
  return (out.Items ?? []).filter((a) => a.actor !== 'local-seed');
}

describe('scheduled sends', () => {
  it('queues a send with send_at in the Standard machine, which sends it once the wait ends', async () => {
    const s = await testStack({ waitTimeOverrides: NO_WAITS, config: { simEventDelaySeconds: 0 } });
    try {
      const at = new Date(Date.now() + 3600_000).toISOString();
      const sent = await s.send({ to: [s.peer.address], subject: 'Later', text: 'x', send_at: at });
      expect(sent.status).toBe(202);
      expect(sent.body).toMatchObject({ status: 'queued', send_at: at });
      expect(s.machine.started).toEqual([`${sent.body.id}-s1`]);
      await s.settle();
      expect((await s.message(s.agent.id, sent.body.id))?.status).toBe('delivered');
      expect(await inbound(s)).toBe(1);
    } finally {
      await s.close();
    }
  });

  it('refuses a send_at in the past or more than 30 days ahead', async () => {
    const s = await testStack();
    try {
      for (const at of [new Date(Date.now() - 1000), new Date(Date.now() + 31 * 24 * 3600_000)]) {
        const r = await s.send({ to: [s.peer.address], subject: 'x', text: 'x', send_at: at.toISOString() });
        expect(r.status).toBe(400);
        expect(r.body.error.code).toBe('invalid_request');
        expect(r.body.error.details.errors[0].path).toBe('send_at');
      }
      const r = await s.send({ to: [s.peer.address], subject: 'x', text: 'x', send_at: 'tomorrow' });
      expect(r.status).toBe(400);
    } finally {
      await s.close();
    }
  });

  it('cancels a scheduled send before it fires: it never reaches the transport, and the lock and day count come back', async () => {
    const held: [string, unknown, unknown][] = [];
    const s = await testStack({
      waitTimeOverrides: NO_WAITS,
      dispatcher: { start: async (name, input, machine) => void held.push([name, input, machine]) },
    });
    let transports = 0;
    try {
      const at = new Date(Date.now() + 3600_000).toISOString();
      const sent = await s.send({ to: [s.peer.address], subject: 'Later', text: 'x', send_at: at });
      const path = `/v1/identities/${s.agent.id}/messages/${sent.body.id}/cancel`;
      const canceled = await s.call('POST', path);
      expect(canceled.status).toBe(200);
      expect(canceled.body).toMatchObject({ id: sent.body.id, status: 'canceled' });
      const m = await s.message(s.agent.id, sent.body.id);
      expect(m?.dispatch).toBeUndefined();
      expect(m?.holds_lock).toBeUndefined();
      // the execution fires after all: Claim finds the message canceled and stops
      const original = s.deps.dispatcher;
      s.deps.dispatcher = s.machine;
      const wrapped = s.machine as unknown as { overrides: Record<string, unknown> };
      wrapped.overrides.Transport = async () => {
        transports++;
        throw new Error('must not be called');
      };
      const [name, input, machine] = held[0];
      await s.machine.start(name, input as never, machine as never);
      await s.settle();
      s.deps.dispatcher = original;
      expect(transports).toBe(0);
      expect((await s.message(s.agent.id, sent.body.id))?.status).toBe('canceled');
      expect(await inbound(s)).toBe(0);
      expect((await outbox(s, 'message.canceled')).map((e) => e.data.message_id)).toEqual([sent.body.id]);
      expect((await audit(s)).map((a) => [a.action, a.message_id])).toEqual([
        ['message.cancel', sent.body.id],
      ]);
      // a second cancel, or a cancel of a sent message, is not_cancelable
      const again = await s.call('POST', path);
      expect(again.status).toBe(409);
      expect(again.body.error.code).toBe('not_cancelable');
    } finally {
      await s.close();
    }
  });

  it('gives the daily count back on cancel', async () => {
    const s = await testStack({ dispatcher: { start: async () => undefined } });
    try {
      const { readDailyCounts } = await import('../../functions/store/quota.store.ts');
      const { localDay } = await import('../../functions/core/quota.ts');
      const day = localDay(Date.now(), 'UTC');
      const before = await readDailyCounts(s.deps.db, s.tenantId, s.agent.id, day);
      const sent = await s.send({ to: [s.peer.address], subject: 'x', text: 'x' });
      expect((await readDailyCounts(s.deps.db, s.tenantId, s.agent.id, day)).identity).toBe(
        before.identity + 1,
      );
      const r = await s.call('POST', `/v1/identities/${s.agent.id}/messages/${sent.body.id}/cancel`);
      expect(r.status).toBe(200);
      expect(await readDailyCounts(s.deps.db, s.tenantId, s.agent.id, day)).toEqual(before);
    } finally {
      await s.close();
    }
  });

  it('does not cancel a message that was sent', async () => {
    const s = await testStack({ config: { simEventDelaySeconds: 0 } });
    try {
      const sent = await s.send({ to: [s.peer.address], subject: 'x', text: 'x' });
      await s.settle();
      const r = await s.call('POST', `/v1/identities/${s.agent.id}/messages/${sent.body.id}/cancel`);
      expect(r.status).toBe(409);
      expect(r.body.error.code).toBe('not_cancelable');
    } finally {
      await s.close();
    }
  });
});

describe('resolve', () => {
  it('refuses a message that is not uncertain', async () => {
    const s = await testStack({ dispatcher: { start: async () => undefined } });
    try {
      const sent = await s.send({ to: [s.peer.address], subject: 'x', text: 'x' });
      const r = await s.call('POST', `/v1/identities/${s.agent.id}/messages/${sent.body.id}/resolve`, {
        body: { outcome: 'sent' },
      });
      expect(r.status).toBe(409);
      expect(r.body.error.code).toBe('not_uncertain');
    } finally {
      await s.close();
    }
  });

  it('resolves sent: the message and its deliveries submitted, message.sent with no provider id, an audit entry', async () => {
    const s = await testStack();
    try {
      const sent = await s.send({ to: ['timeout@simulator.invalid'], subject: 'T', text: 'x' });
      await s.settle();
      const r = await s.call('POST', `/v1/identities/${s.agent.id}/messages/${sent.body.id}/resolve`, {
        body: { outcome: 'sent' },
      });
      expect(r.status).toBe(200);
      expect(r.body.status).toBe('submitted');
      expect(r.body.deliveries.map((d: { status: string }) => d.status)).toEqual(['submitted']);
      const events = await outbox(s, 'message.sent');
      expect(events.map((e) => e.data)).toEqual([
        expect.objectContaining({ message_id: sent.body.id, provider_message_id: null }),
      ]);
      const entries = await audit(s);
      expect(entries.map((a) => [a.action, a.details])).toEqual([['message.resolve', { outcome: 'sent' }]]);
    } finally {
      await s.close();
    }
  });

  it('after not_sent, replays the resolve for its key, replays the original 202 for the old send key, and sends again under a new key', async () => {
    const s = await testStack({ config: { simEventDelaySeconds: 0 } });
    try {
      const body = { to: ['timeout@simulator.invalid'], subject: 'T', text: 'x' };
      const first = await s.send(body, 'send-key-1');
      await s.settle();
      const path = `/v1/identities/${s.agent.id}/messages/${first.body.id}/resolve`;
      const headers = { 'idempotency-key': 'resolve-1' };
      const resolved = await s.call('POST', path, { body: { outcome: 'not_sent' }, headers });
      expect(resolved.status).toBe(200);
      expect(resolved.body).toMatchObject({ status: 'failed', status_reason: 'resolved_not_sent' });
      const replayed = await s.call('POST', path, { body: { outcome: 'not_sent' }, headers });
      expect(replayed.status).toBe(200);
      expect(replayed.headers['idempotent-replayed']).toBe('true');
      expect(replayed.body).toEqual(resolved.body);
      const conflict = await s.call('POST', path, { body: { outcome: 'sent' }, headers });
      expect(conflict.body.error.code).toBe('idempotency_conflict');
      expect((await outbox(s, 'message.failed')).map((e) => e.data.reason)).toEqual(['resolved_not_sent']);

      const old = await s.send(body, 'send-key-1');
      expect(old.status).toBe(202);
      expect(old.body).toMatchObject({ id: first.body.id, status: 'queued', deduplicated: true });
      const again = await s.send({ ...body, to: [s.peer.address] }, 'send-key-2');
      expect(again.status).toBe(202);
      expect(again.body.id).not.toBe(first.body.id);
      await s.settle();
      expect(await inbound(s)).toBe(1);
    } finally {
      await s.close();
    }
  });
});

/**
 * The sweeper reads every tenant's queued messages, and these tests move its clock: each runs on a
 * table of its own, so it never touches what other test files leave queued.
 */

describe('the sweeper', () => {
  it('delivers, exactly once, a send whose dispatch was lost between commit and StartExecution', async () => {
    let now = Date.now();
    let crash = true;
    const s = await testStack({ table: ownTable(), clock: () => now, config: { simEventDelaySeconds: 0 } });
    const machine = s.machine;
    s.deps.dispatcher = {
      start: async (name, input, kind) => {
        if (crash) throw new Error('crashed before StartExecution');
        return machine.start(name, input, kind);
      },
      isRunning: (name) => machine.isRunning(name),
    };
    try {
      const sent = await s.send({ to: [s.peer.address], subject: 'Lost', text: 'x' });
      expect(sent.status).toBe(202);
      crash = false;
      expect(await sweepOf(s, sent.body.id)).toMatchObject({ redispatched: false }); // not 5 minutes old yet
      now += 6 * 60_000;
      expect(await sweepOf(s, sent.body.id)).toMatchObject({ redispatched: true });
      expect(await sweepOf(s, sent.body.id)).toMatchObject({ redispatched: false });
      await s.settle();
      expect(await sweepOf(s, sent.body.id)).toMatchObject({ redispatched: false, uncertain: false });
      const m = await s.message(s.agent.id, sent.body.id);
      expect(m?.status).toBe('delivered');
      expect(m?.dispatch).toBeUndefined();
      expect(machine.started).toEqual([`${sent.body.id}-d2`]);
      expect(await inbound(s)).toBe(1);
    } finally {
      await s.close();
    }
  });

  it('makes a claim left by an attempt killed after the sending mark uncertain, and never retries it', async () => {
    let now = Date.now();
    const s = await testStack({
      table: ownTable(),
      clock: () => now,
      dispatcher: { start: async () => undefined },
    });
    try {
      const sent = await s.send({ to: [s.peer.address], subject: 'Killed', text: 'x' });
      const { claim } = await import('../../functions/send/attempt.ts');
      const input = { tenant_id: s.tenantId, identity_id: s.agent.id, message_id: sent.body.id };
      expect((await claim(s.deps, { ...input, execution_id: 'killed' })).outcome).toBe('claimed');
      const { claimToken } = await import('../../functions/send/attempt.ts');
      const { claimSending } = await import('../../functions/store/messages.store.ts');
      const written = await claimSending(s.deps.db, s.agent.id, sent.body.id, {
        token: claimToken('killed'),
        at: now,
      });
      expect(written.written).toBe(true);
      // the attempt dies here, after its claim and sending mark; nothing ever comes back
      now += 4 * 60_000;
      expect(await sweepOf(s, sent.body.id)).toMatchObject({ uncertain: false, redispatched: false });
      now += 2 * 60_000;
      expect(await sweepOf(s, sent.body.id)).toMatchObject({ uncertain: true, redispatched: false });
      const m = await s.message(s.agent.id, sent.body.id);
      expect(m).toMatchObject({ status: 'uncertain', status_reason: 'transport_connection_lost' });
      expect(m?.claim).toBeUndefined();
      now += 60 * 60_000;
      expect(await sweepOf(s, sent.body.id)).toMatchObject({ uncertain: false, redispatched: false });
      expect(await inbound(s)).toBe(0);
    } finally {
      await s.close();
    }
  });

  it('leaves alone a message whose named Standard execution still runs', async () => {
    let now = Date.now();
    const s = await testStack({
      table: ownTable(),
      clock: () => now,
      dispatcher: { start: async () => undefined },
    });
    try {
      const at = new Date(now + 60_000).toISOString();
      const sent = await s.send({ to: [s.peer.address], subject: 'x', text: 'x', send_at: at });
      s.deps.dispatcher = { start: async () => undefined, isRunning: async () => true };
      now += 10 * 60_000;
      expect(await sweepOf(s, sent.body.id)).toMatchObject({ running: true, redispatched: false });
      s.deps.dispatcher = { start: async () => undefined, isRunning: async () => false };
      expect(await sweepOf(s, sent.body.id)).toMatchObject({ running: false, redispatched: true });
      expect((await s.message(s.agent.id, sent.body.id))?.dispatch?.execution).toBe(`${sent.body.id}-d2`);
    } finally {
      await s.close();
    }
  });
});

describe('duplicate executions', () => {
  it('make one provider call when the Express and a Standard execution run for one message at once', async () => {
    const s = await testStack({
      waitTimeOverrides: NO_WAITS,
      config: { simEventDelaySeconds: 0 },
      dispatcher: { start: async () => undefined },
    });
    try {
      const sent = await s.send({ to: [s.peer.address], subject: 'Dup', text: 'x' });
      const ids = { tenant_id: s.tenantId, identity_id: s.agent.id, message_id: sent.body.id };
      await Promise.all([
        s.machine.start(`${sent.body.id}-d1`, ids),
        s.machine.start(`${sent.body.id}-s2`, ids, 'send'),
        s.machine.start(`${sent.body.id}-d1`, ids),
      ]);
      await s.settle();
      expect(await inbound(s)).toBe(1);
      expect((await s.message(s.agent.id, sent.body.id))?.status).toBe('delivered');
    } finally {
      await s.close();
    }
  });

  it('cancels at claim time, as system, a message of an identity paused after submit', async () => {
    const s = await testStack({ dispatcher: { start: async () => undefined } });
    try {
      const sent = await s.send({ to: [s.peer.address], subject: 'x', text: 'x' });
      await s.deps.db.update({
        TableName: s.deps.db.table,
        Key: { pk: `I#${s.agent.id}`, sk: 'I' },
        UpdateExpression: 'SET #s = :p',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: { ':p': 'paused' },
      });
      const out = await s.machine.run(`${sent.body.id}-d1`, {
        tenant_id: s.tenantId,
        identity_id: s.agent.id,
        message_id: sent.body.id,
      });
      expect(out).toMatchObject({ claim: { outcome: 'stop', reason: 'canceled' } });
      expect((await s.message(s.agent.id, sent.body.id))?.status).toBe('canceled');
      expect((await audit(s)).map((a) => [a.action, a.actor, a.details])).toEqual([
        ['message.cancel', 'system', { reason: 'identity_paused' }],
      ]);
      expect(await inbound(s)).toBe(0);
    } finally {
      await s.close();
    }
  });
});

describe('the local table', () => {
  it('gains the dispatch index when a table kept from an older version lacks it', {
    timeout: 120_000,
  }, async () => {
    const { ensureTable } = await import('../../functions/local/table.ts');
    await withOwnDynamoDb(async (db) => {
      await createOldTable(db);
      await ensureTable(db);
      const out = await describeTable(db);
      expect(out.Table?.GlobalSecondaryIndexes?.map((i) => i.IndexName).sort()).toEqual(['gsi1', 'gsi2']);
    });
  });
});
