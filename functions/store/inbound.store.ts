import { sha256Hex } from '../core/fingerprint.ts';
import { MESSAGE_ID_WINDOW_MS, type SenderAuth } from '../core/inbound.ts';
import type { MessageRecord } from '../core/model.ts';
import { qualifiesAsReply } from '../core/unless-reply.ts';
import { type ContactCount, contactCountUpdates } from './contacts.store.ts';
import { type Db, failedConditions, isTransactionCanceled, type TransactItem } from './db.ts';
import { eventPutItem, type OutboxEvent } from './events.store.ts';
import { atPositionOf, onFeed, transactAt } from './feed.store.ts';
import { heldCapUpdate } from './hold.store.ts';
import { findByProviderId, getMessage, messageFeedEntry, messagePutItem } from './messages.store.ts';
import { threadNoteItem } from './thread-list.store.ts';
import { getThread } from './threads.store.ts';

/** SES's own Message-IDs: `<{SES message id}@{region}.amazonses.com>`. */
const SES_RFC_ID = /^<([^@<>\s]+)@[a-z0-9-]+\.amazonses\.com>$/i;
/** pmail's own Message-IDs: `<{ulid}@{domain}>` for the message `msg_{ulid}` (core/compose.ts › rfcMessageIdFor). */
const PMAIL_RFC_ID = /^<([0-9a-z]{26})@[^@<>\s]+>$/i;

/**
 * The outbound message of this identity that an RFC 5322 Message-ID names, if any: pmail's own ids
 * by a GetItem of the message they name, SES's by the provider id index (gsi1). Either way the
 * stored message must belong to the identity and carry that id (its own, or SES's for its provider
 * id), so a guessed id of another identity's message threads nothing.
 */
export async function findOutboundByRfcId(
  db: Db,
  identityId: string,
  rfcMessageId: string,
): Promise<MessageRecord | undefined> {
  const id = rfcMessageId.trim();
  const own = PMAIL_RFC_ID.exec(id);
  if (own) {
    const m = await getMessage(db, identityId, `msg_${own[1].toLowerCase()}`);
    if (m && m.direction === 'outbound' && sameRfcId(m.rfc_message_id, id)) return m;
  }
  const ses = SES_RFC_ID.exec(id);
  if (ses) {
    const match = await findByProviderId(db, ses[1]);
    if (match.type !== 'one' || match.identity_id !== identityId) return undefined;
    const m = await getMessage(db, identityId, match.message_id);
    if (
      m &&
      m.direction === 'outbound' &&
      m.provider_message_id === ses[1] &&
      (sameRfcId(m.rfc_message_id, id) || m.provider === 'ses')
    )
      return m;
  }
  return undefined;
}

/** Message-IDs compare with the domain part case-insensitive (RFC 5322 § 3.6.4 keeps the local part as written). */
function sameRfcId(a: string | undefined, b: string): boolean {
  if (!a) return false;
  const at = (s: string) => s.lastIndexOf('@');
  return (
    a.slice(0, at(a)) === b.slice(0, at(b)) && a.slice(at(a)).toLowerCase() === b.slice(at(b)).toLowerCase()
  );
}

/** How long a stored message's dedupe key is kept: longer than SQS keeps a message (14 days). */
const DEDUPE_KEEP_MS = 30 * 24 * 3600 * 1000;

/** The item that holds a dedupe key for an identity: which message it stored. */
export const dedupeItemKey = (identityId: string, dedupeKey: string) => ({
  pk: `I#${identityId}`,
  sk: `IN#${dedupeKey}`,
});

/** Whether a thread token's thread exists for this identity: its thread item or its first message. */
export async function threadExists(db: Db, identityId: string, threadId: string): Promise<boolean> {
  const [thread, root] = await Promise.all([
    getThread(db, identityId, threadId),
    getMessage(db, identityId, `msg_${threadId.slice(4)}`),
  ]);
  return thread !== undefined || root?.thread_id === threadId;
}

/**
 * The identity's first message with a Message-ID, kept MESSAGE_ID_WINDOW_MS
 * (docs/guides/receiving.md › Duplicates): `I#{identity}` / `MID#{sha256(Message-ID)}`, written in
 * the transaction that stores that message, with the canonical From and how well it was
 * authenticated, and how many later copies were its duplicates.
 */
export interface MessageIdMarker {
  message_id: string;
  thread_id: string;
  from: string;
  auth: SenderAuth;
  duplicates?: number;
  ttl: number;
}

const messageIdKey = (identityId: string, rfcMessageId: string) => ({
  pk: `I#${identityId}`,
  sk: `MID#${sha256Hex(rfcMessageId)}`,
});

/** The marker of an earlier message with this Message-ID, if one is within the window at `now`. */
export async function getMessageIdMarker(
  db: Db,
  identityId: string,
  rfcMessageId: string,
  now: number,
): Promise<MessageIdMarker | undefined> {
  const out = await db.get({
    TableName: db.table,
    Key: messageIdKey(identityId, rfcMessageId),
    ConsistentRead: true,
  });
  const item = out.Item as MessageIdMarker | undefined;
  // DynamoDB deletes an expired item some time after its ttl: until then it is read as gone.
  return item && item.ttl * 1000 > now ? item : undefined;
}

/** The message a copy's dedupe key names: the one its earlier store wrote (none: not stored). */
export async function storedMessageId(
  db: Db,
  identityId: string,
  dedupeKey: string,
): Promise<string | undefined> {
  const out = await db.get({
    TableName: db.table,
    Key: dedupeItemKey(identityId, dedupeKey),
    ConsistentRead: true,
  });
  const item = out.Item as { message_id?: string; duplicate_of?: string } | undefined;
  return item && item.duplicate_of === undefined ? item.message_id : undefined;
}

/**
 * What `storeInbound` did: stored; found the copy stored already; found another message's marker;
 * or (a held message) found the identity's held caps full.
 */
export type StoreOutcome = 'stored' | 'repeat' | 'raced' | 'over_cap';

/**
 * Store one received message for one recipient, once: in one transaction, the dedupe key's item
 * (the guard: it must not exist), the Message-ID's marker when this is the identity's first message
 * with it (it must not exist, or be expired), the message, its `message.received` event, the
 * sender's contact counts and the thread's item: the thread list's summary
 * (functions/store/thread-list.store.ts) and what a reply through the API reads from the thread (the
 * identity's address it was written to, as the thread's From when it has none yet). `repeat` when
 * the key is stored already (a repeat of the same message to the same recipient), `raced` when
 * another copy's marker is there (written since the caller read none) or another transaction wrote
 * one of its items at the same moment: nothing written, the caller decides again. The message and
 * its event are positioned in their feeds as the transaction commits (store/feed.store.ts ›
 * transactAt: `now` is the clock at the commit, after the raw copy's write).
 *
 * A held message (core/hold.ts) takes no place in the identity's feed and leaves the thread's
 * summary as it is (its release does both: store/hold.store.ts › releaseHeld); its event is
 * `message.held`, and it takes its place under the identity's held caps (`heldCapUpdate`):
 * `over_cap` when they are full, nothing written.
 *
 * A transaction (docs/lost-answers.md): the table's client resends it after a lost answer with the same
 * ClientRequestToken and DynamoDB answers the resend as the first send, so neither condition ever
 * refuses this call's own write; a later repeat (a queue redelivery, another SMTP transaction of the
 * same bytes) is a new transaction and finds the key, and a later copy finds the marker.
 */
export async function storeInbound(
  db: Db,
  args: {
    message: MessageRecord;
    dedupeKey: string;
    event: OutboxEvent;
    /** The sender whose `inbound_count` goes up (none: not counted). */
    countSender?: string;
    /** The sender proved who it is: its `authenticated_inbound_count` goes up too. */
    senderAuthenticated?: boolean;
    /** The first message of the identity with this Message-ID: its marker is written. */
    firstWithMessageId?: { rfcMessageId: string; from: string; auth: SenderAuth };
    /** The identity's address the message was routed to. */
    routedTo: string;
    /** The thread summary's snippet (functions/store/thread-list.store.ts). */
    snippet: string;
    now: number;
  },
): Promise<StoreOutcome> {
  const { message, now } = args;
  const counts: ContactCount[] = [
    'inbound_count',
    ...(args.senderAuthenticated ? ['authenticated_inbound_count' as const] : []),
  ];
  const marker = args.firstWithMessageId;
  const held = message.held !== undefined;
  const messagePut = {
    Put: {
      TableName: db.table,
      Item: messagePutItem(db, message, 0).Put.Item,
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
  // Held mail takes no place in the feed and no thread note until it is released (store/hold.store.ts).
  const put = held ? messagePut : onFeed(messagePut, messageFeedEntry(message, now));
  const note = { now, snippet: args.snippet, fromAddress: args.routedTo };
  const items: TransactItem[] = [
    {
      Put: {
        TableName: db.table,
        Item: {
          ...dedupeItemKey(message.identity_id, args.dedupeKey),
          type: 'inbound_dedupe',
          message_id: message.id,
          ttl: Math.ceil((now + DEDUPE_KEEP_MS) / 1000),
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    ...(marker ? [messageIdMarkerPut(db, message, marker, now)] : []),
    ...(held ? [heldCapUpdate(db, message.identity_id, message.raw_size)] : []),
    put,
    eventPutItem(db, args.event, now),
    // An answer a follow-up waits on records its own number on the thread (core/unless-reply.ts).
    ...(held
      ? []
      : [
          qualifiesAsReply(message)
            ? atPositionOf(put, (pos) => threadNoteItem(db, message, { ...note, replyPos: pos }))
            : threadNoteItem(db, message, note),
        ]),
    ...(args.countSender
      ? contactCountUpdates(db, message.identity_id, [args.countSender], now, counts)
      : []),
  ];
  const names = ['guard', ...(marker ? ['marker' as const] : []), ...(held ? ['cap' as const] : [])] as const;
  return guardedBy(db, items, names, {
    conflictIsRace: true,
    send: (all) => transactAt(db, all),
  });
}

/** The marker's Put: it must not exist, or be expired (DynamoDB deletes expired items late). */
function messageIdMarkerPut(
  db: Db,
  message: MessageRecord,
  first: { rfcMessageId: string; from: string; auth: SenderAuth },
  now: number,
): TransactItem {
  const item: MessageIdMarker & { type: string } = {
    type: 'inbound_message_id',
    message_id: message.id,
    thread_id: message.thread_id,
    from: first.from,
    auth: first.auth,
    ttl: Math.ceil((now + MESSAGE_ID_WINDOW_MS) / 1000),
  };
  return {
    Put: {
      TableName: db.table,
      Item: { ...messageIdKey(message.identity_id, first.rfcMessageId), ...item },
      ConditionExpression: 'attribute_not_exists(pk) OR #ttl <= :now',
      ExpressionAttributeNames: { '#ttl': 'ttl' },
      ExpressionAttributeValues: { ':now': Math.floor(now / 1000) },
    },
  };
}

/**
 * Run a transaction whose first items carry the conditions `names` name (the dedupe key's guard
 * first): `stored`, or the outcome the failed condition means. With `conflictIsRace`, a transaction
 * DynamoDB cancelled because another one was writing one of its items at the same moment (two
 * copies of one message, its marker) is `raced` too: the caller decides again. Any other failure
 * is thrown.
 */
async function guardedBy(
  db: Db,
  items: TransactItem[],
  names: readonly ('guard' | 'marker' | 'cap')[],
  opts: { conflictIsRace?: boolean; send?: (items: TransactItem[]) => Promise<void> } = {},
): Promise<StoreOutcome> {
  try {
    await (opts.send ? opts.send(items) : db.transact({ TransactItems: items }));
    return 'stored';
  } catch (err) {
    const failed = failedConditions(err, names);
    if (failed.has('guard')) return 'repeat';
    if (failed.has('marker')) return 'raced';
    if (failed.has('cap')) return 'over_cap';
    const conflict =
      isTransactionCanceled(err) &&
      (err.CancellationReasons ?? []).some((r) => r.Code === 'TransactionConflict');
    if (opts.conflictIsRace && conflict) return 'raced';
    throw err;
  }
}

/**
 * A later copy recorded as a duplicate of the identity's first message with its Message-ID
 * (docs/guides/receiving.md › Duplicates), in one transaction: its dedupe key's item, naming the
 * message it duplicates (the guard: a repeat of this copy is counted once), and the marker's
 * `duplicates` count, on the condition that the marker still names that message. `repeat` when the
 * copy was recorded already; a marker gone or replaced since it was read throws (the queue brings
 * the copy back, and it is decided again). A transaction: resent with its ClientRequestToken, never
 * refused by its own earlier send (docs/lost-answers.md).
 */
export async function recordDuplicate(
  db: Db,
  args: { identityId: string; dedupeKey: string; rfcMessageId: string; of: string; now: number },
): Promise<'recorded' | 'repeat'> {
  const outcome = await guardedBy(
    db,
    [
      {
        Put: {
          TableName: db.table,
          Item: {
            ...dedupeItemKey(args.identityId, args.dedupeKey),
            type: 'inbound_dedupe',
            message_id: args.of,
            duplicate_of: args.of,
            ttl: Math.ceil((args.now + DEDUPE_KEEP_MS) / 1000),
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      {
        Update: {
          TableName: db.table,
          Key: messageIdKey(args.identityId, args.rfcMessageId),
          UpdateExpression: 'ADD duplicates :one',
          ConditionExpression: 'message_id = :of',
          ExpressionAttributeValues: { ':one': 1, ':of': args.of },
        },
      },
    ],
    ['guard'],
  );
  return outcome === 'stored' ? 'recorded' : 'repeat';
}
