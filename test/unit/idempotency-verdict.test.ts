import { describe, expect, it } from 'vitest';
import { PmailError } from '../../functions/core/errors.ts';
import {
  afterLostTakeover,
  afterRefusedPut,
  type KeyState,
  type KeyVerdict,
  keyVerdict,
  storedAnswer,
} from '../../functions/core/idempotency.ts';

/** The Idempotency-Key's verdicts (core/idempotency.ts), one table each. */
describe('idempotency verdict', () => {
  const now = 1_000_000;
  const answer = () => '{"id":"msg_1"}';
  const completed = (over: Partial<KeyState> = {}): KeyState => ({
    state: 'completed',
    fingerprint: 'fp',
    message_id: 'msg_1',
    expires_at: now + 1,
    ...over,
  });
  const running = (over: Partial<KeyState> = {}): KeyState => ({
    state: 'in_progress',
    fingerprint: 'fp',
    message_id: 'msg_1',
    lease_until: now + 1,
    expires_at: now + 1,
    ...over,
  });

  it('decides a key item for a request: free, replay, conflict or still running', () => {
    const cases: [string, KeyState | undefined, string, KeyVerdict][] = [
      ['no item', undefined, 'fp', { type: 'absent' }],
      ['expired', completed({ expires_at: now }), 'fp', { type: 'absent' }],
      [
        'completed, same request',
        completed(),
        'fp',
        { type: 'replay', response: answer(), message_id: 'msg_1' },
      ],
      ['completed, another request', completed(), 'other', { type: 'conflict', message_id: 'msg_1' }],
      ['running, lease on', running(), 'fp', { type: 'in_progress' }],
      ['running, another request, lease on', running(), 'other', { type: 'in_progress' }],
      ['running, lease passed', running({ lease_until: now }), 'fp', { type: 'absent' }],
      ['running, no lease', running({ lease_until: undefined }), 'fp', { type: 'absent' }],
    ];
    for (const [name, item, fingerprint, verdict] of cases) {
      expect([name, keyVerdict(item, fingerprint, now, answer)]).toEqual([name, verdict]);
    }
  });

  it('decodes the stored answer only for a replay', () => {
    let decoded = 0;
    const count = () => {
      decoded++;
      return 'x';
    };
    keyVerdict(completed(), 'other', now, count);
    keyVerdict(running(), 'fp', now, count);
    expect(decoded).toBe(0);
    keyVerdict(completed(), 'fp', now, count);
    expect(decoded).toBe(1);
  });

  it("after a refused put: takes over a passed lease of the same request, never another's message", () => {
    const cases: [string, KeyState | undefined, string, ReturnType<typeof afterRefusedPut>][] = [
      ['refused by nothing read', undefined, 'fp', { type: 'in_progress' }],
      [
        'completed, same request',
        completed(),
        'fp',
        { type: 'replay', response: answer(), message_id: 'msg_1' },
      ],
      ['completed, another request', completed(), 'other', { type: 'conflict', message_id: 'msg_1' }],
      ['running', running(), 'fp', { type: 'in_progress' }],
      ['lease passed, same request', running({ lease_until: now }), 'fp', { type: 'take_over' }],
      ['lease passed, another request', running({ lease_until: now }), 'other', { type: 'conflict' }],
      [
        'lease passed, no message named',
        running({ lease_until: now, message_id: undefined }),
        'other',
        { type: 'take_over' },
      ],
      ['expired item', completed({ expires_at: now }), 'fp', { type: 'take_over' }],
    ];
    for (const [name, old, fingerprint, next] of cases) {
      expect([name, afterRefusedPut(old, fingerprint, now, answer)]).toEqual([name, next]);
    }
  });

  it('after a lost takeover: a free key is another takeover in flight', () => {
    expect(afterLostTakeover({ type: 'absent' })).toEqual({ type: 'in_progress' });
    expect(afterLostTakeover({ type: 'conflict' })).toEqual({ type: 'conflict' });
  });

  it('answers a verdict: nothing for a free key, the stored answer, or 409 by name', () => {
    expect(storedAnswer({ type: 'absent' })).toBeUndefined();
    expect(storedAnswer({ type: 'replay', response: 'r', message_id: 'm' })).toBe('r');
    const refusal = (v: KeyVerdict) => {
      try {
        storedAnswer(v);
      } catch (err) {
        return err as PmailError;
      }
      throw new Error('no refusal');
    };
    const conflict = refusal({ type: 'conflict', message_id: 'msg_1' });
    expect(conflict).toBeInstanceOf(PmailError);
    expect(conflict).toMatchObject({
      code: 'idempotency_conflict',
      message: 'This Idempotency-Key was used for a different request.',
      details: { original_message_id: 'msg_1' },
    });
    expect(refusal({ type: 'conflict' }).details).toEqual({});
    expect(refusal({ type: 'in_progress' }).code).toBe('request_in_progress');
  });
});
