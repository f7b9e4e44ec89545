import { describe, expect, it } from 'vitest';
import { localTransports } from '../../../functions/local/transports.ts';
import { claim, claimToken, record } from '../../../functions/send/attempt.ts';
import { sendAttemptTasks } from '../../../functions/send/tasks.ts';
import { runTransport } from '../../../functions/send/transport-task.ts';
import { hooksOf } from '../../../functions/store/dynamodb.ts';
import { claimSending, mutateMessage } from '../../../functions/store/messages.store.ts';
import { WINDOW_WRITERS } from '../../../functions/store/outcomes.store.ts';
import { transportTask } from '../../../functions/transports/tasks.ts';
import type { Transport } from '../../../functions/transports/transport.ts';
import { attemptWrites, type Call, faults } from '../../support/faults.ts';
import { listEvents } from '../../support/feeds.ts';
import { stackPerTest, type TestStack, tenantItems } from '../../support/local.ts';

/**
 * The send attempt's conditional writes when DynamoDB applies one and its answer is lost
 * (docs/lost-answers.md): inside the SDK's retry (`loseAnswerInRetry`, with `then` running another
 * writer's write before the error goes up) and outside it (`loseAnswer`, the caller sees the
 * error). Each must end as if the answer had come: the provider called exactly once, nothing
 * uncertain that was never sent, no event or count twice.
 */
const stack = stackPerTest({ ownTable: true });

const overrides = (s: TestStack) =>
  (s.machine as unknown as { overrides: Record<string, unknown> }).overrides;

/** The stack's loopback transport task, its adapter counting the provider calls. */
function countLoopback(s: TestStack) {
  const inner = localTransports(s.deps).loopback!;
  const spy = counted(inner);
  overrides(s).TransportLoopback = (input: never) =>
    sendAttemptTasks.Transport(spy, transportTask('loopback'))(s.deps)(input);
  return spy;
}

/** Count the Record tasks the machine runs (each still runs the real Record). */
function countRecords(s: TestStack) {
  const runs = { n: 0 };
  overrides(s).Record = (input: never) => {
    runs.n++;
    return sendAttemptTasks.Record(s.deps)(input);
  };
  return runs;
}

function counted(inner: Transport): Transport & { calls: number } {
  const spy = {
    provider: inner.provider,
    calls: 0,
    send: (req: Parameters<Transport['send']>[0]) => {
      spy.calls++;
      return inner.send(req);
    },
  };
  return spy;
}

const audits = async (s: TestStack, action: string, messageId: string) =>
  (await tenantItems(s, 'AU#')).filter((a) => a.action === action && a.message_id === messageId);

const inboundCount = async (s: TestStack) => (await s.mailbox(s.peer.id, 'inbound')).length;

async function eventTypes(s: TestStack, messageId: string): Promise<string[]> {
  return (await listEvents(s.deps.db, s.tenantId, { limit: 100 })).data
    .filter((e) => e.data.message_id === messageId)
    .map((e) => e.type);
}

/** Record's put: the message with the outcome it recorded under its claim. */
const recordWrite = (c: Call) =>
  c.command === 'PutItem' &&
  c.sk.startsWith('M#') &&
  'recorded' in ((c.input.Item as Record<string, unknown> | undefined) ?? {});

/** A message action's transaction, by the audit action it writes with the message. */
const actionWrite = (action: string) => (c: Call) =>
  c.command === 'TransactWriteItems' && JSON.stringify(c.input).includes(`"${action}"`);

/** A write that changes the message under another writer's hand (a label), leaving its state. */
const otherWriter = (s: TestStack, messageId: string) => () =>
  mutateMessage(s.deps.db, s.agent.id, messageId, (m) => ({
    next: { ...m, labels: [...(m.labels ?? []), 'touched'] },
    result: undefined,
  }));

describe('messages.store.ts › claimSending: the claim-and-mark write whose answer was lost', () => {
  it('in the SDK retry: the re-read finds this invocation’s claim, the provider is called once, and the send is delivered, not uncertain', async () => {
    const r = await stack();
    const loopback = countLoopback(r);
    const f = faults(r.deps.db);
    const rule = f.loseAnswerInRetry(attemptWrites.claimSending);
    const sent = await r.send({ to: [r.peer.address], subject: 'Lost claim', text: 'x' }, 'lost-claim');
    await r.machine.idle();
    // the write reached DynamoDB once: the store read it back instead of sending it again
    expect(f.sent(rule)).toBe(1);
    expect(loopback.calls).toBe(1);
    await r.settle();
    const m = (await r.message(r.agent.id, sent.body.id))!;
    expect(m.status).toBe('delivered');
    expect(m.claim).toBeUndefined();
    expect(await eventTypes(r, sent.body.id)).not.toContain('message.uncertain');
    expect(await inboundCount(r)).toBe(1);
  });

  it('outside the SDK retry (the store function sees the timeout): resolved in the invocation, one provider call, delivered', async () => {
    const r = await stack();
    const loopback = countLoopback(r);
    const records = countRecords(r);
    faults(r.deps.db).loseAnswer(attemptWrites.claimSending);
    const sent = await r.send({ to: [r.peer.address], subject: 'Lost claim 2', text: 'x' }, 'lost-claim-2');
    await r.machine.idle();
    expect(loopback.calls).toBe(1);
    expect(records.n).toBe(1);
    await r.settle();
    expect((await r.message(r.agent.id, sent.body.id))?.status).toBe('delivered');
    expect(await inboundCount(r)).toBe(1);
  });

  it('a write whose request never reached DynamoDB: the re-read finds no claim, the write is sent again, one provider call', async () => {
    const r = await stack();
    const loopback = countLoopback(r);
    let dropped = 0;
    let claimSends = 0;
    // a socket that died before the request left: no answer, nothing applied
    hooksOf(r.deps.db).aroundAttempt(async (operation, input, next) => {
      const body = JSON.stringify(input);
      if (operation === 'UpdateItem' && body.includes('#claim = :claim')) {
        claimSends++;
        if (dropped++ === 0) throw Object.assign(new Error('socket hang up'), { name: 'TimeoutError' });
      }
      return next();
    });
    const sent = await r.send({ to: [r.peer.address], subject: 'Never arrived', text: 'x' }, 'never-arrived');
    await r.machine.idle();
    expect(claimSends).toBe(2);
    expect(loopback.calls).toBe(1);
    await r.settle();
    expect((await r.message(r.agent.id, sent.body.id))?.status).toBe('delivered');
  });

  it('then a duplicate invocation of the same execution (same token, its own nonce) tries its claim: it is refused and reports unknown without calling; this one calls once', async () => {
    const r = await stack({ dispatcher: { start: async () => undefined } });
    const sent = await r.send({ to: [r.peer.address], subject: 'Twin', text: 'x' }, 'twin-invocation');
    const input = { tenant_id: r.tenantId, identity_id: r.agent.id, message_id: sent.body.id };
    expect((await claim(r.deps, { ...input, execution_id: 'exec-twin' })).outcome).toBe('claimed');
    const token = claimToken('exec-twin');
    const loopback = counted(localTransports(r.deps).loopback!);
    const spec = transportTask('loopback');
    let twin: Awaited<ReturnType<typeof runTransport>> | undefined;
    faults(r.deps.db).loseAnswerInRetry(attemptWrites.claimSending, {
      // biome-ignore lint/suspicious/noThenProperty: the fault helper's option (test/support/faults.ts)
      then: async () => {
        twin = await runTransport(r.deps, loopback, spec, { ...input, claim: { token } });
      },
    });
    const mine = await runTransport(r.deps, loopback, spec, { ...input, claim: { token } });
    expect(twin?.type).toBe('unknown');
    expect(mine.type).toBe('accepted');
    expect(loopback.calls).toBe(1);
    const recorded = await record(r.deps, { ...input, claim: { token }, result: mine });
    expect(recorded.status).toBe('submitted');
  });

  it('then a cancel: refused (the claim is on the message), and the attempt still sends once, not uncertain', async () => {
    const r = await stack();
    const loopback = countLoopback(r);
    let cancel: Promise<{ status: number; body: { error?: { code?: string } } }> | undefined;
    const f = faults(r.deps.db);
    let id = '';
    f.loseAnswerInRetry(attemptWrites.claimSending, {
      // biome-ignore lint/suspicious/noThenProperty: the fault helper's option (test/support/faults.ts)
      then: async () => {
        cancel = r.call('POST', `/v1/identities/${r.agent.id}/messages/${id}/cancel`);
        await cancel;
      },
    });
    const sent = await r.send({ to: [r.peer.address], subject: 'Cancel late', text: 'x' }, 'cancel-late');
    id = sent.body.id;
    await r.machine.idle();
    expect(cancel, 'the claim write was never made').toBeDefined();
    expect((await cancel)?.status).toBe(409);
    expect(loopback.calls).toBe(1);
    await r.settle();
    expect((await r.message(r.agent.id, id))?.status).toBe('delivered');
    expect(await eventTypes(r, id)).not.toContain('message.canceled');
  });
});

describe('send/attempt.ts › record: Record’s versioned put whose answer was lost', () => {
  it('in the SDK retry: the same decision on the re-read replays, Record runs once, and the send ends submitted', async () => {
    const r = await stack();
    const loopback = countLoopback(r);
    const records = countRecords(r);
    const f = faults(r.deps.db);
    const rule = f.loseAnswerInRetry(recordWrite);
    const sent = await r.send({ to: [r.peer.address], subject: 'Lost record', text: 'x' }, 'lost-record');
    await r.machine.idle();
    expect(records.n).toBe(1);
    expect(loopback.calls).toBe(1);
    expect(f.sent(rule)).toBeGreaterThanOrEqual(1);
    await r.settle();
    const m = (await r.message(r.agent.id, sent.body.id))!;
    expect(m.status).toBe('delivered');
    expect(m.recorded?.token).toBeDefined();
    expect(r.metrics.get('attempts', { transport: 'loopback' })).toBe(1);
  });

  it('then another writer changes the message: the retry still finds its own record and writes nothing more', async () => {
    const r = await stack({ dispatcher: { start: async () => undefined } });
    // the loopback copy's events wait: the message stays as Record leaves it
    r.deps.events = { publish: async () => undefined };
    const sent = await r.send({ to: [r.peer.address], subject: 'Record then', text: 'x' }, 'record-then');
    const input = { tenant_id: r.tenantId, identity_id: r.agent.id, message_id: sent.body.id };
    await claim(r.deps, { ...input, execution_id: 'exec-rec' });
    const token = claimToken('exec-rec');
    const loopback = counted(localTransports(r.deps).loopback!);
    const result = await runTransport(r.deps, loopback, transportTask('loopback'), {
      ...input,
      claim: { token },
    });
    // biome-ignore lint/suspicious/noThenProperty: the fault helper's option (test/support/faults.ts)
    faults(r.deps.db).loseAnswerInRetry(recordWrite, { then: otherWriter(r, sent.body.id) });
    const out = await record(r.deps, { ...input, claim: { token }, result });
    expect(out).toEqual({ next: 'done', status: 'submitted' });
    const m = (await r.message(r.agent.id, sent.body.id))!;
    expect(m).toMatchObject({ status: 'submitted', labels: ['touched'], recorded: { token } });
    // a retried Record (the machine's) answers the same and writes nothing
    expect(await record(r.deps, { ...input, claim: { token }, result })).toEqual(out);
    expect((await r.message(r.agent.id, sent.body.id))?.version).toBe(m.version);
    expect(loopback.calls).toBe(1);
  });
});

describe('send/actions.ts › cancel, retry (messages.store.ts › putMessageAtVersion): transactions resent by the SDK with their ClientRequestToken', () => {
  it('cancel in the SDK retry: sent twice, applied once, answered 200; one event, one audit entry', async () => {
    const r = await stack({ dispatcher: { start: async () => undefined } });
    const sent = await r.send({ to: [r.peer.address], subject: 'Cancel', text: 'x' }, 'cancel-lost');
    const f = faults(r.deps.db);
    const rule = f.loseAnswerInRetry(actionWrite('message.cancel'));
    const res = await r.call('POST', `/v1/identities/${r.agent.id}/messages/${sent.body.id}/cancel`);
    expect(res.status).toBe(200);
    expect(f.sent(rule)).toBe(2);
    expect((await r.message(r.agent.id, sent.body.id))?.status).toBe('canceled');
    expect(await eventTypes(r, sent.body.id)).toEqual(['message.canceled']);
    expect(await audits(r, 'message.cancel', sent.body.id)).toHaveLength(1);
  });

  it('cancel, then another writer changes the message before the resend: still applied once, answered 200', async () => {
    const r = await stack({ dispatcher: { start: async () => undefined } });
    const sent = await r.send({ to: [r.peer.address], subject: 'Cancel then', text: 'x' }, 'cancel-then');
    const f = faults(r.deps.db);
    // biome-ignore lint/suspicious/noThenProperty: the fault helper's option (test/support/faults.ts)
    const rule = f.loseAnswerInRetry(actionWrite('message.cancel'), { then: otherWriter(r, sent.body.id) });
    const res = await r.call('POST', `/v1/identities/${r.agent.id}/messages/${sent.body.id}/cancel`);
    expect(res.status).toBe(200);
    expect(f.sent(rule)).toBe(2);
    expect(await r.message(r.agent.id, sent.body.id)).toMatchObject({
      status: 'canceled',
      labels: ['touched'],
    });
    expect(await eventTypes(r, sent.body.id)).toEqual(['message.canceled']);
  });

  /** A message failed with a retryable failure (what a back-off past its 24 hours leaves). */
  async function failed(r: TestStack, key: string): Promise<string> {
    const sent = await r.send({ to: [r.peer.address], subject: 'Retry', text: 'x' }, key);
    await mutateMessage(r.deps.db, r.agent.id, sent.body.id, (m) => ({
      next: {
        ...m,
        status: 'failed',
        status_reason: 'quota_exhausted',
        deliveries: (m.deliveries ?? []).map((d) => ({ ...d, status: 'failed' as const })),
      },
      result: undefined,
    }));
    return sent.body.id;
  }

  it('retry in the SDK retry, then another writer: applied once, one execution started, one audit entry', async () => {
    const started: string[] = [];
    const r = await stack({ dispatcher: { start: async (name) => void started.push(name) } });
    const id = await failed(r, 'retry-lost');
    started.length = 0;
    const f = faults(r.deps.db);
    // biome-ignore lint/suspicious/noThenProperty: the fault helper's option (test/support/faults.ts)
    const rule = f.loseAnswerInRetry(actionWrite('message.retry'), { then: otherWriter(r, id) });
    const res = await r.call('POST', `/v1/identities/${r.agent.id}/messages/${id}/retry`);
    expect(res.status).toBe(200);
    expect(f.sent(rule)).toBe(2);
    const m = (await r.message(r.agent.id, id))!;
    expect(m).toMatchObject({ status: 'queued', retry: { n: 1 }, labels: ['touched'] });
    expect(started).toEqual([m.dispatch?.execution]);
    expect(await audits(r, 'message.retry', id)).toHaveLength(1);
  });
});

describe('events/consume.ts › applyTo and outcomes.store.ts › updateOutcomeWindow: a delivery outcome whose answer was lost', () => {
  const windowOf = async (r: TestStack) =>
    (
      await r.deps.db.get({
        TableName: r.deps.db.table,
        Key: { pk: `I#${r.agent.id}`, sk: 'OW' },
        ConsistentRead: true,
      })
    ).Item;

  const bounceWrite = (c: Call) =>
    c.command === 'TransactWriteItems' && JSON.stringify(c.input).includes('"message.bounced"');
  const windowWrite = (c: Call) => c.command === 'PutItem' && c.sk === 'OW';

  it('the bounce’s transaction in the SDK retry: applied once; the window counts the bounce once', async () => {
    const r = await stack();
    const f = faults(r.deps.db);
    const rule = f.loseAnswerInRetry(bounceWrite);
    const sent = await r.send({ to: ['bounce+1@simulator.invalid'], subject: 'B', text: 'x' }, 'bounce-tx');
    await r.settle();
    // The SDK's resend makes two; a bounce that lands while Record writes the message loses the
    // version race and is sent once more on the re-read message, which the assertions below allow.
    expect(f.sent(rule)).toBeGreaterThanOrEqual(2);
    expect((await eventTypes(r, sent.body.id)).filter((t) => t === 'message.bounced')).toHaveLength(1);
    expect((await windowOf(r))?.outcomes).toBe('b');
  });

  it('the bounce’s write seen lost by the consumer (outside the SDK retry): the re-read finds the event applied, and the outcome is still counted once', async () => {
    const r = await stack();
    faults(r.deps.db).loseAnswer(bounceWrite);
    const sent = await r.send(
      { to: ['bounce+2@simulator.invalid'], subject: 'B2', text: 'x' },
      'bounce-caller',
    );
    await r.settle();
    expect((await r.message(r.agent.id, sent.body.id))?.status).toBe('bounced');
    expect((await eventTypes(r, sent.body.id)).filter((t) => t === 'message.bounced')).toHaveLength(1);
    // a redelivery would have found a duplicate and skipped it: the consumer counted it as the applier
    expect((await windowOf(r))?.outcomes).toBe('b');
  });

  it('outcomes.store.ts › updateOutcomeWindow in the SDK retry: not sent again, its token read back, the outcome counted once', async () => {
    const r = await stack();
    const f = faults(r.deps.db);
    const rule = f.loseAnswerInRetry(windowWrite);
    await r.send({ to: ['bounce+3@simulator.invalid'], subject: 'B3', text: 'x' }, 'window-lost');
    await r.settle();
    expect(f.sent(rule)).toBe(1);
    const w = await windowOf(r);
    expect(w?.outcomes).toBe('b');
    expect(w?.wts).toHaveLength(1);
  });

  it('outcomes.store.ts › updateOutcomeWindow, then another outcome lands before the read-back: both counted, each once', async () => {
    const r = await stack();
    const f = faults(r.deps.db);
    let other = '';
    f.loseAnswerInRetry(windowWrite, {
      // biome-ignore lint/suspicious/noThenProperty: the fault helper's option (test/support/faults.ts)
      then: async () => {
        const s2 = await r.send(
          { to: ['bounce+5@simulator.invalid'], subject: 'B5', text: 'x' },
          'window-other',
        );
        other = s2.body.id;
        // that send's bounce is consumed (its window write lands) before this answer goes up
        await r.eventually(async () => ((await windowOf(r))?.wts?.length ?? 0) >= 2);
      },
    });
    await r.send({ to: ['bounce+4@simulator.invalid'], subject: 'B4', text: 'x' }, 'window-then');
    await r.settle();
    expect(other).not.toBe('');
    const w = await windowOf(r);
    expect(w?.outcomes).toBe('bb');
    expect(w?.wts.length).toBeLessThanOrEqual(WINDOW_WRITERS);
  });
});

describe('sweeper/sweeper.ts › sweepOne: the sweeper’s versioned write whose answer was lost', () => {
  it('a dead claim made uncertain in the SDK retry, then another writer: the pass reports it and emits its event once', async () => {
    let now = Date.now();
    const r = await stack({ clock: () => now, dispatcher: { start: async () => undefined } });
    const sent = await r.send({ to: [r.peer.address], subject: 'Dead', text: 'x' }, 'sweep-dead');
    const id = sent.body.id as string;
    // an attempt that died after its claim write: the claim with its mark, no Record
    expect((await claimSending(r.deps.db, r.agent.id, id, { token: 'dead', at: now })).written).toBe(true);
    now += 6 * 60_000;
    const uncertainWrite = (c: Call) =>
      c.command === 'PutItem' && c.sk === `M#${id}` && JSON.stringify(c.input).includes('"uncertain"');
    const f = faults(r.deps.db);
    // biome-ignore lint/suspicious/noThenProperty: the fault helper's option (test/support/faults.ts)
    const rule = f.loseAnswerInRetry(uncertainWrite, { then: otherWriter(r, id) });
    // The table is shared with other files, whose messages the shifted clock may make look dead too:
    // the assertions are on this message.
    expect((await r.sweep()).uncertain).toContain(id);
    // the sweeper's put reached DynamoDB once (the other request is the other writer's)
    expect(f.sent(rule)).toBe(2);
    expect(r.metrics.get('stale_claims', { by: 'sweeper' })).toBeGreaterThanOrEqual(1);
    expect(await r.message(r.agent.id, id)).toMatchObject({ status: 'uncertain', labels: ['touched'] });
    expect((await eventTypes(r, id)).filter((t) => t === 'message.uncertain')).toHaveLength(1);
    expect((await r.sweep()).uncertain).not.toContain(id);
  });

  it('a lost dispatch re-named in the SDK retry: the pass starts the execution it named, once', async () => {
    let now = Date.now();
    const started: string[] = [];
    const r = await stack({
      clock: () => now,
      dispatcher: { start: async (name) => void started.push(name) },
    });
    const sent = await r.send({ to: [r.peer.address], subject: 'Lost dispatch', text: 'x' }, 'sweep-lost');
    const id = sent.body.id as string;
    started.length = 0;
    now += 6 * 60_000;
    const renameWrite = (c: Call) => c.command === 'PutItem' && c.sk === `M#${id}`;
    const f = faults(r.deps.db);
    f.loseAnswerInRetry(renameWrite);
    // The table is shared with other files, whose messages the shifted clock may make look dead too:
    // the assertions are on this message (its execution names carry its id).
    expect((await r.sweep()).redispatched.filter((m) => m === id)).toEqual([id]);
    const m = (await r.message(r.agent.id, id))!;
    expect(m.dispatch?.n).toBe(2);
    expect(started.filter((name) => name.includes(id))).toEqual([m.dispatch?.execution]);
  });
});
