import { describe, expect, it } from 'vitest';
import type { MachineKind, SendInput } from '../../functions/send/dispatcher.ts';
import { LEASE_MS } from '../../functions/store/idempotency.store.ts';
import { attemptWrites, faults, writes } from '../support/faults.ts';
import { stackPerTest, type TestStack } from '../support/local.ts';

/**
 * One rule for which machine runs a message (send/dispatcher.ts › startExecution,
 * core/dispatch.ts › executionStart): every start of a message's execution uses the name on the
 * message and the machine that name was minted for. Each case is a message on which "a send_at
 * means Standard" and "the name decides" disagree: a retried send taking its key over (its first
 * request died right after writing the message) during a back-off of a message never scheduled; an
 * operator retry, and the sweeper's restart, of a scheduled message whose send_at has passed. The
 * sweeper reads every queued message of its table, so these cases have a table of their own.
 */
const stack = stackPerTest({ ownTable: true });
const NO_WAITS = { Backoff: 0, WaitUntilSendAt: 0 };
/** Each case leaves its message ended: the next one's sweeper finds nothing of it queued. */
const table = `pmail-dispatch-${Math.random().toString(36).slice(2)}`;

interface Asked {
  name: string;
  input: SendInput;
  machine: MachineKind;
}

/**
 * A stack whose dispatcher records every start asked of it: `hold` keeps them from running until
 * `release()`, `fail` loses them (the caller sees the error).
 */
async function recorded() {
  const at = { now: Date.now() };
  const asked: Asked[] = [];
  const held: Asked[] = [];
  const gate = { hold: false, fail: false };
  const s: TestStack = await stack({
    table,
    clock: () => at.now,
    waitTimeOverrides: NO_WAITS,
    dispatcher: {
      start: async (name, input, machine = 'attempt') => {
        asked.push({ name, input, machine });
        if (gate.fail) throw new Error('the StartExecution was lost');
        if (gate.hold) held.push({ name, input, machine });
        else await s.machine.start(name, input, machine);
      },
      isRunning: (name) => s.machine.isRunning(name),
    },
  });
  const release = async () => {
    for (const h of held.splice(0)) await s.machine.start(h.name, h.input, h.machine);
    await s.settle();
  };
  return { s, at, asked, gate, release, f: faults(s.deps.db) };
}

describe('one rule for which machine runs a message', () => {
  it('a retried send taking its key over during a back-off restarts the Standard execution the message names: one execution, none started early', async () => {
    const { s, at, asked, f } = await recorded();
    const body = { to: ['ratelimit@simulator.invalid'], subject: 'Backs off', text: 'x' };
    f.crashAfter(writes.message);
    const first = await s.send(body, 'takeover-backoff');
    expect(first.status).toBeGreaterThanOrEqual(500);
    f.revive();
    const [written] = await s.mailbox(s.agent.id, 'outbound');
    const id = written.id;
    expect(written.send_at).toBeUndefined();
    expect(asked).toEqual([]);

    // The sweeper re-dispatches the lost dispatch; its attempt is rate-limited and Record names the
    // Standard execution of the back-off, which the attempt starts. That execution's own attempt is
    // held before its claim: the message waits queued, unclaimed, naming `-s3`.
    at.now += 6 * 60_000;
    let claims = 0;
    const pause = f.pauseBefore((c) => attemptWrites.claimSending(c) && ++claims === 2);
    expect((await s.sweep()).redispatched).toEqual([id]);
    await pause.reached;
    const waiting = await s.message(s.agent.id, id);
    expect(waiting).toMatchObject({ status: 'queued', dispatch: { execution: `${id}-s3` } });
    expect(waiting?.claim).toBeUndefined();
    expect(waiting?.send_at).toBeUndefined();

    // The client's retry takes the expired key over, finds the message and restarts what it names.
    expect(at.now - written.created_at).toBeGreaterThan(LEASE_MS);
    const retry = await s.send(body, 'takeover-backoff');
    expect(retry.status).toBe(202);
    expect(retry.body).toMatchObject({ id, deduplicated: true });
    expect(asked.map((a) => [a.name, a.machine])).toEqual([
      [`${id}-d2`, 'attempt'],
      [`${id}-s3`, 'send'],
    ]);
    expect(asked[1].input).toEqual({
      tenant_id: s.tenantId,
      identity_id: s.agent.id,
      message_id: id,
      send_at: new Date(waiting!.dispatch!.at).toISOString(),
    });
    // Step Functions starts one Standard execution per name: the restart started nothing.
    expect(s.machine.started).toEqual([`${id}-d2`, `${id}-s3`]);

    pause.go();
    await s.settle();
    const m = await s.message(s.agent.id, id);
    expect(m?.status).toBe('delivered');
    expect(m?.provider_message_id).toBeTruthy();
    expect(s.machine.started).toEqual([`${id}-d2`, `${id}-s3`]);
  });

  it('an operator retry of a scheduled message, and the sweeper restarting it, start Express executions: the send_at that passed waits for nothing', async () => {
    const { s, at, asked, gate, release } = await recorded();
    const sendAt = at.now + 3600_000;
    gate.hold = true;
    const sent = await s.send({
      to: ['ratelimit@simulator.invalid'],
      subject: 'Scheduled',
      text: 'x',
      send_at: new Date(sendAt).toISOString(),
    });
    expect(sent.status).toBe(202);
    const id = sent.body.id as string;
    gate.hold = false;
    // Its Standard execution runs a day late: rate-limited past its 24 hours, the message fails.
    at.now = sendAt + 25 * 3600_000;
    await release();
    expect(await s.message(s.agent.id, id)).toMatchObject({
      status: 'failed',
      status_reason: 'quota_exhausted',
      send_at: sendAt,
    });

    // The operator retries it; that StartExecution is lost, and the sweeper starts the next one.
    gate.fail = true;
    const retried = await s.call('POST', `/v1/identities/${s.agent.id}/messages/${id}/retry`);
    gate.fail = false;
    expect(retried.status).toBe(200);
    expect(retried.body.status).toBe('queued');
    at.now += 6 * 60_000;
    expect((await s.sweep()).redispatched).toEqual([id]);
    await s.settle();

    const ids = { tenant_id: s.tenantId, identity_id: s.agent.id, message_id: id };
    expect(asked).toEqual([
      { name: `${id}-s1`, input: { ...ids, send_at: new Date(sendAt).toISOString() }, machine: 'send' },
      { name: `${id}-d2`, input: ids, machine: 'attempt' },
      { name: `${id}-d3`, input: ids, machine: 'attempt' },
    ]);
    const m = await s.message(s.agent.id, id);
    expect(m?.status).toBe('delivered');
    expect(m?.provider_message_id).toBeTruthy();
    // The sweeper's Express attempt, then its back-off's Standard execution, which sent it.
    expect(s.machine.started).toEqual([`${id}-s1`, `${id}-d3`, `${id}-s4`]);
  });
});
