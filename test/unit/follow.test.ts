import { describe, expect, it } from 'vitest';
import { ulidTime } from '../../functions/core/delivery-outbox.ts';
import {
  decodeFollowCursor,
  encodeFollowCursor,
  FOLLOW_SEEN_MAX,
  FOLLOW_SETTLE_MS,
  type FollowPosition,
  followHorizon,
  nextPosition,
  parseAfter,
  waitBackoffMs,
} from '../../functions/core/follow.ts';

/** A message id written at `ms` (the random part picks among ids of one millisecond). */
const id = (ms: number, r = 'a') => `msg_${ulidTime(ms)}${r.repeat(16)}`;
const T = 1_700_000_000_000;
const horizon = followHorizon(T + FOLLOW_SETTLE_MS); // = the prefix of time T

describe('core/follow.ts › nextPosition', () => {
  const cases: {
    name: string;
    pos: FollowPosition;
    ids: string[];
    more: boolean;
    want: FollowPosition;
  }[] = [
    {
      name: 'nothing new: the bound goes up to the horizon',
      pos: { after: id(T - 5000), seen: [] },
      ids: [],
      more: false,
      want: { after: horizon, seen: [] },
    },
    {
      name: 'settled messages only: the bound is the horizon, nothing carried',
      pos: { after: id(T - 5000), seen: [] },
      ids: [id(T - 4000), id(T - 3000)],
      more: false,
      want: { after: horizon, seen: [] },
    },
    {
      name: 'a message newer than the horizon is carried in seen, so it is not given again',
      pos: { after: id(T - 5000), seen: [] },
      ids: [id(T - 4000), id(T + 500)],
      more: false,
      want: { after: horizon, seen: [id(T + 500)] },
    },
    {
      name: 'a message of the horizon’s own millisecond is above the bound (it can still have company)',
      pos: { after: id(T - 5000), seen: [] },
      ids: [id(T, 'b')],
      more: false,
      want: { after: horizon, seen: [id(T, 'b')] },
    },
    {
      name: 'a full page of settled messages: the bound is its last id',
      pos: { after: id(T - 9000), seen: [] },
      ids: [id(T - 8000), id(T - 7000)],
      more: true,
      want: { after: id(T - 7000), seen: [] },
    },
    {
      name: 'a full page that reaches past the horizon: the bound stops at the horizon',
      pos: { after: id(T - 9000), seen: [] },
      ids: [id(T - 8000), id(T + 100)],
      more: true,
      want: { after: horizon, seen: [id(T + 100)] },
    },
    {
      name: 'seen ids the horizon has passed are dropped, newer ones kept',
      pos: { after: id(T - 3000), seen: [id(T - 2500), id(T + 200)] },
      ids: [id(T + 300)],
      more: false,
      want: { after: horizon, seen: [id(T + 200), id(T + 300)] },
    },
    {
      name: 'a bound newer than the horizon (a caller’s fresh message id) never moves back',
      pos: { after: id(T + 900), seen: [] },
      ids: [id(T + 950)],
      more: false,
      want: { after: id(T + 900), seen: [id(T + 950)] },
    },
  ];
  it.each(cases)('$name', ({ pos, ids, more, want }) => {
    expect(nextPosition(pos, { ids, more }, horizon)).toEqual(want);
  });

  it('keeps a cursor’s seen list at FOLLOW_SEEN_MAX in a burst, the oldest becoming the bound', () => {
    const burst = Array.from({ length: FOLLOW_SEEN_MAX + 5 }, (_, n) => id(T + 100 + n));
    const next = nextPosition({ after: id(T - 5000), seen: [] }, { ids: burst, more: false }, horizon);
    expect(next.seen).toHaveLength(FOLLOW_SEEN_MAX);
    expect(next.after).toBe(burst[4]);
    expect(next.seen[0]).toBe(burst[5]);
  });
});

describe('core/follow.ts › cursors', () => {
  it('round-trips a position through its cursor, with the thread it was read for', () => {
    const pos = { after: horizon, seen: [id(T + 1), id(T + 2)] };
    expect(decodeFollowCursor(encodeFollowCursor(pos))).toEqual(pos);
    const threaded = { ...pos, thread: `thr_${ulidTime(T)}${'t'.repeat(16)}` };
    expect(decodeFollowCursor(encodeFollowCursor(threaded))).toEqual(threaded);
    expect(decodeFollowCursor(encodeFollowCursor({ ...pos, thread: 'thr_x' }))).toBeUndefined();
  });

  const bad: [string, string][] = [
    ['not base64 JSON', 'not-a-cursor'],
    ['a JSON that is no position', Buffer.from('{"x":1}').toString('base64url')],
    [
      'a bound that is no message id or time prefix',
      Buffer.from('{"a":"msg_x","s":[]}').toString('base64url'),
    ],
    ['a seen id below the bound', encodeFollowCursor({ after: id(T), seen: [id(T - 1)] }).replace(/=+$/, '')],
    [
      'too many seen ids',
      encodeFollowCursor({
        after: horizon,
        seen: Array.from({ length: FOLLOW_SEEN_MAX + 1 }, (_, n) => id(T + n)),
      }),
    ],
  ];
  it.each(bad)('refuses %s', (_, cursor) => {
    expect(decodeFollowCursor(cursor)).toBeUndefined();
    expect(parseAfter(cursor)).toBeUndefined();
  });

  it('reads a message id as its own position, and a cursor as its position', () => {
    expect(parseAfter(id(T))).toEqual({ type: 'message', position: { after: id(T), seen: [] } });
    const pos = { after: horizon, seen: [] };
    expect(parseAfter(encodeFollowCursor(pos))).toEqual({ type: 'cursor', position: pos });
  });

  it('orders a time prefix below every id of its millisecond and above every earlier id', () => {
    expect(id(T - 1, 'z') < horizon).toBe(true);
    expect(id(T, '0') > horizon).toBe(true);
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
