import { describe, expect, it } from 'vitest';
import { localDay } from '../../functions/core/quota.ts';
import { consumeDeliveryEvent } from '../../functions/events/consume.ts';
import { localTransports } from '../../functions/local/transports.ts';
import { claim, claimToken, record } from '../../functions/send/attempt.ts';
import { sendAttemptTasks } from '../../functions/send/tasks.ts';
import { hooksOf } from '../../functions/store/dynamodb.ts';
import { claimSending } from '../../functions/store/messages.store.ts';
import { readDailyCounts } from '../../functions/store/quota.store.ts';
import { transportTask } from '../../functions/transports/tasks.ts';
import { faults, writes } from '../support/faults.ts';
import { listEvents } from '../support/feeds.ts';
import { ownTable, stackPerTest, submittedVia, type TestStack, testStack } from '../support/local.ts';
import { envelope, type MailFacts, ses } from '../support/ses-fixtures.ts';

/**
 * Six ways the guarantee could break (docs/design/invariants.md), each made to happen against DynamoDB Local and the local
 * state machine — an event that overtakes its Record, a lost commit answer, a transport task killed
 * after its events were applied, a Record retried after its write, an attempt killed before or after
 * the `sending` mark, and a send that crosses local midnight.
 */
const stack = stackPerTest();

const NO_WAITS = { Backoff: 0, WaitUntilSendAt: 0 };
const killed = () => Object.assign(new Error('the Lambda was killed'), { name: 'Sandbox.Timedout' });
const ids = (s: TestStack, messageId: string) => ({
  tenant_id: s.tenantId,
  identity_id: s.agent.id,
  message_id: messageId,
});
const inbound = async (s: TestStack) => (await s.mailbox(s.peer.id, 'inbound')).length;
const eventsOf = async (s: TestStack, messageId: string) =>
  (await listEvents(s.deps.db, s.tenantId, { limit: 100 })).data.filter(
    (e) => e.data.message_id === messageId,
  );
/** The task handlers the local machine runs, replaceable per test (LocalSendMachine overrides). */
const overrides = (s: TestStack) =>
  (s.machine as unknown as { overrides: Record<string, unknown> }).overrides;
/** The sweeper scans every tenant's queued messages: tests that move its clock get a table of their own. */

describe('1. an event that arrives before its Record is never reconciled onto an older uncertain sibling', () => {
  it('retries the early event while the send that owns it is in flight, then routes it to that send alone', async () => {
    let now = Date.now();
    const s = await stack({ clock: () => now, dispatcher: { start: async () => undefined } });
    const body = { to: ['timeout@simulator.invalid'], subject: 'Invoice 42', text: 'x' };
    // Y: the provider's answer was lost, Y is uncertain; the agent sends the same mail again (X).
    const y = await s.send(body, 'y-key');
    await s.machine.run(`${y.body.id}-d1`, ids(s, y.body.id));
    expect((await s.message(s.agent.id, y.body.id))?.status).toBe('uncertain');
    const x = await s.send(body, 'x-key');
    const token = claimToken('x-exec');
    expect((await claim(s.deps, { ...ids(s, x.body.id), execution_id: 'x-exec' })).outcome).toBe('claimed');
    expect((await claimSending(s.deps.db, s.agent.id, x.body.id, { token, at: now })).written).toBe(true);
    // The provider accepted X; its delivered event arrives before X's Record is written.
    const facts: MailFacts = {
      messageId: '0100018c-x-accepted',
      from: s.agent.address,
      to: body.to,
      subject: body.subject,
      at: now,
    };
    const event = envelope(ses.delivery(facts));
    expect(await consumeDeliveryEvent(s.deps, event)).toBe('retry');
    const yAfter = (await s.message(s.agent.id, y.body.id))!;
    expect(yAfter).toMatchObject({ status: 'uncertain', flags: [] });
    expect(yAfter.provider_message_id).toBeUndefined();

    // X's Record lands (a retried Record, a few seconds later); the event comes back and finds X.
    now += 20_000;
    await record(s.deps, {
      ...ids(s, x.body.id),
      claim: { token },
      result: {
        type: 'accepted',
        provider: 'ses',
        provider_message_id: facts.messageId,
        refused: [],
        deferred: [],
      },
    });
    expect(await consumeDeliveryEvent(s.deps, event)).toBe('applied');
    expect((await s.message(s.agent.id, x.body.id))?.status).toBe('delivered');
    // Well past Record's worst case, a redelivery is a duplicate of X's; Y is never touched.
    now += 10 * 60_000;
    expect(await consumeDeliveryEvent(s.deps, event)).toBe('duplicate');
    const yLast = (await s.message(s.agent.id, y.body.id))!;
    expect(yLast.status).toBe('uncertain');
    expect(yLast.provider_message_id).toBeUndefined();
    expect((await eventsOf(s, y.body.id)).map((e) => e.type)).toEqual(['message.uncertain']);
  });

  it('applies an event to neither message when two hold its provider id, and counts it as ambiguous', async () => {
    const s = await stack();
    const made = await Promise.all(
      ['a', 'b'].map((n) =>
        submittedVia(s, 'ses', {
          to: [`timeout+${n}@simulator.invalid`],
          subject: 'Shared id',
          providerMessageId: () => '0100018c-held-twice',
        }),
      ),
    );
    for (const m of made) {
      const facts: MailFacts = {
        messageId: '0100018c-held-twice',
        from: s.agent.address,
        to: (await s.message(s.agent.id, m.id))!.to.map((t) => t.address),
        subject: 'Shared id',
        at: Date.now(),
      };
      expect(await consumeDeliveryEvent(s.deps, envelope(ses.delivery(facts)))).toBe('ambiguous');
    }
    for (const m of made) expect((await s.message(s.agent.id, m.id))?.status).toBe('submitted');
    expect(s.metrics.get('delivery_ambiguous')).toBe(2);
  });
});

describe('2. a storage commit whose answer is lost keeps the MIME of the accepted send', () => {
  it('replays the 202 to the retry and delivers the stored message, never uncertain', async () => {
    const s = await stack({ dispatcher: { start: async () => undefined } });
    // The commit point, the message's conditional put: applied, its answer lost.
    const lost = faults(s.deps.db).loseAnswer(writes.message);
    const body = { to: [s.peer.address], subject: 'Lost answer', text: 'the body' };
    const first = await s.send(body, 'lost-commit');
    expect(lost.fired).toBe(true);
    expect(first.status).toBeGreaterThanOrEqual(500);
    const retry = await s.send(body, 'lost-commit');
    expect(retry.status).toBe(202);
    expect(retry.body.deduplicated).toBe(true);
    const m = (await s.message(s.agent.id, retry.body.id))!;
    expect(await s.deps.blobs.get(m.raw_key)).toBeTruthy();
    // the dispatch was lost with the answer: the execution named on the message runs it
    await s.machine.run(m.dispatch!.execution, ids(s, m.id));
    await s.settle();
    expect((await s.message(s.agent.id, m.id))?.status).toBe('delivered');
    expect(await inbound(s)).toBe(1);
  });
});

describe('3. Record(unknown) after events settled every delivery keeps what the events said', () => {
  it('leaves a delivered message delivered when the transport task dies after its event was applied, and resolve refuses it', async () => {
    const s: TestStack = await stack({
      faults: {
        afterProviderCall: async (messageId) => {
          // the provider's delivered event is applied first; then the task dies before answering
          await s.eventually(
            async () => (await s.message(s.agent.id, messageId))?.deliveries?.[0].status === 'delivered',
          );
          throw killed();
        },
      },
    });
    // A simulator recipient: its provider publishes the delivered event during the call (loopback's
    // copies are written by Record, so a loopback send whose task died has no event to settle it).
    const sent = await s.send(
      { to: ['delivered@simulator.invalid'], subject: 'Settled first', text: 'x' },
      'settled-1',
    );
    await s.settle();
    const m = (await s.message(s.agent.id, sent.body.id))!;
    expect(m.status).toBe('delivered');
    expect(m.deliveries?.map((d) => d.status)).toEqual(['delivered']);
    expect(m.claim).toBeUndefined();
    expect((await eventsOf(s, sent.body.id)).map((e) => e.type)).toEqual(['message.delivered']);
    const path = `/v1/identities/${s.agent.id}/messages/${sent.body.id}/resolve`;
    for (const outcome of ['not_sent', 'sent']) {
      const r = await s.call('POST', path, { body: { outcome } });
      expect(r.status).toBe(409);
      expect(r.body.error.code).toBe('not_uncertain');
    }
    expect((await s.message(s.agent.id, sent.body.id))?.status).toBe('delivered');
  });
});

describe('4. Record is idempotent per claim', () => {
  it('replays the back-off to a Record retried after its write: the Standard execution starts at once', async () => {
    const s = await stack({ waitTimeOverrides: NO_WAITS });
    const real = sendAttemptTasks.Record(s.deps);
    let calls = 0;
    overrides(s).Record = async (input: never) => {
      const out = await real(input);
      // the first Record wrote, then its answer was lost: the machine retries it
      if (++calls === 1) throw Object.assign(new Error('timed out'), { name: 'StoreUnavailable' });
      return out;
    };
    const sent = await s.send({ to: ['ratelimit@simulator.invalid'], subject: 'Back off', text: 'x' });
    await s.settle();
    expect(calls).toBeGreaterThanOrEqual(3);
    expect(s.machine.started).toEqual([`${sent.body.id}-d1`, `${sent.body.id}-s2`]);
    expect((await s.message(s.agent.id, sent.body.id))?.status).toBe('delivered');
  });

  it('releases the thread lock when a Record that wrote is retried after failing to release it', async () => {
    const s = await stack();
    await s.send({ to: [s.peer.address], subject: 'Thread', text: 'start' }, 'thread-start');
    await s.settle();
    const [original] = await s.mailbox(s.peer.id, 'inbound');
    let failed = 0;
    hooksOf(s.deps.db).aroundCall(async (_operation, given, next) => {
      const input = given as { UpdateExpression?: string };
      if (input.UpdateExpression === 'REMOVE lock_owner, lock_until' && failed === 0) {
        failed++;
        throw Object.assign(new Error('throttled'), { name: 'ProvisionedThroughputExceededException' });
      }
      return next();
    });
    const reply = await s.call('POST', `/v1/identities/${s.peer.id}/messages/${original.id}/reply`, {
      body: { text: 'a reply' },
      headers: { 'idempotency-key': 'reply-1' },
    });
    expect(reply.status).toBe(202);
    await s.settle();
    expect(failed).toBe(1);
    expect((await s.message(s.peer.id, reply.body.id))?.status).toBe('delivered');
    const thread = await s.deps.db.get({
      TableName: s.deps.db.table,
      Key: { pk: `I#${s.peer.id}`, sk: `TH#${original.thread_id}` },
      ConsistentRead: true,
    });
    expect(thread.Item?.lock_owner).toBeUndefined();
  });
});

describe('5. an attempt killed before its claim write is re-dispatched, one killed after it is uncertain', () => {
  /**
   * Run the message's first attempt with its Transport and Record killed, before or after the
   * transport's one write of the claim with its `sending` mark (before it, nothing is written).
   */
  async function killAttempt(s: TestStack, afterMark: boolean) {
    const o = overrides(s);
    o.TransportLoopback = async (input: {
      identity_id: string;
      message_id: string;
      claim: { token: string };
    }) => {
      if (afterMark) {
        await claimSending(s.deps.db, input.identity_id, input.message_id, {
          token: input.claim.token,
          at: s.deps.clock(),
        });
      }
      throw killed();
    };
    o.Record = async () => {
      throw killed();
    };
    const sent = await s.send({ to: [s.peer.address], subject: 'Crash', text: 'x' });
    await s.machine.idle();
    delete o.TransportLoopback;
    delete o.Record;
    const m = (await s.message(s.agent.id, sent.body.id))!;
    expect(m.status).toBe('queued');
    expect(!!m.claim?.sending).toBe(afterMark);
    if (!afterMark) expect(m.claim).toBeUndefined();
    return sent.body.id as string;
  }

  it('sweeper: an attempt killed before its claim write is re-dispatched and sent under the next name', async () => {
    let now = Date.now();
    const s = await testStack({ table: ownTable(), clock: () => now, config: { simEventDelaySeconds: 0 } });
    try {
      const id = await killAttempt(s, false);
      now += 6 * 60_000;
      const report = await s.sweep();
      expect(report).toMatchObject({ redispatched: [id], uncertain: [] });
      await s.settle();
      const m = (await s.message(s.agent.id, id))!;
      expect(m.status).toBe('delivered');
      expect(s.machine.started).toEqual([`${id}-d1`, `${id}-d2`]);
      expect(await inbound(s)).toBe(1);
    } finally {
      await s.close();
    }
  });

  it('sweeper: a claim killed after its write with the mark becomes uncertain and is never sent', async () => {
    let now = Date.now();
    const s = await testStack({ table: ownTable(), clock: () => now, config: { simEventDelaySeconds: 0 } });
    try {
      const id = await killAttempt(s, true);
      now += 6 * 60_000;
      expect(await s.sweep()).toMatchObject({ redispatched: [], uncertain: [id] });
      await s.settle();
      expect(await s.message(s.agent.id, id)).toMatchObject({
        status: 'uncertain',
        status_reason: 'transport_connection_lost',
      });
      expect(await s.sweep()).toMatchObject({ redispatched: [], uncertain: [] });
      expect(s.machine.started).toEqual([`${id}-d1`]);
      expect(await inbound(s)).toBe(0);
    } finally {
      await s.close();
    }
  });

  it('a burst of 30 sends crashing mid-attempt: after the sweeper, only those killed after the mark are uncertain, the rest delivered once', async () => {
    let now = Date.now();
    const s = await testStack({ table: ownTable(), clock: () => now, config: { simEventDelaySeconds: 0 } });
    try {
      const real = sendAttemptTasks.Transport(
        localTransports(s.deps).loopback!,
        transportTask('loopback'),
      )(s.deps);
      const fate = new Map<string, 'before' | 'after' | 'lived'>();
      let n = 0;
      const o = overrides(s);
      // the stack dies under a third of the attempts before the mark, a third after it
      o.TransportLoopback = async (input: {
        identity_id: string;
        message_id: string;
        claim: { token: string };
      }) => {
        const f = (['before', 'after', 'lived'] as const)[n++ % 3];
        fate.set(input.message_id, f);
        if (f === 'lived') return real(input as never);
        if (f === 'after') {
          await claimSending(s.deps.db, input.identity_id, input.message_id, {
            token: input.claim.token,
            at: s.deps.clock(),
          });
        }
        throw killed();
      };
      o.Record = async (input: { message_id: string }) => {
        if (fate.get(input.message_id) !== 'lived') throw killed();
        return sendAttemptTasks.Record(s.deps)(input as never);
      };
      const sent = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          s.send({ to: [s.peer.address], subject: `Burst ${i}`, text: 'x' }, `burst-${i}`),
        ),
      );
      expect(sent.map((r) => r.status)).toEqual(Array(30).fill(202));
      await s.machine.idle();
      delete o.TransportLoopback;
      delete o.Record;
      now += 6 * 60_000;
      const report = await s.sweep();
      await s.settle();
      const byFate = (f: string) => [...fate].filter(([, x]) => x === f).map(([id]) => id);
      expect(report.uncertain.sort()).toEqual(byFate('after').sort());
      expect(report.redispatched.sort()).toEqual(byFate('before').sort());
      for (const id of [...byFate('before'), ...byFate('lived')])
        expect((await s.message(s.agent.id, id))?.status).toBe('delivered');
      for (const id of byFate('after')) expect((await s.message(s.agent.id, id))?.status).toBe('uncertain');
      expect(await inbound(s)).toBe(20);
    } finally {
      await s.close();
    }
  });

  it('Claim: a later execution sends a message whose attempt died before its claim write, and records one with the mark uncertain', async () => {
    let now = Date.now();
    const s = await stack({ clock: () => now });
    const unwritten = await killAttempt(s, false);
    const after = await killAttempt(s, true);
    now += 6 * 60_000;
    // a duplicate of the first execution (Express is at-least-once) comes for each message
    const outUnwritten = (await s.machine.run(`${unwritten}-d1`, ids(s, unwritten))) as { claim: unknown };
    expect(outUnwritten.claim).toMatchObject({ outcome: 'claimed' });
    const outAfter = (await s.machine.run(`${after}-d1`, ids(s, after))) as { claim: unknown };
    expect(outAfter.claim).toEqual({ outcome: 'stop', reason: 'stale' });
    await s.settle();
    expect((await s.message(s.agent.id, unwritten))?.status).toBe('delivered');
    expect(s.machine.started.filter((n) => n.startsWith(unwritten))).toEqual([`${unwritten}-d1`]);
    expect(await s.message(s.agent.id, after)).toMatchObject({
      status: 'uncertain',
      status_reason: 'transport_connection_lost',
    });
    expect(await inbound(s)).toBe(1);
  });
});

describe('6. the daily count is given back to the day it was taken', () => {
  it('releases exactly the counted day on cancel, for sends that cross local midnight', async () => {
    const midnight = Date.UTC(2031, 2, 1);
    let t = midnight;
    // every reading of the clock moves it 1 ms: each send below starts a few ms before midnight
    const s = await stack({ clock: () => t++, dispatcher: { start: async () => undefined } });
    const days = [localDay(midnight - 1, 'UTC'), localDay(midnight, 'UTC')];
    const counts = async () =>
      Promise.all(
        days.map(async (d) => (await readDailyCounts(s.deps.db, s.tenantId, s.agent.id, d)).identity),
      );
    for (let k = 1; k <= 24; k++) {
      t = midnight - k;
      const sent = await s.send(
        { to: [s.peer.address], subject: `Midnight ${k}`, text: 'x' },
        `midnight-${k}`,
      );
      expect(sent.status).toBe(202);
      const canceled = await s.call('POST', `/v1/identities/${s.agent.id}/messages/${sent.body.id}/cancel`);
      expect(canceled.status).toBe(200);
      expect(await counts(), `send ${k} ms before midnight`).toEqual([0, 0]);
    }
  });

  it('answers daily_cap_reached with a Retry-After counted on the injected clock', async () => {
    // 23:59:00 UTC on a day far from the real one: the cap resets 60 s later on this clock
    const now = Date.UTC(2031, 5, 10, 23, 59);
    const s = await stack({ clock: () => now, seed: { policy: { identity_daily_send_cap: 1 } } });
    expect((await s.send({ to: [s.peer.address], subject: 'one', text: 'x' }, 'cap-a')).status).toBe(202);
    const refused = await s.send({ to: [s.peer.address], subject: 'two', text: 'x' }, 'cap-b');
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('daily_cap_reached');
    expect(refused.body.error.details.resets_at).toBe('2031-06-11T00:00:00.000Z');
    expect(refused.headers['retry-after']).toBe('60');
  });
});
