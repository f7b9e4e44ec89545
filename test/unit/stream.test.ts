import { ulid } from 'ulid';
import { describe, expect, it } from 'vitest';
import { PmailError } from '../../functions/core/errors.ts';
import { eventSelected, mayReadEvent, refOf, typeMatches } from '../../functions/core/event-access.ts';
import { EVENT_KEEP_MS } from '../../functions/core/feed.ts';
import {
  afterPost,
  afterTooOld,
  closeReasonAt,
  eventFrameText,
  idTime,
  keyEndsAt,
  parseTypes,
  STREAM_CONNECT_GRACE_MS,
  STREAM_FRAME_MAX_BYTES,
  STREAM_MAX_DURATION_MS,
  STREAM_THROTTLED_TRIES,
  ticketFilter,
} from '../../functions/core/stream.ts';

/** The stream's rules (core/stream.ts, core/event-access.ts) as tables. */
const A = 'idn_a';
const B = 'idn_b';
const tenantKey = {};
const agentKey = { identity_ids: [A] };

describe('who reads which event (core/event-access.ts)', () => {
  it.each([
    ['a tenant key, an identity’s event', tenantKey, { type: 'message.delivered', identity_id: A }, true],
    ['a tenant key, a tenant-wide event', tenantKey, { type: 'suppression.created' }, true],
    ['an identity key, its own identity’s', agentKey, { type: 'message.delivered', identity_id: A }, true],
    ['an identity key, another identity’s', agentKey, { type: 'message.delivered', identity_id: B }, false],
    ['an identity key, a tenant-wide event', agentKey, { type: 'suppression.created' }, false],
    ['an identity key, a tenant quota warning', agentKey, { type: 'quota.warning' }, false],
  ])('%s → %s', (_, reader, ref, expected) => {
    expect(mayReadEvent(reader, ref)).toBe(expected);
  });

  it('reads an event’s reference from its data (ids as strings only)', () => {
    expect(refOf({ type: 'message.received', data: { identity_id: A, thread_id: 'thr_x' } })).toEqual({
      type: 'message.received',
      identity_id: A,
      thread_id: 'thr_x',
    });
    expect(refOf({ type: 'quota.warning', data: { identity_id: null } })).toEqual({
      type: 'quota.warning',
      identity_id: undefined,
      thread_id: undefined,
    });
  });

  it.each([
    [['message.*'], 'message.delivered', true],
    [['message.*'], 'messages.x', false],
    [['message.*'], 'message', false],
    [['message.delivered'], 'message.delivered', true],
    [['message.delivered'], 'message.deferred', false],
    [['quota.*', 'suppression.created'], 'suppression.created', true],
  ])('types %j select %s → %s', (patterns, type, expected) => {
    expect(typeMatches(patterns, type)).toBe(expected);
  });

  it.each([
    ['no filter', tenantKey, {}, { type: 'x.y', identity_id: B }, true],
    [
      'identity filter, another identity',
      tenantKey,
      { identity_id: A },
      { type: 'x.y', identity_id: B },
      false,
    ],
    [
      'thread filter, its thread',
      tenantKey,
      { thread_id: 'thr_1' },
      { type: 'x.y', thread_id: 'thr_1' },
      true,
    ],
    ['thread filter, an event naming none', tenantKey, { thread_id: 'thr_1' }, { type: 'x.y' }, false],
    ['a filter never widens a key', agentKey, { identity_id: B }, { type: 'x.y', identity_id: B }, false],
  ])('%s', (_, reader, filter, ref, expected) => {
    expect(eventSelected(reader, filter, ref)).toBe(expected);
  });
});

describe('the stream’s parameters', () => {
  it('parses types, refusing what is no type or prefix and more than 20', () => {
    expect(parseTypes(undefined)).toBeUndefined();
    expect(parseTypes('message.*, quota.warning,message.*')).toEqual(['message.*', 'quota.warning']);
    for (const bad of [
      'message.**',
      '*',
      'Message.x',
      'a,b c',
      Array.from({ length: 21 }, (_, i) => `t.a${'x'.repeat(i)}`).join(','),
    ])
      expect(() => parseTypes(bad), bad).toThrow(PmailError);
  });

  it.each([
    ['the ticket’s filter, a URL naming nothing', { types: ['message.*'] }, {}, { types: ['message.*'] }],
    ['the URL repeating it', { identity_id: A }, { identity_id: A }, { identity_id: A }],
    ['after on the URL', { identity_id: A }, { after: 'evt_1' }, { identity_id: A, after: 'evt_1' }],
  ])('a ticket opens with %s', (_, ticket, url, expected) => {
    expect(ticketFilter(ticket, url)).toEqual(expected);
  });

  it.each([
    ['another identity', { identity_id: A }, { identity_id: B }],
    ['a filter the ticket does not have', {}, { thread_id: 'thr_1' }],
    ['other types', { types: ['message.*'] }, { types: ['quota.*'] }],
  ])('a ticket refuses a URL with %s', (_, ticket, url) => {
    expect(() => ticketFilter(ticket, url)).toThrow(expect.objectContaining({ code: 'invalid_request' }));
  });

  it('reads an id’s time and calls an unknown after older than the feed keeps too old', () => {
    const now = 1_800_000_000_000;
    const at = (t: number) => `evt_${ulid(t).toLowerCase()}`;
    expect(idTime(at(now))).toBe(now);
    expect(afterTooOld(at(now - EVENT_KEEP_MS - 1), false, now)).toBe(true);
    expect(afterTooOld(at(now - EVENT_KEEP_MS - 1), true, now)).toBe(false);
    expect(afterTooOld(at(now - 1000), false, now)).toBe(false);
  });

  it('ends with a key’s expiry or its secret’s, whichever is first', () => {
    expect(keyEndsAt({})).toBeUndefined();
    expect(keyEndsAt({ expires_at: 5, secret_expires_at: 3 })).toBe(3);
  });
});

describe('what the fan-out does', () => {
  const ctx = { connectedAt: 0, now: STREAM_CONNECT_GRACE_MS + 1, throttledInARow: 1 };
  it.each([
    ['ok', ctx, 'next'],
    ['gone', ctx, 'drop'],
    ['gone', { ...ctx, now: STREAM_CONNECT_GRACE_MS - 1 }, 'later'],
    ['throttled', ctx, 'retry'],
    ['throttled', { ...ctx, throttledInARow: STREAM_THROTTLED_TRIES }, 'close'],
    ['slow', ctx, 'close'],
  ] as const)('after a post answered %s → %s', (result, c, step) => {
    expect(afterPost(result, c)).toBe(step);
  });

  it.each([
    ['its key revoked', { connected_at: 0 }, 'key_revoked' as const, 10, 'key_revoked'],
    ['its key ended', { connected_at: 0, key_ends_at: 10 }, undefined, 10, 'key_expired'],
    ['its key ends later', { connected_at: 0, key_ends_at: 11 }, undefined, 10, undefined],
    ['at two hours', { connected_at: 0 }, undefined, STREAM_MAX_DURATION_MS, 'going_away'],
    ['younger', { connected_at: 0 }, undefined, STREAM_MAX_DURATION_MS - 1, undefined],
  ])('the schedule closes a stream for %s', (_, conn, problem, now, expected) => {
    expect(closeReasonAt(conn, problem, now)).toBe(expected);
  });

  it('sends an event above the frame limit without its data', () => {
    const view = {
      id: 'evt_1',
      type: 'x.y',
      created_at: 'now',
      data: { big: 'b'.repeat(STREAM_FRAME_MAX_BYTES) },
    };
    expect(JSON.parse(eventFrameText(view))).toEqual({
      type: 'event',
      event: { ...view, data: {} },
      data_omitted: true,
    });
    expect(JSON.parse(eventFrameText({ ...view, data: { a: 1 } }))).toEqual({
      type: 'event',
      event: { ...view, data: { a: 1 } },
    });
  });
});
