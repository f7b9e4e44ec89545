import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpServer } from '../../functions/local/http-server.ts';
import { localTransports } from '../../functions/local/transports.ts';
import { claim, claimToken, record } from '../../functions/send/attempt.ts';
import { sendAttemptTasks } from '../../functions/send/tasks.ts';
import { runTransport } from '../../functions/send/transport-task.ts';
import { claimSending } from '../../functions/store/messages.store.ts';
import { transportTask } from '../../functions/transports/tasks.ts';
import type { Transport } from '../../functions/transports/transport.ts';
import { attemptWrites, faults } from '../support/faults.ts';
import { listEvents } from '../support/feeds.ts';
import { type TestStack, testStack } from '../support/local.ts';

/**
 * The guarantee, made to happen: concurrent submits, duplicated and killed transport tasks,
 * duplicate executions and timeouts — each must leave exactly one provider call.
 */
let s: TestStack;
beforeAll(async () => {
  s = await testStack({ config: { simEventDelaySeconds: 0 } });
});
afterAll(async () => {
  await s.settle();
  await s.close();
});

const inboundCount = async (stack: TestStack) => (await stack.mailbox(stack.peer.id, 'inbound')).length;

/** What an attempt execution answers (the state of the machine at its end). */
interface AttemptOutput {
  claim: { outcome: string; reason?: string; token?: string };
  result?: { type: string; reason?: string };
  record?: { next: string; status?: string };
}

const killed = () => Object.assign(new Error('the Lambda was killed'), { name: 'Sandbox.Timedout' });

/** The task handlers the local machine runs, replaceable per test (LocalSendMachine overrides). */
const overrides = (s: TestStack) =>
  (s.machine as unknown as { overrides: Record<string, unknown> }).overrides;

/**
 * The stack's loopback transport task, its adapter counting the provider calls (`calls`); `beforeCall`
 * runs at the call's start (the adapter is reached only after the claim write): it may wait, or
 * throw as a Lambda killed there.
 */
function countLoopback(s: TestStack, beforeCall?: () => void | Promise<void>) {
  const inner = localTransports(s.deps).loopback!;
  const spy = counted({
    provider: inner.provider,
    send: async (req) => {
      await beforeCall?.();
      return inner.send(req);
    },
  });
  const started = { n: 0 };
  overrides(s).TransportLoopback = (input: never) => {
    started.n++;
    return sendAttemptTasks.Transport(spy, transportTask('loopback'))(s.deps)(input);
  };
  return Object.assign(spy, { started });
}

/** Count the Record tasks the machine runs (each still runs the real Record). */
function countRecords(s: TestStack) {
  const tokens: string[] = [];
  overrides(s).Record = (input: { claim: { token: string } }) => {
    tokens.push(input.claim.token);
    return sendAttemptTasks.Record(s.deps)(input as never);
  };
  return tokens;
}

/** An adapter that counts its provider calls. */
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

describe('one Idempotency-Key never makes a second email', () => {
  it('gives 50 concurrent POSTs with one key one message id, only 202 or 409 request_in_progress, and one email', async () => {
    const r = await testStack({ config: { simEventDelaySeconds: 0 } });
    const http = await startHttpServer(r.groups, { port: 0, log: r.deps.log });
    try {
      const body = JSON.stringify({ to: [r.peer.address], subject: 'Once', text: 'exactly once' });
      const answers = await Promise.all(
        Array.from({ length: 50 }, () =>
          fetch(`${http.url}/v1/identities/${r.agent.id}/messages`, {
            method: 'POST',
            headers: {
              authorization: `Bearer ${r.apiKey}`,
              'idempotency-key': 'fifty-at-once',
              'content-type': 'application/json',
            },
            body,
          }).then(async (res) => ({ status: res.status, body: (await res.json()) as any })),
        ),
      );
      const accepted = answers.filter((a) => a.status === 202);
      const refused = answers.filter((a) => a.status !== 202);
      expect(accepted.length).toBeGreaterThanOrEqual(1);
      expect(new Set(accepted.map((a) => a.body.id)).size).toBe(1);
      expect(accepted.filter((a) => a.body.deduplicated === false)).toHaveLength(1);
      for (const a of refused) {
        expect(a.status).toBe(409);
        expect(a.body.error.code).toBe('request_in_progress');
      }
      await r.settle();
      const inbox = await r.mailbox(r.peer.id, 'inbound');
      expect(inbox).toHaveLength(1);
      expect(inbox[0].loopback_of?.message_id).toBe(accepted[0].body.id);
      expect(await r.mailbox(r.agent.id, 'outbound')).toHaveLength(1);
      expect(r.machine.started).toHaveLength(1);
      // and a later retry of the same request is a replay of that one message
      const later = await r.send(JSON.parse(body), 'fifty-at-once');
      expect(later.body).toMatchObject({ id: accepted[0].body.id, deduplicated: true });
    } finally {
      await http.close();
      await r.close();
    }
  });

  it('records a timeout as uncertain, never attempts it again, and replays the stored 202', async () => {
    const sent = await s.send({ to: ['timeout@simulator.invalid'], subject: 'T', text: 'x' }, 'timeout-1');
    expect(sent.status).toBe(202);
    await s.settle();
    const m = await s.message(s.agent.id, sent.body.id);
    expect(m).toMatchObject({ status: 'uncertain', status_reason: 'transport_timeout' });
    expect(m?.deliveries?.[0].status).toBe('uncertain');
    expect(m?.claim).toBeUndefined();

    // a new execution for the same message (a sweeper, a duplicate) stops at Claim: no provider call
    const again = await s.machine.run(`${sent.body.id}-d2`, {
      tenant_id: s.tenantId,
      identity_id: s.agent.id,
      message_id: sent.body.id,
    });
    expect(again).toMatchObject({ claim: { outcome: 'stop', reason: 'not_queued' } });
    expect((await s.message(s.agent.id, sent.body.id))?.version).toBe(m?.version);

    const replay = await s.send({ to: ['timeout@simulator.invalid'], subject: 'T', text: 'x' }, 'timeout-1');
    expect(replay.status).toBe(202);
    expect(replay.body).toMatchObject({ id: sent.body.id, status: 'queued', deduplicated: true });
    expect(s.machine.started.filter((n) => n.startsWith(sent.body.id))).toHaveLength(1);
  });

  it('calls the provider once when the transport task is invoked twice for one claim', async () => {
    const r = await testStack({ dispatcher: { start: async () => undefined } });
    // The loopback delivered event arrives after the Record below.
    const held: Parameters<TestStack['queue']['publish']>[] = [];
    r.deps.events = { publish: async (...args) => void held.push(args) };
    try {
      const sent = await r.send({ to: [r.peer.address], subject: 'Twice', text: 'x' }, 'dup-transport');
      const input = { tenant_id: r.tenantId, identity_id: r.agent.id, message_id: sent.body.id };
      const c = await claim(r.deps, { ...input, execution_id: 'exec-1' });
      expect(c.outcome).toBe('claimed');
      const token = claimToken('exec-1');
      const loopback = counted(localTransports(r.deps).loopback!);
      const spec = transportTask('loopback');
      const [a, b] = await Promise.all([
        runTransport(r.deps, loopback, spec, { ...input, claim: { token } }),
        runTransport(r.deps, loopback, spec, { ...input, claim: { token } }),
      ]);
      const results = [a, b].map((x) => x.type).sort();
      expect(results).toEqual(['accepted', 'unknown']);
      expect(loopback.calls).toBe(1);
      // the machine only ever sees one of the two answers; whichever it records, nothing is resent
      const recorded = await record(r.deps, {
        ...input,
        claim: { token },
        result: a.type === 'unknown' ? a : b,
      });
      expect(recorded.status).toBe('uncertain');
      expect((await claim(r.deps, { ...input, execution_id: 'exec-2' })).outcome).toBe('stop');
      for (const args of held) await r.queue.publish(...args);
      await r.settle();
      expect(loopback.calls).toBe(1);
      // loopback's copy travels in the answer that was lost: the transport itself wrote nothing
      expect(await inboundCount(r)).toBe(0);
    } finally {
      await r.close();
    }
  });

  it('records uncertain when the transport task dies after the provider accepted, and never sends again', async () => {
    let kills = 0;
    const r = await testStack({
      config: { simEventDelaySeconds: 0 },
      faults: {
        afterProviderCall: () => {
          kills++;
          throw Object.assign(new Error('Lambda was killed'), { name: 'Sandbox.Timedout' });
        },
      },
    });
    // The provider's events arrive after the Record here (guarantee.test.ts has them arrive first).
    const held: Parameters<TestStack['queue']['publish']>[] = [];
    r.deps.events = { publish: async (...args) => void held.push(args) };
    try {
      // the simulator publishes its delivered event during the call, as a provider does
      const sent = await r.send(
        { to: ['delivered@simulator.invalid'], subject: 'Killed', text: 'x' },
        'killed-1',
      );
      await r.machine.idle();
      expect(kills).toBe(1);
      const m = await r.message(r.agent.id, sent.body.id);
      expect(m?.status).toBe('uncertain');
      expect(m?.status_reason).toBe('transport_connection_lost');
      for (const args of held) await r.queue.publish(...args);
      // another execution for the message finds it decided
      const again = await r.machine.run(`${sent.body.id}-d2`, {
        tenant_id: r.tenantId,
        identity_id: r.agent.id,
        message_id: sent.body.id,
      });
      expect(again).toMatchObject({ claim: { outcome: 'stop' } });
      await r.settle();
      expect(kills).toBe(1);
      // the provider's own delivered event still arrives, and settles the recipient
      const settled = await r.message(r.agent.id, sent.body.id);
      expect(settled?.deliveries?.[0].status).toBe('delivered');
    } finally {
      await r.close();
    }
  });

  it('makes one provider call when two executions with the same name run at once (Express is at-least-once)', async () => {
    const r = await testStack({
      config: { simEventDelaySeconds: 0 },
      dispatcher: { start: async () => undefined },
    });
    try {
      const loopback = countLoopback(r);
      const sent = await r.send({ to: [r.peer.address], subject: 'Dup exec', text: 'x' }, 'dup-exec');
      const input = { tenant_id: r.tenantId, identity_id: r.agent.id, message_id: sent.body.id };
      const outs = (await Promise.all([
        r.machine.run('same-name', input),
        r.machine.run('same-name', input),
      ])) as AttemptOutput[];
      expect(loopback.calls).toBe(1);
      // one recorded the provider's answer; the other stopped at Claim (it found the claim) or at its
      // transport (not_claimed: the other's claim was written first), and recorded nothing
      const recorded = outs.filter((o) => o.result && o.result.type !== 'not_claimed');
      expect(recorded).toHaveLength(1);
      const other = outs.find((o) => o !== recorded[0])!;
      expect(other.claim.outcome === 'stop' || other.result?.type === 'not_claimed').toBe(true);
      expect(other.record).toEqual({ next: 'done' });
      await r.settle();
      expect(await inboundCount(r)).toBe(1);
      expect((await r.message(r.agent.id, sent.body.id))?.status).toBe('delivered');
    } finally {
      await r.close();
    }
  });

  it('turns a claim left by an attempt that died after the sending mark into uncertain after 5 minutes, and never retries it', async () => {
    let now = Date.now();
    const r = await testStack({ clock: () => now, dispatcher: { start: async () => undefined } });
    try {
      const sent = await r.send({ to: [r.peer.address], subject: 'Stale', text: 'x' }, 'stale-1');
      const input = { tenant_id: r.tenantId, identity_id: r.agent.id, message_id: sent.body.id };
      expect((await claim(r.deps, { ...input, execution_id: 'dead' })).outcome).toBe('claimed');
      // the attempt's transport writes its claim marked sending (its provider call may follow), then dies
      const written = await claimSending(r.deps.db, r.agent.id, sent.body.id, {
        token: claimToken('dead'),
        at: now,
      });
      expect(written.written).toBe(true);
      // a second attempt within 5 minutes is turned away
      now += 4 * 60_000;
      expect(await claim(r.deps, { ...input, execution_id: 'second' })).toEqual({
        outcome: 'stop',
        reason: 'already_claimed',
      });
      now += 2 * 60_000;
      expect(await claim(r.deps, { ...input, execution_id: 'third' })).toEqual({
        outcome: 'stop',
        reason: 'stale',
      });
      const m = await r.message(r.agent.id, sent.body.id);
      expect(m).toMatchObject({ status: 'uncertain', status_reason: 'transport_connection_lost' });
      expect(await claim(r.deps, { ...input, execution_id: 'fourth' })).toEqual({
        outcome: 'stop',
        reason: 'not_queued',
      });
      expect(await inboundCount(r)).toBe(0);
      // the dead attempt's late Record finds its claim gone and changes nothing
      await record(r.deps, {
        ...input,
        claim: { token: claimToken('dead') },
        result: {
          type: 'accepted',
          provider: 'loopback',
          provider_message_id: 'x',
          refused: [],
          deferred: [],
        },
      });
      expect((await r.message(r.agent.id, sent.body.id))?.status).toBe('uncertain');
      // message.uncertain once, although the stale claim and the late Record both announced it
      const events = (await listEvents(r.deps.db, r.tenantId, { limit: 100 })).data.filter(
        (e) => e.data.message_id === sent.body.id,
      );
      expect(events.map((e) => [e.type, e.data.reason])).toEqual([
        ['message.uncertain', 'transport_connection_lost'],
      ]);
      expect(events[0].created_at).toBe(m!.status_at);
    } finally {
      await r.close();
    }
  });

  it('retries a Claim task that failed on infrastructure and recognises its own claim', async () => {
    const r = await testStack({
      config: { simEventDelaySeconds: 0 },
      dispatcher: { start: async () => undefined },
    });
    try {
      const sent = await r.send({ to: [r.peer.address], subject: 'Retry claim', text: 'x' }, 'retry-claim');
      const input = { tenant_id: r.tenantId, identity_id: r.agent.id, message_id: sent.body.id };
      let calls = 0;
      const { LocalSendMachine } = await import('../../functions/local/state-machine.ts');
      const { sendAttemptTasks } = await import('../../functions/send/tasks.ts');
      const realClaim = sendAttemptTasks.Claim(r.deps);
      const flaky = new LocalSendMachine(r.deps, {
        // the first invocation claims, then its answer is lost to an infrastructure error
        Claim: async (i: never) => {
          const out = await realClaim(i);
          if (++calls === 1) throw Object.assign(new Error('throttled'), { name: 'StoreUnavailable' });
          return out;
        },
      });
      const out = (await flaky.run('retry-claim-exec', input)) as any;
      expect(calls).toBe(2);
      expect(out.claim.outcome).toBe('claimed');
      await r.settle();
      expect(await inboundCount(r)).toBe(1);
    } finally {
      await r.close();
    }
  });
});

describe('the claim and its sending mark are one write, in the transport task', () => {
  it('a duplicate execution whose Claim decided before the other claimed is refused at its transport: it never calls the provider and records nothing', async () => {
    const r = await testStack({
      config: { simEventDelaySeconds: 0 },
      dispatcher: { start: async () => undefined },
    });
    try {
      // the winner's provider call waits until the loser's transport has tried its write
      let callReached!: () => void;
      const reached = new Promise<void>((ok) => {
        callReached = ok;
      });
      let letCall!: () => void;
      const calling = new Promise<void>((ok) => {
        letCall = ok;
      });
      const loopback = countLoopback(r, async () => {
        callReached();
        await calling;
      });
      const records = countRecords(r);
      const sent = await r.send({ to: [r.peer.address], subject: 'Dup', text: 'x' }, 'dup-interleaved');
      const input = { tenant_id: r.tenantId, identity_id: r.agent.id, message_id: sent.body.id };
      // the first execution's Claim decides, and its transport's claim write is held
      const held = faults(r.deps.db).pauseBefore(attemptWrites.claimSending);
      const first = r.machine.run('dup-name', input) as Promise<AttemptOutput>;
      await held.reached;
      // the duplicate (same name, another execution id) reads no claim either, and writes its own
      const second = r.machine.run('dup-name', input) as Promise<AttemptOutput>;
      await reached;
      const claimed = (await r.message(r.agent.id, sent.body.id))!;
      expect(claimed.claim).toMatchObject({ sending: true });
      // the held write lands on the duplicate's live claim: refused, no provider call, no Record
      held.go();
      const out = await first;
      expect(out.claim.outcome).toBe('claimed');
      expect(out.result?.type).toBe('not_claimed');
      expect(out.record).toEqual({ next: 'done' });
      expect((await r.message(r.agent.id, sent.body.id))?.claim).toEqual(claimed.claim);
      letCall();
      const won = await second;
      expect(won.claim.outcome).toBe('claimed');
      expect(won.result?.type).toBe('accepted');
      expect(won.claim.token).toBe(claimed.claim?.token);
      expect(out.claim.token).not.toBe(won.claim.token);
      expect(loopback.started.n).toBe(2);
      expect(loopback.calls).toBe(1);
      expect(records).toEqual([won.claim.token]);
      await r.settle();
      const m = (await r.message(r.agent.id, sent.body.id))!;
      expect(m.status).toBe('delivered');
      expect(m.claim).toBeUndefined();
      expect(await inboundCount(r)).toBe(1);
    } finally {
      await r.close();
    }
  });

  it('a cancel landing between Claim and the transport wins: the provider is never called and the message stays canceled', async () => {
    const r = await testStack({ config: { simEventDelaySeconds: 0 } });
    try {
      const loopback = countLoopback(r);
      const records = countRecords(r);
      const held = faults(r.deps.db).pauseBefore(attemptWrites.claimSending);
      const sent = await r.send({ to: [r.peer.address], subject: 'Cancel me', text: 'x' }, 'cancel-mid');
      await held.reached;
      // Claim has answered `claimed` but wrote no claim: the message is cancelable
      const canceled = await r.call('POST', `/v1/identities/${r.agent.id}/messages/${sent.body.id}/cancel`);
      expect(canceled.status).toBe(200);
      held.go();
      await r.machine.idle();
      expect(loopback.started.n).toBe(1);
      expect(loopback.calls).toBe(0);
      expect(records).toEqual([]);
      await r.settle();
      const m = (await r.message(r.agent.id, sent.body.id))!;
      expect(m.status).toBe('canceled');
      expect(m.claim).toBeUndefined();
      const types = (await listEvents(r.deps.db, r.tenantId, { limit: 100 })).data
        .filter((e) => e.data.message_id === sent.body.id)
        .map((e) => e.type);
      expect(types).toEqual(['message.canceled']);
      // a Record given the refused transport's answer anyway (a deploy's old definition) writes nothing
      const input = { tenant_id: r.tenantId, identity_id: r.agent.id, message_id: sent.body.id };
      const late = await record(r.deps, {
        ...input,
        claim: { token: claimToken('late') },
        result: { type: 'not_claimed', detail: 'x' },
      });
      expect(late).toEqual({ next: 'done' });
      expect((await r.message(r.agent.id, sent.body.id))?.version).toBe(m.version);
      expect(await inboundCount(r)).toBe(0);
    } finally {
      await r.close();
    }
  });

  it('a transport task killed right after its claim write, before the provider call, records uncertain and never sends', async () => {
    const r = await testStack({ config: { simEventDelaySeconds: 0 } });
    try {
      const loopback = countLoopback(r, () => {
        throw killed();
      });
      const sent = await r.send({ to: [r.peer.address], subject: 'Killed', text: 'x' }, 'killed-after-write');
      await r.machine.idle();
      expect(loopback.started.n).toBe(1);
      // the adapter is reached only after the claim write: the claim was written, then the task died
      expect(loopback.calls).toBe(1);
      const m = (await r.message(r.agent.id, sent.body.id))!;
      expect(m).toMatchObject({ status: 'uncertain', status_reason: 'transport_connection_lost' });
      expect(m.claim).toBeUndefined();
      const again = (await r.machine.run(`${sent.body.id}-d2`, {
        tenant_id: r.tenantId,
        identity_id: r.agent.id,
        message_id: sent.body.id,
      })) as AttemptOutput;
      expect(again.claim).toEqual({ outcome: 'stop', reason: 'not_queued' });
      await r.settle();
      expect(loopback.calls).toBe(1);
      expect(await inboundCount(r)).toBe(0);
    } finally {
      await r.close();
    }
  });

  it('an attempt whose process dies at its claim write (applied, answer never read) is uncertain after 5 minutes, never sent', async () => {
    let now = Date.now();
    const r = await testStack({
      table: `pmail-attempt-${Math.random().toString(36).slice(2)}`,
      clock: () => now,
      config: { simEventDelaySeconds: 0 },
    });
    try {
      const loopback = countLoopback(r);
      const f = faults(r.deps.db);
      f.crashAfter(attemptWrites.claimSending);
      const sent = await r.send({ to: [r.peer.address], subject: 'Died', text: 'x' }, 'died-at-write');
      await r.machine.idle();
      expect(f.dead).toBe(true);
      f.revive();
      expect(loopback.calls).toBe(0);
      const input = { tenant_id: r.tenantId, identity_id: r.agent.id, message_id: sent.body.id };
      const m = (await r.message(r.agent.id, sent.body.id))!;
      expect(m.status).toBe('queued');
      expect(m.claim?.sending).toBe(true);
      // a duplicate within 5 minutes finds the live claim and stops
      now += 4 * 60_000;
      expect(((await r.machine.run(`${sent.body.id}-d1`, input)) as AttemptOutput).claim).toEqual({
        outcome: 'stop',
        reason: 'already_claimed',
      });
      now += 2 * 60_000;
      expect(await r.sweep()).toMatchObject({ uncertain: [sent.body.id], redispatched: [] });
      expect(await r.message(r.agent.id, sent.body.id)).toMatchObject({
        status: 'uncertain',
        status_reason: 'transport_connection_lost',
      });
      await r.settle();
      expect(loopback.calls).toBe(0);
      expect(await inboundCount(r)).toBe(0);
    } finally {
      await r.close();
    }
  });

  it('a Claim that dies after deciding has written nothing: the same execution name run again sends, once', async () => {
    const r = await testStack({
      config: { simEventDelaySeconds: 0 },
      dispatcher: { start: async () => undefined },
    });
    try {
      const loopback = countLoopback(r);
      const sent = await r.send({ to: [r.peer.address], subject: 'Claim died', text: 'x' }, 'claim-died');
      const input = { tenant_id: r.tenantId, identity_id: r.agent.id, message_id: sent.body.id };
      const before = (await r.message(r.agent.id, sent.body.id))!;
      let decided: unknown;
      const realClaim = sendAttemptTasks.Claim(r.deps);
      overrides(r).Claim = async (i: never) => {
        decided = await realClaim(i);
        throw killed();
      };
      await expect(r.machine.run(before.dispatch!.execution, input)).rejects.toThrow();
      expect(decided).toMatchObject({ outcome: 'claimed', provider: 'loopback' });
      const after = (await r.message(r.agent.id, sent.body.id))!;
      expect(after.version).toBe(before.version);
      expect(after.claim).toBeUndefined();
      delete overrides(r).Claim;
      // a re-run (Express is at-least-once; the sweeper's next execution alike) claims at once
      const out = (await r.machine.run(before.dispatch!.execution, input)) as AttemptOutput;
      expect(out.claim.outcome).toBe('claimed');
      expect(out.result?.type).toBe('accepted');
      await r.settle();
      expect(loopback.calls).toBe(1);
      expect(await inboundCount(r)).toBe(1);
      expect((await r.message(r.agent.id, sent.body.id))?.status).toBe('delivered');
    } finally {
      await r.close();
    }
  });

  it('a transport task killed before its claim write leaves the message queued, not uncertain: the sweeper sends it once', async () => {
    let now = Date.now();
    const r = await testStack({
      table: `pmail-attempt-${Math.random().toString(36).slice(2)}`,
      clock: () => now,
      config: { simEventDelaySeconds: 0 },
    });
    try {
      const records = countRecords(r);
      overrides(r).TransportLoopback = async () => {
        throw killed();
      };
      const sent = await r.send({ to: [r.peer.address], subject: 'Early death', text: 'x' }, 'early-death');
      await r.machine.idle();
      // the machine caught the failure and ran Record, which found no claim of its token: no write
      expect(records).toHaveLength(1);
      const m = (await r.message(r.agent.id, sent.body.id))!;
      expect(m.status).toBe('queued');
      expect(m.claim).toBeUndefined();
      const loopback = countLoopback(r);
      now += 6 * 60_000;
      expect(await r.sweep()).toMatchObject({ redispatched: [sent.body.id], uncertain: [] });
      await r.settle();
      expect(loopback.calls).toBe(1);
      expect((await r.message(r.agent.id, sent.body.id))?.status).toBe('delivered');
      expect(await inboundCount(r)).toBe(1);
    } finally {
      await r.close();
    }
  });

  it('records a result Claim decided without a transport (NoTransport) only while no other execution’s claim is on the message', async () => {
    const r = await testStack({ dispatcher: { start: async () => undefined } });
    try {
      const noTransport = {
        type: 'rejected',
        reason: 'sender_domain_unavailable',
        code: 'E_NO_TRANSPORT',
        detail: 'the sending domain has no transport configured',
      } as const;
      const mine = { token: claimToken('no-transport'), provider: 'none' };
      // a duplicate execution's transport holds the message: the decision is not applied over it
      const held = await r.send({ to: [r.peer.address], subject: 'Held', text: 'x' }, 'none-held');
      const heldInput = { tenant_id: r.tenantId, identity_id: r.agent.id, message_id: held.body.id };
      const other = await claimSending(r.deps.db, r.agent.id, held.body.id, {
        token: claimToken('other'),
        at: r.deps.clock(),
      });
      expect(other.written).toBe(true);
      expect(await record(r.deps, { ...heldInput, claim: mine, result: noTransport })).toEqual({
        next: 'done',
        status: 'queued',
      });
      const still = (await r.message(r.agent.id, held.body.id))!;
      expect(still.version).toBe(other.written ? other.message.version : -1);
      expect(still.claim?.token).toBe(claimToken('other'));
      // an unclaimed message takes it, once: a retried Record answers the same and writes nothing
      const free = await r.send({ to: [r.peer.address], subject: 'Free', text: 'x' }, 'none-free');
      const freeInput = { tenant_id: r.tenantId, identity_id: r.agent.id, message_id: free.body.id };
      expect((await record(r.deps, { ...freeInput, claim: mine, result: noTransport })).status).toBe(
        'rejected',
      );
      const done = (await r.message(r.agent.id, free.body.id))!;
      expect(done).toMatchObject({ status: 'rejected', status_reason: 'sender_domain_unavailable' });
      expect((await record(r.deps, { ...freeInput, claim: mine, result: noTransport })).status).toBe(
        'rejected',
      );
      expect((await r.message(r.agent.id, free.body.id))?.version).toBe(done.version);
    } finally {
      await r.close();
    }
  });
});
