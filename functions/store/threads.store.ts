import type { ThreadItem } from '../core/model.ts';
import type { Db } from './db.ts';
import { conditionally, isOutcomeUnknown } from './db.ts';

export type { ThreadItem } from '../core/model.ts';

export const LOCK_LEASE_MS = 120_000;

const key = (identityId: string, threadId: string) => ({ pk: `I#${identityId}`, sk: `TH#${threadId}` });

export async function getThread(
  db: Db,
  identityId: string,
  threadId: string,
): Promise<ThreadItem | undefined> {
  const out = await db.get({ TableName: db.table, Key: key(identityId, threadId), ConsistentRead: true });
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
 * The write of a threaded send (`takeThreadForSend` sends it): take the lock (free, expired or ours:
 * `lock_owner IS NULL OR lock_until < now OR lock_owner = me`), on the chain the message was composed
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

/** How often a lock write whose answers keep getting lost is sent before the outcome goes up. */
const SENDS = 3;

/**
 * Send a write of the thread conditioned on its state; a refusal answers false. A lost answer
 * re-reads the thread and `decide`s: `done` (the write's effect is there: it landed, or another
 * writer left the same), `again` (the thread is as the write found it: send it again, at most SENDS
 * times), or `refused` (the thread moved on: the write's condition no longer holds).
 */
async function threadWrite(
  db: Db,
  identityId: string,
  threadId: string,
  write: () => Promise<unknown>,
  decide: (t: ThreadItem | undefined) => 'done' | 'again' | 'refused',
): Promise<boolean> {
  for (let send = 1; ; send++) {
    try {
      return await conditionally(write());
    } catch (err) {
      if (!isOutcomeUnknown(err)) throw err;
      const seen = decide(await getThread(db, identityId, threadId));
      if (seen !== 'again') return seen === 'done';
      if (send >= SENDS) throw err;
    }
  }
}

/**
 * A threaded send's `threadSendItem`, alone: true when the thread now holds this message's chain
 * (and its lock, with `lock`), false when the chain moved or another message holds the lock (the
 * caller reads the thread again and retries). An owned transition (docs/lost-answers.md), whose
 * tokens are the message's id (the lock's owner) and its Message-ID in the chain: a lost answer
 * re-reads the thread; moved past `seenSeq` with this message in the chain (and the lock its own),
 * the write is in; still at `seenSeq`, it is sent again; else it is a lost race.
 */
export async function takeThreadForSend(
  db: Db,
  args: Parameters<typeof threadSendItem>[1] & { rfcMessageId: string },
): Promise<boolean> {
  const { rfcMessageId, ...item } = args;
  return threadWrite(
    db,
    args.identityId,
    args.threadId,
    () => db.update(threadSendItem(db, item).Update),
    (t) => {
      const seq = t?.seq ?? 0;
      if (seq === args.seenSeq) return 'again';
      const mine = seq > args.seenSeq && !!t?.refs.includes(rfcMessageId);
      return mine && (!args.lock || t?.lock_owner === args.messageId) ? 'done' : 'refused';
    },
  );
}

/**
 * Release when the message leaves queued (or backs off); a lock already gone or taken is left alone.
 * An owned transition (docs/lost-answers.md), the message id its owner's token: a lost answer
 * re-reads the thread and sends the release again only while the lock is still this message's.
 */
export async function releaseThreadLock(
  db: Db,
  identityId: string,
  threadId: string,
  messageId: string,
): Promise<void> {
  await threadWrite(
    db,
    identityId,
    threadId,
    () =>
      db.update({
        TableName: db.table,
        Key: key(identityId, threadId),
        UpdateExpression: 'REMOVE lock_owner, lock_until',
        ConditionExpression: 'lock_owner = :me',
        ExpressionAttributeValues: { ':me': messageId },
      }),
    (t) => (t?.lock_owner === messageId ? 'again' : 'done'),
  );
}

/**
 * Refresh the lease when a transport attempt begins (to now + 60 s, so a slow provider call keeps its thread).
 * An owned transition (docs/lost-answers.md), the message id its owner's token: a lost answer
 * re-reads the thread and sends the refresh again only while the lock is this message's and its
 * lease still ends before `until`.
 */
export async function refreshThreadLock(
  db: Db,
  identityId: string,
  threadId: string,
  messageId: string,
  until: number,
): Promise<void> {
  await threadWrite(
    db,
    identityId,
    threadId,
    () =>
      db.update({
        TableName: db.table,
        Key: key(identityId, threadId),
        UpdateExpression: 'SET lock_until = :until',
        ConditionExpression: 'lock_owner = :me AND lock_until < :until',
        ExpressionAttributeValues: { ':me': messageId, ':until': until },
      }),
    (t) => (t?.lock_owner === messageId && (t.lock_until ?? 0) < until ? 'again' : 'done'),
  );
}
