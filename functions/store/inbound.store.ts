import type { MessageRecord } from '../core/model.ts';
import { contactCountUpdates } from './contacts.store.ts';
import { type Db, type TransactItem, transactGuarded } from './db.ts';
import { eventPutItem, type OutboxEvent } from './events.store.ts';
import { onFeed, transactAt } from './feed.store.ts';
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
 * Store one received message for one recipient, once: in one transaction, the dedupe key's item
 * (the guard: it must not exist), the message, its `message.received` event, the sender's
 * `inbound_count` and the thread's item: the thread list's summary (functions/store/thread-list.store.ts)
 * and what a reply through the API reads from the thread (the identity's address it was written
 * to, as the thread's From when it has none yet). The message and its event are positioned in
 * their feeds as the transaction commits (store/feed.store.ts › transactAt: `now` is the clock at
 * the commit, after the raw copy's write). False when the key is stored already: a repeat of the
 * same message to the same recipient, nothing written.
 *
 * A transaction (docs/lost-answers.md): the table's client resends it after a lost answer with the same
 * ClientRequestToken and DynamoDB answers the resend as the first send, so the guard never refuses
 * this call's own write; a later repeat (a queue redelivery, another SMTP transaction of the same
 * bytes) is a new transaction and finds the key.
 */
export async function storeInbound(
  db: Db,
  args: {
    message: MessageRecord;
    dedupeKey: string;
    event: OutboxEvent;
    /** The sender whose `inbound_count` goes up (none: not counted). */
    countSender?: string;
    /** The identity's address the message was routed to. */
    routedTo: string;
    /** The thread summary's snippet (functions/store/thread-list.store.ts). */
    snippet: string;
    now: number;
  },
): Promise<boolean> {
  const { message, now } = args;
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
    onFeed(
      {
        Put: {
          TableName: db.table,
          Item: messagePutItem(db, message, 0).Put.Item,
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      messageFeedEntry(message, now),
    ),
    eventPutItem(db, args.event, now),
    threadNoteItem(db, message, { now, snippet: args.snippet, fromAddress: args.routedTo }),
    ...(args.countSender
      ? contactCountUpdates(db, message.identity_id, [args.countSender], now, 'inbound')
      : []),
  ];
  return transactGuarded(db, items, (all) => transactAt(db, all));
}
