import { ulidTime } from './delivery-outbox.ts';
import { isId } from './ids.ts';

/**
 * Following a mailbox (docs/guides/receiving.md › Reading on): `GET …/messages?after=` and the MCP
 * tool `wait_for_message`. Message ids sort by the time they were written, so a position in the
 * mailbox is a bound on the message sort key and one Query reads on from it, oldest first.
 *
 * Two writers can commit a few milliseconds out of id order: a reader at the head of the mailbox
 * must not move past an id that can still appear. A position is therefore two things: `after`,
 * below which every message has been read (a message id, or the time prefix `msg_{ulid time}` of
 * the settle horizon), and `seen`, the ids above it the reader has been given already. Each read
 * moves `after` up to the horizon at most and carries the newer ids it returned in `seen`, so a
 * message is returned as soon as it is stored, once, and none is passed over.
 */
export interface FollowPosition {
  after: string;
  seen: string[];
  /** The thread the read that made this cursor was filtered by (and found to be the identity's). */
  thread?: string;
}

/** How long after its id's time a message can still be committed (the id is taken before the write). */
export const FOLLOW_SETTLE_MS = 2000;

/** At most this many ids above `after` ride in a cursor: the messages of the last settle window. */
export const FOLLOW_SEEN_MAX = 100;

/** The time prefix below which every message is stored by `now`: `msg_` + the ULID time of now − settle. */
export const followHorizon = (now: number): string => `msg_${ulidTime(now - FOLLOW_SETTLE_MS)}`;

/** Where a read starts when the caller gives no position: the horizon, so what arrives from now on is new. */
export const followStart = (now: number): FollowPosition => ({ after: followHorizon(now), seen: [] });

/**
 * The position after a read from `pos` that returned `ids` (ascending). `more`: the page was full
 * and stored messages follow its last id, so the reader has read only up to that id; otherwise it
 * has read everything stored, and `after` may go up to the horizon. `after` never moves back.
 */
export function nextPosition(
  pos: FollowPosition,
  page: { ids: string[]; more: boolean },
  horizon: string,
): FollowPosition {
  const last = page.ids[page.ids.length - 1];
  const readTo = page.more && last !== undefined && last < horizon ? last : horizon;
  // Ids and time prefixes compare as strings: the later of the two.
  const after = [readTo, pos.after].sort()[1];
  const seen = [...new Set([...pos.seen, ...page.ids])].filter((id) => id > after).sort();
  // A burst of more than FOLLOW_SEEN_MAX messages in one settle window: the oldest of them become
  // the bound, so the cursor keeps its size.
  if (seen.length > FOLLOW_SEEN_MAX) {
    const cut = seen.length - FOLLOW_SEEN_MAX;
    return { after: seen[cut - 1], seen: seen.slice(cut) };
  }
  return { after, seen };
}

const POSITION_AFTER = /^msg_[0-9a-z]{10}(?:[0-9a-z]{16})?$/;

/** The opaque cursor of a position (base64url JSON): what `after` takes back. */
export function encodeFollowCursor(pos: FollowPosition): string {
  return Buffer.from(JSON.stringify({ a: pos.after, s: pos.seen, t: pos.thread })).toString('base64url');
}

/** A cursor back to its position; undefined when it is not one pmail made. */
export function decodeFollowCursor(cursor: string): FollowPosition | undefined {
  let doc: unknown;
  try {
    doc = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  const { a, s, t } = (doc ?? {}) as { a?: unknown; s?: unknown; t?: unknown };
  if (typeof a !== 'string' || !POSITION_AFTER.test(a)) return undefined;
  if (!Array.isArray(s) || s.length > FOLLOW_SEEN_MAX) return undefined;
  if (!s.every((id) => typeof id === 'string' && isId('message', id) && id > a)) return undefined;
  if (t !== undefined && (typeof t !== 'string' || !isId('thread', t))) return undefined;
  return { after: a, seen: s, ...(t === undefined ? {} : { thread: t }) };
}

/** What `after` names: a message id (its own position) or a cursor; undefined when it is neither. */
export function parseAfter(
  value: string,
): { type: 'message'; position: FollowPosition } | { type: 'cursor'; position: FollowPosition } | undefined {
  if (isId('message', value)) return { type: 'message', position: { after: value, seen: [] } };
  const position = decodeFollowCursor(value);
  return position ? { type: 'cursor', position } : undefined;
}

/** `wait_for_message`: its timeout (seconds) stays inside API Gateway's 29-second integration limit. */
export const WAIT_DEFAULT_SECONDS = 20;
export const WAIT_MAX_SECONDS = 25;

/**
 * The pause after poll `n` (0-based) of a wait: 200 ms, 400 ms, then every 500 ms, so a stored
 * message is seen within a second at any point of the wait.
 */
export const waitBackoffMs = (n: number): number => Math.min(200 * 2 ** n, 500);
