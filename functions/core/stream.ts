import { invalidQuery, ticketMismatch } from './errors.ts';
import type { EventFilter } from './event-access.ts';
import { EVENT_KEEP_MS } from './feed.ts';
import { ID_PATTERNS } from './ids.ts';

/**
 * The event stream's rules (docs/guides/stream.md): its limits, its filters, its frames, its close
 * codes and what the fan-out does about each answer of the gateway. Pure: the handlers
 * (functions/stream/) read the clock and the table and pass what they found.
 */

/** A ticket from `POST /v1/stream/tickets` opens one stream within this long of its minting. */
export const STREAM_TICKET_TTL_MS = 60_000;
/** A heartbeat frame on every open stream this often (the fan-out's schedule on AWS: every minute). */
export const STREAM_HEARTBEAT_MS = 60_000;
/** API Gateway closes a socket with no frame either way for this long (emulated on `npm start`). */
export const STREAM_IDLE_MS = 10 * 60_000;
/** API Gateway closes every socket at this age (emulated on `npm start`). */
export const STREAM_MAX_DURATION_MS = 2 * 3600_000;
/** Open streams per tenant by default; the next one is closed with `connection_limit`. */
export const STREAM_CONNECTIONS_PER_TENANT = 100;
/** What a client may leave unread before it is a slow consumer (the local gateway's bound). */
export const STREAM_SLOW_BYTES = 1024 * 1024;
/** Feed slots one round of the fan-out reads for a connection; the positions are written after each round. */
export const STREAM_PAGE = 100;
/** How long one fan-out holds a tenant's connections on a gateway (its lease) while it posts; a dead holder's lease lapses. */
export const STREAM_LEASE_MS = 15_000;
/** Slots a connection may fall behind with nothing in them for it before a round is run for its position alone. */
export const STREAM_SKIP_WRITE = 100;
/** API Gateway's largest message (128 KB); an event frame above it goes without its `data`. */
export const STREAM_FRAME_MAX_BYTES = 128 * 1024;
/** `types` patterns one stream may name. */
export const STREAM_TYPES_MAX = 20;
/**
 * A gateway answers "gone" for a connection whose `$connect` has not finished: for this long after
 * its connect, "gone" means "not yet", and the frame waits for the next round.
 */
export const STREAM_CONNECT_GRACE_MS = 10_000;
/** Throttled posts to one connection in a row before it counts as a slow consumer. */
export const STREAM_THROTTLED_TRIES = 3;

/**
 * Why pmail closes a stream, and the close code of each (docs/guides/stream.md › Close codes). The
 * last frame before the close is `{ "type": "close", "code", "reason", "after" }`; on API Gateway,
 * which closes with a code of its own, that frame is where the code is read.
 */
export const STREAM_CLOSE = {
  going_away: 1001,
  key_revoked: 4001,
  key_expired: 4002,
  slow_consumer: 4008,
  after_too_old: 4010,
  connection_limit: 4029,
} as const;
export type StreamCloseReason = keyof typeof STREAM_CLOSE;

const CLOSE_MESSAGE: Record<StreamCloseReason, string> = {
  going_away: 'The stream is closing; reconnect with after set to your last event id.',
  key_revoked: 'The key of this stream was revoked.',
  key_expired: 'The key of this stream has expired.',
  slow_consumer: 'The client read too slowly; reconnect with after set to your last event id.',
  after_too_old:
    'after names an event older than the 30 days the feed keeps; read GET /v1/events from its start.',
  connection_limit: 'This tenant has as many open streams as it may.',
};

/** What a stream delivers: core/event-access.ts › EventFilter. */
export type StreamFilter = EventFilter;

const TYPE_PATTERN = /^[a-z_]+(?:\.[a-z_]+)*(?:\.\*)?$/;

/** The `types` parameter (comma-separated) as patterns, or the field errors that refuse it. */
export function parseTypes(csv: string | undefined): string[] | undefined {
  if (csv === undefined || csv.trim() === '') return undefined;
  const patterns = [...new Set(csv.split(',').map((t) => t.trim()))];
  const bad = patterns.filter((t) => !TYPE_PATTERN.test(t));
  if (bad.length > 0 || patterns.length > STREAM_TYPES_MAX) {
    throw invalidQuery([
      {
        path: 'types',
        message:
          bad.length > 0
            ? `not an event type or a prefix like message.*: ${bad.slice(0, 3).join(', ')}`
            : `at most ${STREAM_TYPES_MAX} types`,
      },
    ]);
  }
  return patterns;
}

/**
 * The filter a stream opened with a ticket gets: the ticket's. A parameter given on the URL as well
 * must say the same (a ticket is never widened or changed by its URL); `after` may be on either.
 */
export function ticketFilter(
  ticket: StreamFilter & { after?: string },
  url: StreamFilter & { after?: string },
): StreamFilter & { after?: string } {
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  const differs = (['identity_id', 'thread_id', 'types', 'after'] as const).filter(
    (k) => url[k] !== undefined && ticket[k] !== undefined && !same(url[k], ticket[k]),
  );
  const widens = (['identity_id', 'thread_id', 'types'] as const).filter(
    (k) => url[k] !== undefined && ticket[k] === undefined,
  );
  if (differs.length > 0 || widens.length > 0) {
    throw ticketMismatch([...differs, ...widens]);
  }
  return { ...ticket, ...(url.after !== undefined ? { after: url.after } : {}) };
}

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';

/** The time part of a prefixed ULID id (`evt_…`), in epoch ms. */
export function idTime(id: string): number {
  const ulid = id.slice(id.indexOf('_') + 1, id.indexOf('_') + 11).toLowerCase();
  return [...ulid].reduce((t, c) => t * 32 + CROCKFORD.indexOf(c), 0);
}

/**
 * Whether `after` is older than the feed keeps: an event id the tenant's outbox does not hold any
 * more, minted more than EVENT_KEEP_MS ago. An unknown younger id reads from the feed's start, as
 * `GET /v1/events` does.
 */
export function afterTooOld(after: string, found: boolean, now: number): boolean {
  return ID_PATTERNS.event.test(after) && !found && now - idTime(after) > EVENT_KEEP_MS;
}

/** When a key stops authenticating by itself (its expiry, or its secret's end after a rotation); none: never. */
export function keyEndsAt(key: { expires_at?: number; secret_expires_at?: number }): number | undefined {
  const ends = [key.expires_at, key.secret_expires_at].filter((t): t is number => t !== undefined);
  return ends.length > 0 ? Math.min(...ends) : undefined;
}

/** The Event object of `GET /v1/events`, as a frame carries it. */
export interface EventView {
  id: string;
  type: string;
  created_at: string;
  data: Record<string, unknown>;
}

export type StreamFrame =
  | { type: 'event'; event: EventView; data_omitted?: true }
  | { type: 'heartbeat'; at: string }
  | { type: 'close'; code: number; reason: StreamCloseReason; message: string; after: string | null };

/** An outbox event as `GET /v1/events` and the stream show it. */
export function toEventView(e: {
  id: string;
  type: string;
  created_at: number;
  data: Record<string, unknown>;
}): EventView {
  return { id: e.id, type: e.type, created_at: new Date(e.created_at).toISOString(), data: e.data };
}

/** An event's frame as sent; one above STREAM_FRAME_MAX_BYTES goes without its data (read it by id). */
export function eventFrameText(event: EventView): string {
  const text = JSON.stringify({ type: 'event', event } satisfies StreamFrame);
  if (Buffer.byteLength(text) <= STREAM_FRAME_MAX_BYTES) return text;
  return JSON.stringify({
    type: 'event',
    event: { ...event, data: {} },
    data_omitted: true,
  } satisfies StreamFrame);
}

export const heartbeatFrameText = (now: number): string =>
  JSON.stringify({ type: 'heartbeat', at: new Date(now).toISOString() } satisfies StreamFrame);

/** The last frame of a stream pmail closes: its code, why, and the last event id sent (resume after it). */
export function closeFrame(reason: StreamCloseReason, after: string | undefined): StreamFrame {
  return {
    type: 'close',
    code: STREAM_CLOSE[reason],
    reason,
    message: CLOSE_MESSAGE[reason],
    after: after ?? null,
  };
}

/** What a gateway answered to one post. */
export type PostResult = 'ok' | 'gone' | 'slow' | 'throttled';

/**
 * What the fan-out does after a post: `next` frame; `retry` this frame shortly (throttled, under
 * STREAM_THROTTLED_TRIES in a row); `later` (stop the round, leave the position at the last frame
 * sent: a connection whose connect has not finished); `drop` the connection (it is gone); `close`
 * it as a slow consumer.
 */
export function afterPost(
  result: PostResult,
  ctx: { connectedAt: number; now: number; throttledInARow: number },
): 'next' | 'retry' | 'later' | 'drop' | 'close' {
  if (result === 'ok') return 'next';
  if (result === 'gone') return ctx.now - ctx.connectedAt < STREAM_CONNECT_GRACE_MS ? 'later' : 'drop';
  if (result === 'throttled') return ctx.throttledInARow < STREAM_THROTTLED_TRIES ? 'retry' : 'close';
  return 'close';
}

/**
 * Why the schedule closes an open stream now: its key revoked, its key's end passed, or its
 * 2-hour age (API Gateway's limit, which `npm start` keeps too); undefined: keep it open.
 */
export function closeReasonAt(
  conn: { connected_at: number; key_ends_at?: number },
  keyProblem: 'key_revoked' | 'key_expired' | undefined,
  now: number,
): StreamCloseReason | undefined {
  if (keyProblem) return keyProblem;
  if (conn.key_ends_at !== undefined && conn.key_ends_at <= now) return 'key_expired';
  return now - conn.connected_at >= STREAM_MAX_DURATION_MS ? 'going_away' : undefined;
}
