import { describe, expect, it } from 'vitest';
import { executionName, executionStart, machineOf } from '../../functions/core/dispatch.ts';
import { dispatchHeld } from '../../functions/core/enqueue.ts';
import { retryMessage } from '../../functions/core/message-actions.ts';
import { redispatch } from '../../functions/core/send-attempt.ts';
import { outboundMessage } from '../support/records.ts';

/**
 * core/dispatch.ts › executionStart: the machine is the one the message's execution name was minted
 * for, never `send_at`. Each case is a message on which "a send_at means Standard" and "the name's
 * form decides" disagree.
 */
const T = Date.UTC(2030, 5, 1, 9);
const ids = { tenant_id: 't', identity_id: 'i', message_id: 'msg_1' };
const scheduledAt = T - 3600_000;

describe('executionStart: one rule for which machine runs a message', () => {
  it('an operator retry of a scheduled message (send_at passed) starts its Express execution, with no wait', () => {
    const failed = outboundMessage({
      status: 'failed',
      status_reason: 'quota_exhausted',
      send_at: scheduledAt,
      dispatch_n: 1,
    });
    const decision = retryMessage(failed, T, (n) => executionName(failed.id, n));
    expect(decision.type).toBe('requeue');
    const m = (decision as { message: typeof failed }).message;
    expect(m.send_at).toBe(scheduledAt);
    expect(executionStart(m)).toEqual({ name: 'msg_1-d2', machine: 'attempt', input: ids });
  });

  it("the sweeper's re-dispatch of a scheduled message starts its Express execution", () => {
    const lost = outboundMessage({
      send_at: scheduledAt,
      dispatch: { execution: 'msg_1-s1', at: scheduledAt, n: 1 },
    });
    const m = redispatch(lost, T, (n) => executionName(lost.id, n));
    expect(executionStart(m)).toEqual({ name: 'msg_1-d2', machine: 'attempt', input: ids });
  });

  it('a held message whose send_at passed while it was held starts on the Express machine; one still ahead waits in the Standard', () => {
    const held = outboundMessage({ status: 'undispatched', send_at: scheduledAt });
    const late = dispatchHeld(held, T, (n, scheduled) =>
      executionName(held.id, n, scheduled ? 'send' : 'attempt'),
    )!;
    expect(executionStart(late)).toEqual({ name: 'msg_1-d1', machine: 'attempt', input: ids });

    const ahead = T + 3600_000;
    const early = dispatchHeld({ ...held, send_at: ahead }, T, (n, scheduled) =>
      executionName(held.id, n, scheduled ? 'send' : 'attempt'),
    )!;
    expect(executionStart(early)).toEqual({
      name: 'msg_1-s1',
      machine: 'send',
      input: { ...ids, send_at: new Date(ahead).toISOString() },
    });
  });

  it('a back-off of a message that was never scheduled starts its Standard execution, waiting until the retry time', () => {
    const retryAt = T + 90_000;
    const m = outboundMessage({ dispatch: { execution: 'msg_1-s2', at: retryAt, n: 2 } });
    expect(m.send_at).toBeUndefined();
    expect(executionStart(m)).toEqual({
      name: 'msg_1-s2',
      machine: 'send',
      input: { ...ids, send_at: new Date(retryAt).toISOString() },
    });
  });

  it('a scheduled message waits in the Standard machine until its dispatch time, the time Record restarts it with', () => {
    // Record's back-off inside the parent Standard execution keeps its name and moves the time.
    const m = outboundMessage({
      send_at: scheduledAt,
      dispatch: { execution: 'msg_1-s1', at: T + 60_000, n: 1 },
    });
    expect(executionStart(m)?.input.send_at).toBe(new Date(T + 60_000).toISOString());
  });

  it('starts nothing for a message that names no execution', () => {
    expect(executionStart(outboundMessage({ status: 'undispatched' }))).toBeUndefined();
    expect(executionStart(outboundMessage())).toBeUndefined();
    expect(
      executionStart(
        outboundMessage({ status: 'submitted', dispatch: { execution: 'msg_1-d1', at: T, n: 1 } }),
      ),
    ).toBeUndefined();
  });

  it('reads the machine back from the name it minted', () => {
    for (const n of [1, 2, 10]) {
      expect(machineOf(executionName('msg_01HZX', n, 'send'))).toBe('send');
      expect(machineOf(executionName('msg_01HZX', n))).toBe('attempt');
    }
  });
});
