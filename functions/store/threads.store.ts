import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { ThreadItem } from '../core/model.ts';
import type { Db } from './db.ts';
import { conditionally } from './db.ts';

export type { ThreadItem } from '../core/model.ts';

export const LOCK_LEASE_MS = 120_000;

const key = (identityId: string, threadId: string) => ({ pk: `I#${identityId}`, sk: `TH#${threadId}` });

export async function getThread(
  db: Db,
  identityId: string,
  threadId: string,
): Promise<ThreadItem | undefined> {
  const out = await db.doc.send(
    new GetCommand({ TableName: db.table, Key: key(identityId, threadId), ConsistentRead: true }),
  );
  if (!out.Item) return undefined;
  const { refs, seq, auto_streak, lock_owner, lock_until, from_address } = out.Item;
  return {
    refs: refs ?? [],
    seq: seq ?? 0,
    auto_streak: auto_streak ?? 0,
    lock_owner,
    lock_until,
    from_address,
  };
}

/** Held by someone else right now (a lock whose lease has passed is free: no sweep needed). */
export function lockedByOther(t: ThreadItem | undefined, me: string, now: number): boolean {
  return !!t?.lock_owner && t.lock_owner !== me && (t.lock_until ?? 0) > now;
}

/**
 * The transaction item of a threaded send: take the lock (the seed's `UPDATE threads … WHERE
 * lock_owner IS NULL OR lock_until < now OR lock_owner = me`), on the chain the message was composed
 * against (`seq`), and record the new chain. `lock: false` (a fully suppressed send) records the
 * chain without holding the lock.
 */
export function threadSendItem(
  db: Db,
  args: {
    identityId: string;
    threadId: string;
    messageId: string;
    now: number;
    seenSeq: number;
    refs: string[];
    autoStreak: number;
    fromAddress: string;
    lock: boolean;
  },
) {
  const set = [
    'refs = :refs',
    'seq = :next',
    'auto_streak = :streak',
    'from_address = :from',
    '#type = :type',
  ];
  if (args.lock) set.push('lock_owner = :me', 'lock_until = :until');
  return {
    Update: {
      TableName: db.table,
      Key: key(args.identityId, args.threadId),
      UpdateExpression: `SET ${set.join(', ')}`,
      ConditionExpression:
        '(attribute_not_exists(seq) OR seq = :seen) AND ' +
        '(attribute_not_exists(lock_owner) OR lock_until < :now OR lock_owner = :me)',
      ExpressionAttributeNames: { '#type': 'type' },
      ExpressionAttributeValues: {
        ':refs': args.refs,
        ':next': args.seenSeq + 1,
        ':seen': args.seenSeq,
        ':streak': args.autoStreak,
        ':from': args.fromAddress,
        ':type': 'thread',
        ':me': args.messageId,
        ':now': args.now,
        ...(args.lock ? { ':until': args.now + LOCK_LEASE_MS } : {}),
      },
    },
  };
}

/** Release when the message leaves queued (or backs off); a lock already gone or taken is left alone. */
export async function releaseThreadLock(
  db: Db,
  identityId: string,
  threadId: string,
  messageId: string,
): Promise<void> {
  await conditionally(
    db.doc.send(
      new UpdateCommand({
        TableName: db.table,
        Key: key(identityId, threadId),
        UpdateExpression: 'REMOVE lock_owner, lock_until',
        ConditionExpression: 'lock_owner = :me',
        ExpressionAttributeValues: { ':me': messageId },
      }),
    ),
  );
}

/** Refresh the lease when a transport attempt begins (seed: BeginTransport refreshes to now + 60 s). */
export async function refreshThreadLock(
  db: Db,
  identityId: string,
  threadId: string,
  messageId: string,
  until: number,
): Promise<void> {
  await conditionally(
    db.doc.send(
      new UpdateCommand({
        TableName: db.table,
        Key: key(identityId, threadId),
        UpdateExpression: 'SET lock_until = :until',
        ConditionExpression: 'lock_owner = :me AND lock_until < :until',
        ExpressionAttributeValues: { ':me': messageId, ':until': until },
      }),
    ),
  );
}
