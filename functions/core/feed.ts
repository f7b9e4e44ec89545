/**
 * The rules of pmail's two ordered feeds (docs/design/ordering.md): an identity's messages (the
 * follow of `GET …/messages?after=` and MCP `wait_for_message`) and a tenant's events
 * (`GET /v1/events`, MCP `list_events`). A writer takes the next number of the feed's counter
 * just before its commit and commits a slot at that number in the same transaction as what the slot
 * positions; readers read the slots in number order and never pass a number that has no slot yet.
 */

/**
 * How long a number may stay without its slot before a reader seals it. A writer commits within
 * milliseconds of taking its number; one that has not after this long has died or stalled, and a
 * reader seals the number (a tombstone slot) so the feed moves on. A stalled writer whose number
 * was sealed takes a new one: sealing never loses a write, it only costs that writer a retry.
 */
export const FEED_SEAL_AFTER_MS = 5000;

/** How long an event and its slot are kept (the items' TTL): a gap older than this is history. */
export const EVENT_KEEP_MS = 30 * 24 * 3600 * 1000;

/** At most this many numbers of one gap are sealed per round of a read (a reader's writes stay bounded). */
export const FEED_SEAL_BATCH = 25;

/** How often a writer whose number was sealed under it takes a new one before the refusal goes up. */
export const FEED_WRITE_TRIES = 5;

/**
 * Past this age a gap is history: no writer holds a number this long (it takes its number in the
 * call before its commit, inside one invocation of at most 15 minutes), so a reader passes over it
 * without writing. Where a feed's slots expire (events, after EVENT_KEEP_MS), the numbers below
 * the oldest slot left are such gaps, and a reader from the beginning writes nothing for them.
 */
export const FEED_HISTORY_AFTER_MS = 3_600_000;

/**
 * What a reader does about numbers without a slot, given `boundAt`: the time the first number
 * after the gap was taken (a later slot's, or the counter's), which no number in the gap was taken
 * after.
 * - `wait`: the gap is young; its writers may still commit. The read ends before it.
 * - `seal`: older than FEED_SEAL_AFTER_MS: tombstones go in, and the read goes on.
 * - `history`: older than FEED_HISTORY_AFTER_MS: passed over without writing.
 */
export function gapDecision(boundAt: number, now: number): 'wait' | 'seal' | 'history' {
  if (now - boundAt > FEED_HISTORY_AFTER_MS) return 'history';
  return now - boundAt > FEED_SEAL_AFTER_MS ? 'seal' : 'wait';
}

/** The `count` numbers one `ADD :count` of a feed's counter took, given the value it answered: the block ending there. */
export function numbersOf(last: number, count: number): number[] {
  return Array.from({ length: count }, (_, i) => last - count + 1 + i);
}
