import { isId } from './ids.ts';

/**
 * Following a mailbox (docs/guides/receiving.md › Reading on): `GET …/messages?after=` and the MCP
 * tool `wait_for_message`. A position is a number of the identity's message feed
 * (docs/design/ordering.md): every message takes the next number in the write that commits it, so
 * a reader that has read up to a number has been given every message committed before it read,
 * and whatever commits later, however long after its id was minted, has a higher number.
 */
export interface FollowPosition {
  /** The number read up to; `head`: wherever the feed is when the read starts (what follows is new). */
  position: number | 'head';
  /** The thread the read that made this cursor was filtered by (and found to be the identity's). */
  thread?: string;
}

/** The position of a reader that counts only what is committed from now on. */
export const FOLLOW_HEAD: FollowPosition = { position: 'head' };

/** The opaque cursor of a position (base64url JSON): what `after` takes back. */
export function encodeFollowCursor(pos: FollowPosition): string {
  const at = pos.position === 'head' ? { h: 1 } : { p: pos.position };
  return Buffer.from(JSON.stringify({ ...at, t: pos.thread })).toString('base64url');
}

/** The time-ordered cursors made before the feed had numbers: `{a: "msg_…" or its time prefix, s: [ids]}`. */
const TIME_CURSOR = /^msg_[0-9a-z]{10}(?:[0-9a-z]{16})?$/;

/**
 * A cursor back to its position; undefined when it is not one pmail made. A time-ordered cursor
 * (made before messages had numbers) reads from the feed's beginning: every numbered message was
 * committed after it.
 */
export function decodeFollowCursor(cursor: string): FollowPosition | undefined {
  let doc: unknown;
  try {
    doc = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  const { p, h, a, s, t } = (doc ?? {}) as Record<string, unknown>;
  if (t !== undefined && (typeof t !== 'string' || !isId('thread', t))) return undefined;
  const thread = t === undefined ? {} : { thread: t as string };
  if (Number.isSafeInteger(p) && (p as number) >= 0) return { position: p as number, ...thread };
  if (h === 1) return { position: 'head', ...thread };
  if (typeof a === 'string' && TIME_CURSOR.test(a) && Array.isArray(s)) return { position: 0, ...thread };
  return undefined;
}

/** What `after` names: a message id (read on from that message) or a cursor; undefined when it is neither. */
export function parseAfter(
  value: string,
): { type: 'message'; id: string } | { type: 'cursor'; position: FollowPosition } | undefined {
  if (isId('message', value)) return { type: 'message', id: value };
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
