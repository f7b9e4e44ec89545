import type { MessageRecord } from '../core/model.ts';
import { activityKey, participantsOf, type ThreadSummary, threadIdOfKey } from '../core/threads.ts';
import { batchedReads } from './batch-reads.ts';
import { type Db, isOutcomeUnknown, type TransactItem } from './db.ts';
import { getMessage } from './messages.store.ts';

/**
 * The thread list (docs/guides/receiving.md › Threads). Each message written into a thread updates
 * the thread's item (`I#{identity}` / `TH#{thread}`): its message ids, participants, subject, the
 * snippet and time of its latest message, and its key in the list index (gsi2, `TL#{identity}`,
 * sorted by core/threads.ts › activityKey). The update is unconditional and idempotent (the ids and
 * participants are string sets; a resend adds nothing twice and sets the same values): inside the
 * inbound transaction the table's client resends it with the transaction, alone `noteThreadMessage` does.
 */

const threadKey = (identityId: string, threadId: string) => ({ pk: `I#${identityId}`, sk: `TH#${threadId}` });
const listPk = (identityId: string) => `TL#${identityId}`;

/**
 * The update a message makes to its thread's item. `fromAddress`: the identity's address a received
 * message was written to, kept as the thread's From when it has none (functions/store/inbound.store.ts).
 */
export function threadNoteItem(
  db: Db,
  message: MessageRecord,
  args: { now: number; snippet: string; fromAddress?: string; replyPos?: number },
): { Update: NonNullable<TransactItem['Update']> } {
  const participants = participantsOf(message);
  const set = [
    '#type = :type',
    'subject = if_not_exists(subject, :subject)',
    'last_message_at = :at',
    'snippet = :snippet',
    'gsi2pk = :list',
    'gsi2sk = :activity',
    ...(args.fromAddress ? ['from_address = if_not_exists(from_address, :from)'] : []),
  ];
  return {
    Update: {
      TableName: db.table,
      Key: threadKey(message.identity_id, message.thread_id),
      UpdateExpression: `SET ${set.join(', ')} ADD message_ids :ids${participants.length ? ', participants :who' : ''}${args.replyPos !== undefined ? ', reply_pos :reply' : ''}`,
      ExpressionAttributeNames: { '#type': 'type' },
      ExpressionAttributeValues: {
        ':type': 'thread',
        ':subject': message.subject,
        ':at': args.now,
        ':snippet': args.snippet,
        ':list': listPk(message.identity_id),
        ':activity': activityKey(args.now, message.thread_id),
        ':ids': new Set([message.id]),
        ...(participants.length ? { ':who': new Set(participants) } : {}),
        ...(args.fromAddress ? { ':from': args.fromAddress } : {}),
        // A qualifying answer's number in the feed (store/thread-replies.store.ts).
        ...(args.replyPos !== undefined ? { ':reply': new Set([args.replyPos]) } : {}),
      },
    },
  };
}

/** How often a summary update whose answers keep getting lost is sent before the unknown outcome goes up. */
const NOTE_SENDS = 3;

/**
 * `threadNoteItem` alone (a sent message's, after its commit). An idempotent update
 * (docs/lost-answers.md › Idempotent update): an unknown outcome sends the same update again, at
 * most NOTE_SENDS times; the second send of a landed one changes nothing but the thread's time,
 * which it sets to this message's again.
 */
export async function noteThreadMessage(
  db: Db,
  message: MessageRecord,
  args: { now: number; snippet: string },
): Promise<void> {
  const { Update } = threadNoteItem(db, message, args);
  for (let send = 1; ; send++) {
    try {
      await db.update(Update);
      return;
    } catch (err) {
      if (!isOutcomeUnknown(err) || send >= NOTE_SENDS) throw err;
    }
  }
}

function summaryOf(threadId: string, item: Record<string, unknown> | undefined): ThreadSummary | undefined {
  const ids = item?.message_ids as Set<string> | undefined;
  if (!item || !ids || ids.size === 0) return undefined;
  return {
    id: threadId,
    subject: String(item.subject ?? ''),
    participants: [...((item.participants as Set<string> | undefined) ?? [])],
    message_ids: [...ids],
    last_message_at: Number(item.last_message_at ?? 0),
    snippet: String(item.snippet ?? ''),
  };
}

/** A thread of the identity with at least one message, or undefined (another identity's thread is not found). */
export async function getThreadSummary(
  db: Db,
  identityId: string,
  threadId: string,
): Promise<ThreadSummary | undefined> {
  const out = await db.get({
    TableName: db.table,
    Key: threadKey(identityId, threadId),
    ConsistentRead: true,
  });
  return summaryOf(threadId, out.Item);
}

/**
 * The identity's threads, newest activity first, `limit` a page; `after`: the list key a previous
 * page ended at; `keys`: each returned thread's list key, in order. The index holds keys only: the
 * page's items are read in one BatchGetItem. The index is eventually consistent, so a thread
 * written to while a client pages may show on two pages.
 */
export async function listThreads(
  db: Db,
  identityId: string,
  opts: { limit: number; after?: string },
): Promise<{ data: ThreadSummary[]; keys: string[]; last?: string }> {
  const out = await db.query({
    TableName: db.table,
    IndexName: 'gsi2',
    KeyConditionExpression: 'gsi2pk = :list',
    ExpressionAttributeValues: { ':list': listPk(identityId) },
    ScanIndexForward: false,
    Limit: opts.limit,
    ...(opts.after
      ? {
          ExclusiveStartKey: {
            ...threadKey(identityId, threadIdOfKey(opts.after)),
            gsi2pk: listPk(identityId),
            gsi2sk: opts.after,
          },
        }
      : {}),
  });
  const keys = (out.Items ?? []).map((i) => String(i.gsi2sk));
  const batched = batchedReads(db);
  const items = await Promise.all(
    keys.map((k) => batched.get({ TableName: db.table, Key: threadKey(identityId, threadIdOfKey(k)) })),
  );
  const found = items.map((r, i) => summaryOf(threadIdOfKey(keys[i]), r.Item));
  const data = found.flatMap((t) => t ?? []);
  const listed = keys.filter((_, i) => found[i] !== undefined);
  return {
    data,
    keys: listed,
    ...(out.LastEvaluatedKey ? { last: String(out.LastEvaluatedKey.gsi2sk) } : {}),
  };
}

/** These messages of the identity, in the order given (one BatchGetItem per 100; a missing one is left out). */
export async function getMessages(
  db: Db,
  identityId: string,
  ids: readonly string[],
): Promise<MessageRecord[]> {
  const batched = batchedReads(db);
  const found = await Promise.all(ids.map((id) => getMessage(batched, identityId, id)));
  return found.filter((m): m is MessageRecord => m !== undefined);
}
