import { sha256Hex } from '../core/fingerprint.ts';
import { HELD_CAPS, STRANGER_WINDOW_MS, strangerWindow } from '../core/hold.ts';
import type { MessageRecord } from '../core/model.ts';
import { qualifiesAsReply } from '../core/unless-reply.ts';
import { batchedReads } from './batch-reads.ts';
import { type ContactCount, contactCountUpdates } from './contacts.store.ts';
import { type Db, failedConditions, type TransactItem } from './db.ts';
import { eventPutItem, type OutboxEvent } from './events.store.ts';
import { atPositionOf, onFeed, transactAt } from './feed.store.ts';
import { labelsDeleteItem } from './labels.store.ts';
import { getMessage, heldIndexKeys, messageFeedEntry, messagePutItem } from './messages.store.ts';
import { searchDocDeleteItem } from './search.store.ts';
import { keys, MESSAGE_SK_PREFIX } from './table-keys.ts';
import { threadNoteItem } from './thread-list.store.ts';

/**
 * Held mail (core/hold.ts, docs/guides/receiving.md › Held mail): the identity's held counter
 * (`I#{idn}` / `HOLD`: `count`, `bytes` of what is held, `dropped` past the caps), the stranger
 * rate's counters (`I#{idn}` / `RS#{hour}#{sender hash|*}`, an hour's TTL past their window), the
 * held messages' index (gsi2 `HD#{idn}`, set by messages.store.ts on a held message), and the
 * release and delete of one held message.
 */
const holdKey = (identityId: string) => ({ pk: `I#${identityId}`, sk: 'HOLD' });
const HELD_INDEX = 'gsi2';

/**
 * The held counter's update for one more held message of `bytes`, in the transaction that stores it
 * (store/inbound.store.ts › storeInbound): refused when the identity holds HELD_CAPS.count messages
 * already, or the bytes would pass HELD_CAPS.bytes. A transaction's item (docs/lost-answers.md): the
 * table's client resends the whole transaction with its ClientRequestToken, so the count is taken
 * once and its own earlier send never refuses it.
 */
export function heldCapUpdate(db: Db, identityId: string, bytes: number): TransactItem {
  return {
    Update: {
      TableName: db.table,
      Key: holdKey(identityId),
      UpdateExpression: 'SET #type = :type ADD #count :one, #bytes :bytes',
      ConditionExpression:
        'attribute_not_exists(#count) OR (#count < :maxCount AND (attribute_not_exists(#bytes) OR #bytes <= :room))',
      ExpressionAttributeNames: { '#type': 'type', '#count': 'count', '#bytes': 'bytes' },
      ExpressionAttributeValues: {
        ':type': 'hold_counter',
        ':one': 1,
        ':bytes': bytes,
        ':maxCount': HELD_CAPS.count,
        ':room': HELD_CAPS.bytes - bytes,
      },
    },
  };
}

/** The counter's update when a held message leaves (released or deleted): unconditional, in its transaction. */
function heldGone(db: Db, m: MessageRecord): TransactItem {
  return {
    Update: {
      TableName: db.table,
      Key: holdKey(m.identity_id),
      UpdateExpression: 'ADD #count :minus, #bytes :less',
      ExpressionAttributeNames: { '#count': 'count', '#bytes': 'bytes' },
      ExpressionAttributeValues: { ':minus': -1, ':less': -m.raw_size },
    },
  };
}

/**
 * A message past the caps, not stored: counted on the identity's `dropped`. An unconditional count
 * (docs/lost-answers.md › count): never sent again; a lost answer leaves it one short.
 */
export async function noteDropped(db: Db, identityId: string): Promise<void> {
  await db.update({
    TableName: db.table,
    Key: holdKey(identityId),
    UpdateExpression: 'SET #type = :type ADD dropped :one',
    ExpressionAttributeNames: { '#type': 'type' },
    ExpressionAttributeValues: { ':type': 'hold_counter', ':one': 1 },
  });
}

/** What the identity holds now, and how many messages the caps dropped. */
export interface HeldSummary {
  count: number;
  bytes: number;
  dropped: number;
}

export async function getHeldSummary(db: Db, identityId: string): Promise<HeldSummary> {
  const out = await db.get({ TableName: db.table, Key: holdKey(identityId), ConsistentRead: true });
  const i = out.Item ?? {};
  return { count: Number(i.count ?? 0), bytes: Number(i.bytes ?? 0), dropped: Number(i.dropped ?? 0) };
}

/**
 * Count one message of a stranger (core/hold.ts › pastStrangerRate) in the current window: the
 * sender's count and the identity's total, each one unconditional `ADD` returning the new value
 * (docs/lost-answers.md › count: never sent again). A count whose answer was lost is undefined:
 * the rate then counts it as past (it errs towards holding).
 */
export async function countStranger(
  db: Db,
  identityId: string,
  sender: string,
  now: number,
): Promise<{ sender?: number; total?: number }> {
  const hour = strangerWindow(now);
  const ttl = Math.ceil(((hour + 2) * STRANGER_WINDOW_MS) / 1000);
  const add = async (who: string) => {
    try {
      const out = await db.update({
        TableName: db.table,
        Key: { pk: `I#${identityId}`, sk: `RS#${hour}#${who}` },
        UpdateExpression: 'SET #type = :type, #ttl = :ttl ADD n :one',
        ExpressionAttributeNames: { '#type': 'type', '#ttl': 'ttl' },
        ExpressionAttributeValues: { ':type': 'stranger_count', ':ttl': ttl, ':one': 1 },
        ReturnValues: 'UPDATED_NEW',
      });
      return Number(out.Attributes?.n);
    } catch {
      return undefined;
    }
  };
  const [mine, total] = await Promise.all([add(sha256Hex(sender)), add('*')]);
  return { sender: mine, total };
}

/** One page of the identity's held messages, newest first; `after` the last id of the previous page. */
export async function listHeld(
  db: Db,
  identityId: string,
  opts: { limit: number; after?: string },
): Promise<{ data: MessageRecord[]; next?: string }> {
  const out = await db.query({
    TableName: db.table,
    IndexName: HELD_INDEX,
    KeyConditionExpression: 'gsi2pk = :pk',
    ExpressionAttributeValues: { ':pk': heldIndexKeys({ identity_id: identityId, id: '' }).gsi2pk },
    ScanIndexForward: false,
    Limit: opts.limit,
    ...(opts.after
      ? {
          ExclusiveStartKey: {
            ...keys.message(identityId, opts.after),
            ...heldIndexKeys({ identity_id: identityId, id: opts.after }),
          },
        }
      : {}),
  });
  const reads = batchedReads(db);
  const found = await Promise.all(
    (out.Items ?? []).map((i) =>
      getMessage(reads, identityId, String(i.sk).slice(MESSAGE_SK_PREFIX.length), true),
    ),
  );
  // The index is eventually consistent: a message released or deleted since is left out.
  const data = found.filter((m): m is MessageRecord => m?.held !== undefined);
  const last = out.LastEvaluatedKey
    ? String(out.LastEvaluatedKey.sk).slice(MESSAGE_SK_PREFIX.length)
    : undefined;
  return { data, ...(last ? { next: last } : {}) };
}

/**
 * Release a held message, in one transaction: the message as `next` (its `held` gone) conditioned on
 * its version and positioned in the identity's feed (a new number, after everything committed
 * before: docs/design/ordering.md), its `message.received` event positioned in the tenant's, the
 * thread's summary, the sender's contact counts, the held counter, the audit entry. False when the
 * message changed since it was read (the caller reads it again). A transaction
 * (docs/lost-answers.md): resent by the table's client with its ClientRequestToken, answered as the
 * first send, so one release takes one number and writes one event.
 */
export async function releaseHeld(
  db: Db,
  args: {
    held: MessageRecord;
    next: MessageRecord;
    event: OutboxEvent;
    audit: TransactItem;
    snippet: string;
    routedTo: string;
    countSender?: { address: string; counts: ContactCount[] };
    now: number;
  },
): Promise<boolean> {
  const { held, next, now } = args;
  const put = onFeed(messagePutItem(db, next, held.version) as TransactItem, messageFeedEntry(next, now));
  const note = { now, snippet: args.snippet, fromAddress: args.routedTo };
  const items: TransactItem[] = [
    put,
    eventPutItem(db, args.event, now),
    // Released, an answer counts as any received one for a follow-up waiting on it (core/unless-reply.ts).
    qualifiesAsReply(next)
      ? atPositionOf(put, (pos) => threadNoteItem(db, next, { ...note, replyPos: pos }))
      : threadNoteItem(db, next, note),
    heldGone(db, held),
    args.audit,
    ...(args.countSender
      ? contactCountUpdates(db, held.identity_id, [args.countSender.address], now, args.countSender.counts)
      : []),
  ];
  return versioned(db, items);
}

/**
 * Delete a held message, in one transaction with the held counter, its audit entry and its labels
 * item (store/labels.store.ts), conditioned on its version and on its being held. False when it changed since it was read. A transaction
 * (docs/lost-answers.md): resent with its ClientRequestToken, answered as the first send.
 */
export async function deleteHeld(db: Db, held: MessageRecord, audit: TransactItem): Promise<boolean> {
  return versioned(db, [
    {
      Delete: {
        TableName: db.table,
        Key: keys.message(held.identity_id, held.id),
        ConditionExpression: 'version = :v AND attribute_exists(held)',
        ExpressionAttributeValues: { ':v': held.version },
      },
    },
    heldGone(db, held),
    audit,
    labelsDeleteItem(db, { identityId: held.identity_id, id: held.id }),
    searchDocDeleteItem(db, held.identity_id, held.id),
  ]);
}

/** Run a transaction whose first item is the message's version condition: false when that failed. */
async function versioned(db: Db, items: TransactItem[]): Promise<boolean> {
  try {
    await transactAt(db, items);
    return true;
  } catch (err) {
    if (failedConditions(err, ['message'] as const).has('message')) return false;
    throw err;
  }
}
