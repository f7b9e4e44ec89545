/**
 * The filters of the message and thread lists (docs/design/search.md › Filters): what a message or
 * a thread must match, and the message-id bounds of a time range. Pure.
 *
 * - `label`: one of its labels, exactly.
 * - `from`, `to`: an address (any case), or a domain (`example.com`: any address at it); `to`
 *   matches To and Cc (a thread: any participant, `from` alike).
 * - `subject`: a substring, case- and accent-insensitive.
 * - `since`, `until`: its time (a message's creation, a thread's latest message) in [since, until].
 * - `has_attachment`: whether it has one (messages only).
 */
export interface ListFilter {
  label?: string;
  from?: string;
  to?: string;
  subject?: string;
  since?: number;
  until?: number;
  has_attachment?: boolean;
}

/** How many messages (threads) one filtered page reads at most: past it the page ends early with a cursor. */
export const MAX_FILTER_SCAN = 500;

/** Whether the filter needs each item looked at (a time range alone is a key range). */
export const filtersItems = (f: ListFilter): boolean =>
  f.label !== undefined ||
  f.from !== undefined ||
  f.to !== undefined ||
  f.subject !== undefined ||
  f.has_attachment !== undefined;

const fold = (s: string) => s.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();

function addressMatches(address: string, wanted: string): boolean {
  const a = address.toLowerCase();
  const w = wanted.toLowerCase();
  return w.includes('@') ? a === w : a.endsWith(`@${w}`);
}

function inRange(at: number, f: ListFilter): boolean {
  return (f.since === undefined || at >= f.since) && (f.until === undefined || at <= f.until);
}

/** A message as the list shows it (openapi.yaml › Message, summary). */
export interface FilteredMessage {
  from: { address: string };
  to: { address: string }[];
  cc: { address: string }[];
  subject: string;
  labels: readonly string[];
  attachments: readonly unknown[];
  /** When it was written (the view's `received_at`: a received message's arrival, a sent one's creation). */
  received_at: string | null;
}

export function messageMatches(m: FilteredMessage, f: ListFilter): boolean {
  return (
    (f.label === undefined || m.labels.includes(f.label)) &&
    (f.from === undefined || addressMatches(m.from.address, f.from)) &&
    (f.to === undefined || [...m.to, ...m.cc].some((r) => addressMatches(r.address, f.to!))) &&
    (f.subject === undefined || fold(m.subject).includes(fold(f.subject))) &&
    (f.has_attachment === undefined || m.attachments.length > 0 === f.has_attachment) &&
    inRange(Date.parse(m.received_at ?? ''), f)
  );
}

/** A thread as the list shows it (openapi.yaml › ThreadSummary). */
export interface FilteredThread {
  participants: readonly string[];
  subject: string;
  labels: readonly string[];
  last_message_at: string;
}

export function threadMatches(t: FilteredThread, f: ListFilter): boolean {
  const anyone = (w: string) => t.participants.some((p) => addressMatches(p, w));
  return (
    (f.label === undefined || t.labels.includes(f.label)) &&
    (f.from === undefined || anyone(f.from)) &&
    (f.to === undefined || anyone(f.to)) &&
    (f.subject === undefined || fold(t.subject).includes(fold(f.subject))) &&
    inRange(Date.parse(t.last_message_at), f)
  );
}

/**
 * The message ids a time range spans: ids are ULIDs, their first 10 characters the time they were
 * minted, so `[since, until]` is a range of the partition's sort keys (bounds inclusive).
 */
export function messageIdBounds(f: ListFilter): { low?: string; high?: string } {
  const at = (t: number) => `msg_${ulidTime(t)}`;
  return {
    ...(f.since !== undefined ? { low: at(f.since) } : {}),
    ...(f.until !== undefined ? { high: `${at(f.until)}~` } : {}),
  };
}

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';

/** A ULID's time part (10 lower-case Crockford base-32 digits) for `t` ms, clamped to the ULID's range. */
export function ulidTime(t: number): string {
  let n = Math.min(Math.max(0, Math.floor(t)), 2 ** 48 - 1);
  let out = '';
  for (let i = 0; i < 10; i++) {
    out = CROCKFORD[n % 32] + out;
    n = Math.floor(n / 32);
  }
  return out;
}
