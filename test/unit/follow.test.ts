import { describe, expect, it } from 'vitest';
import { ulidTime } from '../../functions/core/delivery-outbox.ts';
import {
  EVENT_KEEP_MS,
  FEED_HISTORY_AFTER_MS,
  FEED_SEAL_AFTER_MS,
  gapDecision,
  numbersOf,
} from '../../functions/core/feed.ts';
import {
  decodeFollowCursor,
  encodeFollowCursor,
  FOLLOW_HEAD,
  parseAfter,
  waitBackoffMs,
} from '../../functions/core/follow.ts';

const T = 1_700_000_000_000;
const id = (ms: number, r = 'a') => `msg_${ulidTime(ms)}${r.repeat(16)}`;
const thread = `thr_${ulidTime(T)}${'t'.repeat(16)}`;
const b64 = (doc: unknown) => Buffer.from(JSON.stringify(doc)).toString('base64url');

describe('core/feed.ts › gapDecision', () => {
  const cases: [string, number, ReturnType<typeof gapDecision>][] = [
    ['a number taken just now: its writer may still commit', 0, 'wait'],
    ['exactly the seal delay: still waits', FEED_SEAL_AFTER_MS, 'wait'],
    ['past the seal delay: sealed', FEED_SEAL_AFTER_MS + 1, 'seal'],
    ['ten minutes (a stalled writer): sealed', 600_000, 'seal'],
    ['exactly an hour: sealed', FEED_HISTORY_AFTER_MS, 'seal'],
    ['past an hour: history, passed over without a write', FEED_HISTORY_AFTER_MS + 1, 'history'],
    ['older than the events’ retention (their slots expired): history', EVENT_KEEP_MS + 1, 'history'],
  ];
  it.each(cases)('%s', (_, age, want) => {
    expect(gapDecision(T - age, T)).toBe(want);
  });
});

describe('core/feed.ts › numbersOf', () => {
  it.each([
    [1, 1, [1]],
    [7, 3, [5, 6, 7]],
    [2, 2, [1, 2]],
  ])('an ADD answering %i after taking %i took %j', (last, count, want) => {
    expect(numbersOf(last, count)).toEqual(want);
  });
});

describe('core/follow.ts › cursors', () => {
  it('round-trips a position, the head and the thread it was read for', () => {
    for (const pos of [
      { position: 0 },
      { position: 42, thread },
      FOLLOW_HEAD,
      { position: 'head' as const, thread },
    ])
      expect(decodeFollowCursor(encodeFollowCursor(pos))).toEqual(pos);
  });

  it('reads a time-ordered cursor (made before messages had numbers) from the beginning, its thread kept', () => {
    expect(decodeFollowCursor(b64({ a: id(T), s: [], t: thread }))).toEqual({ position: 0, thread });
    expect(decodeFollowCursor(b64({ a: `msg_${ulidTime(T)}`, s: [id(T + 1)] }))).toEqual({ position: 0 });
  });

  const bad: [string, string][] = [
    ['not base64 JSON', 'not-a-cursor'],
    ['a JSON that is no position', b64({ x: 1 })],
    ['a negative number', b64({ p: -1 })],
    ['a number that is no integer', b64({ p: 1.5 })],
    ['a number as a string', b64({ p: '3' })],
    ['a thread that is no thread id', b64({ p: 3, t: 'thr_x' })],
    ['a time-ordered bound that is no message id or time prefix', b64({ a: 'msg_x', s: [] })],
  ];
  it.each(bad)('refuses %s', (_, cursor) => {
    expect(decodeFollowCursor(cursor)).toBeUndefined();
    expect(parseAfter(cursor)).toBeUndefined();
  });

  it('reads a message id as a message to look up, and a cursor as its position', () => {
    expect(parseAfter(id(T))).toEqual({ type: 'message', id: id(T) });
    expect(parseAfter(encodeFollowCursor({ position: 7 }))).toEqual({
      type: 'cursor',
      position: { position: 7 },
    });
  });
});

describe('core/follow.ts › waitBackoffMs', () => {
  it.each([
    [0, 200],
    [1, 400],
    [2, 500],
    [3, 500],
    [20, 500],
  ])('poll %i waits %i ms after it', (n, ms) => {
    expect(waitBackoffMs(n)).toBe(ms);
  });
});
