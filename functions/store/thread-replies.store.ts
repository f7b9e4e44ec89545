import type { Db, TransactItem } from './db.ts';

/**
 * The answers a thread has had, as follow-ups that wait for none read them (core/unless-reply.ts):
 * the feed numbers of its qualifying received messages, a number set on the thread's item
 * (`I#{identity}` / `TH#{thread}`, attribute `reply_pos`), added by the ingest's transaction with
 * each such message (store/inbound.store.ts). A set only grows, so an answer once there stays.
 */

const threadKey = (identityId: string, threadId: string) => ({ pk: `I#${identityId}`, sk: `TH#${threadId}` });

/** The thread's qualifying answers' numbers (consistent read); empty for none or no thread. */
export async function getReplyPositions(db: Db, identityId: string, threadId: string): Promise<number[]> {
  const out = await db.get({
    TableName: db.table,
    Key: threadKey(identityId, threadId),
    ConsistentRead: true,
    ProjectionExpression: 'reply_pos',
  });
  const set = out.Item?.reply_pos as Set<number> | undefined;
  return set ? [...set].map(Number) : [];
}

/**
 * A ConditionCheck that the thread has had exactly the `seen` answers read: in the claim's
 * transaction (store/messages.store.ts › claimSending), it makes the claim the decision "no answer
 * after this follow-up" — an answer added since the read fails it, and the claim decides again.
 */
export function noNewReplies(db: Db, identityId: string, threadId: string, seen: number): TransactItem {
  return {
    ConditionCheck: {
      TableName: db.table,
      Key: threadKey(identityId, threadId),
      ConditionExpression: seen === 0 ? 'attribute_not_exists(reply_pos)' : 'size(reply_pos) = :seen',
      ...(seen === 0 ? {} : { ExpressionAttributeValues: { ':seen': seen } }),
    },
  } as TransactItem;
}
