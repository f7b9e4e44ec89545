import { FEED_SEAL_BATCH, FEED_WRITE_TRIES, gapDecision, numbersOf } from '../core/feed.ts';
import {
  type Db,
  isConditionFailed,
  isOutcomeUnknown,
  isTransactionCanceled,
  type TransactItem,
} from './db.ts';

/**
 * The ordered feeds (docs/design/ordering.md): an identity's messages and a tenant's events, read
 * in the order they were committed. Each feed has a counter item and one slot item per number:
 *
 * - a writer takes the next number(s) with one unconditional `ADD` on the counter, just before its
 *   commit (`transactAt`), and commits a slot at each number in the same TransactWriteItems as the
 *   items it positions, the slot conditioned on its absence; the positioned item keeps its number
 *   (`pos`);
 * - a reader (`readFeed`) reads the slots from a number on, in order, and stops at the first number
 *   without a slot; a gap older than FEED_SEAL_AFTER_MS it seals with a tombstone slot. A writer
 *   whose slot was sealed takes a new number and commits again.
 *
 * So a reader that has read up to `p` has seen every slot up to `p`, and anything committed later
 * has a number above `p`, whatever happened between minting its id and committing it.
 *
 * Items: the counter `{pk}` / `{prefix}N` (`n` the last number taken, `t` when), the slots
 * `{pk}` / `{prefix}{n, 15 digits}` (`at` when their number was taken, what they position, or
 * `sealed`). The counter sorts after every slot, so one Query from `p + 1` reads the slots and ends
 * with the counter: a number taken with no slot after the last one is seen in the same read.
 */
export interface Feed {
  pk: string;
  prefix: string;
  /** The slots' retention (their TTL); none: kept as long as the items they position. */
  keepMs?: number;
}

/** An identity's messages: what `GET …/messages?after=` and `wait_for_message` follow. */
export const identityFeed = (identityId: string): Feed => ({ pk: `I#${identityId}`, prefix: 'F#' });

const SLOT = 'feed_slot';
const slotSk = (feed: Feed, n: number) => `${feed.prefix}${String(n).padStart(15, '0')}`;
const counterSk = (feed: Feed) => `${feed.prefix}N`;
const ttlOf = (feed: Feed, at: number) =>
  feed.keepMs === undefined ? {} : { ttl: Math.ceil((at + feed.keepMs) / 1000) };

/** What a slot names: the positioned item's id and what a reader filters on (plain strings). */
export type SlotNames = Record<string, string | undefined>;

/** A Put to position on a feed: `now` is the time its number is taken (a clock read at the commit). */
export interface FeedEntry {
  feed: Feed;
  now: number;
  names: SlotNames;
}

const ENTRY = Symbol('feed entry');
type Marked = TransactItem & { [ENTRY]?: FeedEntry };

/** `item` (a Put of one TransactWriteItems) to be positioned on a feed by `transactAt`. */
export function onFeed<T extends TransactItem>(item: T, entry: FeedEntry): T {
  return Object.assign({ ...item }, { [ENTRY]: entry });
}

const BUILT = Symbol('built from a position');
type Built = TransactItem & { [BUILT]?: { of: TransactItem; build: (pos: number) => TransactItem } };

/**
 * An item of the same transaction as `of` (an `onFeed` item, the same object), built by `transactAt`
 * from the number `of` takes: another item that records that position (a thread's qualifying
 * answers, core/unless-reply.ts) commits with it.
 */
export function atPositionOf(of: TransactItem, build: (pos: number) => TransactItem): TransactItem {
  return Object.assign({ ...build(0) }, { [BUILT]: { of, build } });
}

/**
 * Run a TransactWriteItems whose `onFeed` items are positioned: their numbers taken (one `ADD` per
 * feed), `pos` set on each, and each one's slot appended after the caller's items, so a caller's
 * reading of its cancellation reasons by position is unchanged. Items without an entry are written
 * as given; without any, it is a plain transaction.
 *
 * A transaction (docs/lost-answers.md): resent by the table's client with its ClientRequestToken.
 * Cancelled on a slot alone (a reader sealed the number: the writer was slower than
 * FEED_SEAL_AFTER_MS), it takes new numbers, no earlier than the time the sealer wrote, and
 * commits again. Any other failure seals this attempt's numbers at once (best effort: the readers
 * behind them need not wait) and goes up as it came. After a lost answer the seal also settles the
 * outcome (a slot there is the commit; a tombstone means the transaction never applies), and the
 * caller re-reads to recognise its own commit.
 */
export async function transactAt(db: Db, items: TransactItem[]): Promise<void> {
  const given = items.map((item) => (item as Marked)[ENTRY]);
  const unpositioned = items.find((item, i) => !given[i] && item.Put?.Item?.type === 'event');
  if (unpositioned) throw new Error('an outbox event is written without its position (events.store.ts)');
  if (!given.some(Boolean)) {
    await db.transact({ TransactItems: items });
    return;
  }
  let entries = given;
  for (let attempt = 1; ; attempt++) {
    const numbers = await takeNumbers(db, entries);
    const slots = entries.flatMap((e, i) => (e ? [slotPut(db, e, numbers[i]!)] : []));
    const sent = items.map((item, i) => {
      const built = (item as Built)[BUILT];
      if (built) return built.build(numbers[items.indexOf(built.of)]!);
      const n = numbers[i];
      return n === undefined ? item : { Put: { ...item.Put!, Item: { ...item.Put!.Item, pos: n } } };
    });
    try {
      await db.transact({ TransactItems: [...sent, ...slots] as TransactItem[] });
      return;
    } catch (err) {
      await Promise.all(
        entries.map((e, i) => (e ? sealPosition(db, e.feed, numbers[i]!, e.now).catch(() => {}) : undefined)),
      );
      const sealedAt = sealedUnder(err, items.length);
      if (attempt >= FEED_WRITE_TRIES || sealedAt === undefined) throw err;
      // Taken again no earlier than the reader that sealed it saw the time: this writer is late.
      entries = entries.map((e) => e && { ...e, now: Math.max(e.now, sealedAt) });
    }
  }
}

/** The slot of a positioned item: it must not exist (a reader may have sealed the number). */
function slotPut(db: Db, e: FeedEntry, n: number): TransactItem {
  const names = Object.fromEntries(Object.entries(e.names).filter(([, v]) => v !== undefined));
  return {
    Put: {
      TableName: db.table,
      Item: {
        pk: e.feed.pk,
        sk: slotSk(e.feed, n),
        type: SLOT,
        n,
        at: e.now,
        ...names,
        ...ttlOf(e.feed, e.now),
      },
      ConditionExpression: 'attribute_not_exists(pk)',
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    },
  };
}

/**
 * Cancelled only because a reader sealed a slot's number (every item of the caller's passed): the
 * latest time a sealer wrote on them; undefined for any other failure.
 */
function sealedUnder(err: unknown, callerItems: number): number | undefined {
  if (!isTransactionCanceled(err)) return undefined;
  const reasons = err.CancellationReasons ?? [];
  const passed = (r: { Code?: string } | undefined) => !r?.Code || r.Code === 'None';
  // A conflict on a slot is a reader's seal of that number in flight.
  const sealed = reasons
    .slice(callerItems)
    .filter((r) => r.Code === 'ConditionalCheckFailed' || r.Code === 'TransactionConflict');
  if (!reasons.slice(0, callerItems).every(passed) || sealed.length === 0) return undefined;
  return Math.max(...sealed.map((r) => Number(r.Item?.at ?? 0)));
}

/** The numbers of the entries (undefined where none): one `ADD` per feed, all feeds at once. */
async function takeNumbers(db: Db, entries: (FeedEntry | undefined)[]): Promise<(number | undefined)[]> {
  const byFeed = new Map<string, number[]>();
  entries.forEach((e, i) => {
    if (!e) return;
    const key = `${e.feed.pk}\n${e.feed.prefix}`;
    byFeed.set(key, [...(byFeed.get(key) ?? []), i]);
  });
  const out: (number | undefined)[] = entries.map(() => undefined);
  await Promise.all(
    [...byFeed.values()].map(async (at) => {
      const first = entries[at[0]]!;
      const last = await takeNumber(db, first.feed, at.length, Math.max(...at.map((i) => entries[i]!.now)));
      numbersOf(last, at.length).forEach((n, k) => {
        out[at[k]] = n;
      });
    }),
  );
  return out;
}

/** How often a take whose answers keep getting lost is sent before the error goes up. */
const TAKE_SENDS = 3;

/**
 * Take `count` numbers of the feed: the counter's `ADD`, answering the last number taken. A count
 * (docs/lost-answers.md): never sent again. An unknown outcome takes anew; whatever the lost `ADD`
 * took has no slot and stays a gap, which readers seal.
 */
async function takeNumber(db: Db, feed: Feed, count: number, now: number): Promise<number> {
  for (let send = 1; ; send++) {
    try {
      const out = await db.update({
        TableName: db.table,
        Key: { pk: feed.pk, sk: counterSk(feed) },
        UpdateExpression: 'ADD n :count SET t = :now, #type = :type',
        ExpressionAttributeNames: { '#type': 'type' },
        ExpressionAttributeValues: { ':count': count, ':now': now, ':type': 'feed_counter' },
        ReturnValues: 'UPDATED_NEW',
      });
      return Number(out.Attributes?.n);
    } catch (err) {
      if (!isOutcomeUnknown(err) || send >= TAKE_SENDS) throw err;
    }
  }
}

/**
 * Seal number `n` of the feed: a tombstone slot, if no slot is there. A create
 * (docs/lost-answers.md) whose outcome is any slot at `n`: a refusal (the writer's slot, another
 * reader's tombstone, its own earlier send) is what it wanted, and an unknown outcome is left to
 * the next read, which finds the slot or seals again.
 */
export async function sealPosition(db: Db, feed: Feed, n: number, now: number): Promise<void> {
  try {
    await db.put({
      TableName: db.table,
      Item: { pk: feed.pk, sk: slotSk(feed, n), type: SLOT, n, at: now, sealed: true, ...ttlOf(feed, now) },
      ConditionExpression: 'attribute_not_exists(pk)',
    });
  } catch (err) {
    if (!isConditionFailed(err) && !isOutcomeUnknown(err)) throw err;
  }
}

/** One slot as a reader sees it. */
export interface FeedSlot {
  n: number;
  names: SlotNames;
}

export interface FeedPage {
  /** The slots read, in number order: tombstones and those `match` refuses left out. */
  slots: FeedSlot[];
  /** The number read up to: every slot up to it was read (the next read starts after it). */
  position: number;
  /** Another matching slot follows the page (the page is full). */
  more: boolean;
}

/** Slots a Query reads at most; an idle read finds the counter alone. */
const QUERY_PAGE = 250;
/** Queries one read makes at most (a long run of tombstones or filtered slots: the read ends with `more`). */
const READ_ROUNDS = 8;

/**
 * The slots of the feed after number `after`, in order, at most `limit` that `match` accepts,
 * stopping before the first number that has no slot yet. Strongly consistent. A gap older than
 * FEED_SEAL_AFTER_MS (by the time the next number was taken) is sealed and the read goes on; one
 * older than FEED_HISTORY_AFTER_MS is history, passed over (core/feed.ts › gapDecision).
 */
export async function readFeed(
  db: Db,
  feed: Feed,
  opts: { after: number; limit: number; now: number; match?: (names: SlotNames) => boolean },
): Promise<FeedPage> {
  const slots: FeedSlot[] = [];
  let position = opts.after;
  for (let round = 0; round < READ_ROUNDS; round++) {
    const page = await db.query({
      TableName: db.table,
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
      ExpressionAttributeValues: {
        ':pk': feed.pk,
        ':from': slotSk(feed, position + 1),
        ':to': counterSk(feed),
      },
      ConsistentRead: true,
      Limit: QUERY_PAGE,
    });
    let sealed = false;
    for (const item of page.Items ?? []) {
      const counter = item.sk === counterSk(feed);
      const n = Number(item.n);
      const next = counter ? n : n - 1;
      if (next > position) {
        const decision = gapDecision(Number(counter ? item.t : item.at), opts.now);
        if (decision === 'wait') return { slots, position, more: false };
        if (decision === 'seal') {
          await sealGap(db, feed, position + 1, next, opts.now);
          sealed = true;
          break;
        }
        position = next;
      }
      if (counter) return { slots, position, more: false };
      const names = namesOf(item);
      if (!item.sealed && (opts.match?.(names) ?? true)) {
        if (slots.length === opts.limit) return { slots, position, more: true };
        slots.push({ n, names });
      }
      position = n;
    }
    if (!sealed && !page.LastEvaluatedKey) return { slots, position, more: false };
  }
  return { slots, position, more: true };
}

/** Seal the numbers `from`…`to` (at most FEED_SEAL_BATCH of them this round), all at once. */
async function sealGap(db: Db, feed: Feed, from: number, to: number, now: number): Promise<void> {
  const last = Math.min(to, from + FEED_SEAL_BATCH - 1);
  await Promise.all(numbersOf(last, last - from + 1).map((n) => sealPosition(db, feed, n, now)));
}

const NOT_NAMES = new Set(['pk', 'sk', 'type', 'n', 'at', 'ttl', 'sealed']);
const namesOf = (item: Record<string, unknown>): SlotNames =>
  Object.fromEntries(Object.entries(item).filter(([k]) => !NOT_NAMES.has(k))) as SlotNames;

/** The number of the feed's last taken position (0: none yet): where a reader starting at the head begins. */
export async function feedHead(db: Db, feed: Feed): Promise<number> {
  const out = await db.get({
    TableName: db.table,
    Key: { pk: feed.pk, sk: counterSk(feed) },
    ConsistentRead: true,
  });
  return Number(out.Item?.n ?? 0);
}
