import { gunzipSync, gzipSync } from 'node:zlib';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Db } from './db.ts';
import { conditionally, isConditionFailed, oldItem } from './db.ts';
import { keys } from './keys.ts';

/**
 * DESIGN § 5.1 — the idempotency item replaces the seed's in-memory `in_flight` set: a conditional
 * put of an `in_progress` item with an owner and a lease. A send's reservation also mints the
 * message id (`message_id`), kept across lease takeovers, so the message's conditional put is the
 * commit point and the key is completed after it (docs/architecture.md › The submit path).
 * Resolve completes its key in the transaction of its transition, on condition that the owner is
 * still us. A failure gives the key back: deleted when its message certainly was not written and
 * cannot be, else left for the next request to take over at once (`abandonIdempotency`).
 */
export const LEASE_MS = 60_000;
export const KEEP_MS = 30 * 24 * 3600 * 1000;

export interface IdempotencyItem {
  state: 'in_progress' | 'completed';
  owner?: string;
  lease_until?: number;
  fingerprint: string;
  operation: string;
  message_id?: string;
  /** How many requests took this in-progress key over after an earlier owner's lease passed. */
  attempt?: number;
  /**
   * The stored 202 body (JSON of the Message object), gzipped: it keeps the item under 1 KB, so
   * completing it in the submit transaction costs one write unit instead of two.
   */
  response?: Uint8Array;
  created_at: number;
  expires_at: number;
}

export type Lookup =
  | { type: 'absent' }
  | { type: 'replay'; response: string; message_id: string }
  | { type: 'conflict'; message_id?: string }
  | { type: 'in_progress' };

/** seed 000 › Reservation step 1, evaluated on an item (read, or returned by a failed put). */
export function evaluate(item: IdempotencyItem | undefined, fingerprint: string, now: number): Lookup {
  if (!item || item.expires_at <= now) return { type: 'absent' };
  if (item.state === 'completed') {
    if (item.fingerprint === fingerprint) {
      return {
        type: 'replay',
        response: gunzipSync(item.response!).toString('utf8'),
        message_id: item.message_id!,
      };
    }
    return { type: 'conflict', message_id: item.message_id };
  }
  if ((item.lease_until ?? 0) > now) return { type: 'in_progress' };
  return { type: 'absent' };
}

export async function lookupIdempotency(
  db: Db,
  identityId: string,
  keyHash: string,
  fingerprint: string,
  now: number,
): Promise<Lookup> {
  const out = await db.doc.send(
    new GetCommand({ TableName: db.table, Key: keys.idempotency(identityId, keyHash), ConsistentRead: true }),
  );
  return evaluate(out.Item as IdempotencyItem | undefined, fingerprint, now);
}

/** The key is ours: `message_id` (a send's) minted now or kept from an owner whose lease passed. */
export interface Reserved {
  type: 'reserved';
  message_id?: string;
  /** 0 for the request that minted the id; n for the n-th takeover. */
  attempt: number;
}

/**
 * Step 2: take the key for this request. The put wins where the item is absent or expired; an
 * in-progress item whose lease has passed is taken over by an update that keeps its `message_id`
 * (the earlier owner may have written that message, or may still: one id, one message). A takeover
 * by a different request (another fingerprint) of a key that already names a message is a
 * conflict: that message may exist, and its request is not this one. Losing returns what the
 * winner left (step 1 again).
 */
export async function reserveIdempotency(
  db: Db,
  args: {
    identityId: string;
    keyHash: string;
    fingerprint: string;
    operation: string;
    owner: string;
    now: number;
    /** A send's message id, minted by the caller; stored with the reservation. */
    messageId?: string;
  },
): Promise<Reserved | Lookup> {
  const { identityId, keyHash, fingerprint, operation, owner, now } = args;
  const item: IdempotencyItem = {
    state: 'in_progress',
    owner,
    lease_until: now + LEASE_MS,
    fingerprint,
    operation,
    ...(args.messageId ? { message_id: args.messageId } : {}),
    created_at: now,
    expires_at: now + KEEP_MS,
  };
  let old: IdempotencyItem | undefined;
  try {
    await db.doc.send(
      new PutCommand({
        TableName: db.table,
        Item: {
          ...keys.idempotency(identityId, keyHash),
          type: 'idempotency',
          ...item,
          ttl: ttlOf(item.expires_at),
        },
        ConditionExpression: 'attribute_not_exists(pk) OR expires_at <= :now',
        ExpressionAttributeValues: { ':now': now },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return { type: 'reserved', message_id: args.messageId, attempt: 0 };
  } catch (err) {
    if (!isConditionFailed(err)) throw err;
    old = oldItem<IdempotencyItem & { owner: string }>(err);
  }
  const lookup = evaluate(old, fingerprint, now);
  if (lookup.type !== 'absent' || !old) return lookup.type === 'absent' ? { type: 'in_progress' } : lookup;
  // An in-progress item whose lease has passed.
  if (old.message_id && old.fingerprint !== fingerprint) return { type: 'conflict' };
  const kept = old.message_id ?? args.messageId;
  const attempt = (old.attempt ?? 0) + 1;
  try {
    await db.doc.send(
      new UpdateCommand({
        TableName: db.table,
        Key: keys.idempotency(identityId, keyHash),
        UpdateExpression:
          'SET #owner = :owner, lease_until = :lease, fingerprint = :fp, operation = :op, attempt = :attempt' +
          (kept ? ', message_id = :mid' : ''),
        ConditionExpression: '#state = :in_progress AND #owner = :old AND lease_until <= :now',
        ExpressionAttributeNames: { '#owner': 'owner', '#state': 'state' },
        ExpressionAttributeValues: {
          ':owner': owner,
          ':lease': now + LEASE_MS,
          ':fp': fingerprint,
          ':op': operation,
          ':attempt': attempt,
          ':in_progress': 'in_progress',
          ':old': old.owner ?? '',
          ':now': now,
          ...(kept ? { ':mid': kept } : {}),
        },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return { type: 'reserved', message_id: kept, attempt };
  } catch (err) {
    if (!isConditionFailed(err)) throw err;
    const again = evaluate(oldItem<IdempotencyItem>(err), fingerprint, now);
    // Another request took it over first (or it changed as a lease ran out): it runs.
    return again.type === 'absent' ? { type: 'in_progress' } : again;
  }
}

/** The condition of a write by the key's holder: it is still in progress and still ours. */
const stillOurs = (owner: string) => ({
  ConditionExpression: '#owner = :owner AND #state = :in_progress',
  ExpressionAttributeNames: { '#owner': 'owner', '#state': 'state' },
  ExpressionAttributeValues: { ':owner': owner, ':in_progress': 'in_progress' },
});

/** Step 5: any error after the reservation gives the key back (only if it is still ours). */
export async function releaseIdempotency(
  db: Db,
  identityId: string,
  keyHash: string,
  owner: string,
): Promise<void> {
  await conditionally(
    db.doc.send(
      new DeleteCommand({
        TableName: db.table,
        Key: keys.idempotency(identityId, keyHash),
        ...stillOurs(owner),
      }),
    ),
  );
}

/**
 * Give the key back without forgetting its message id: the lease ends now, so the next request with
 * the same body takes it over at once and finds the message if it was written. Used when the
 * message may exist (a put whose answer was lost) or may still be written (an earlier owner whose
 * lease passed); only if it is still ours.
 */
export async function abandonIdempotency(
  db: Db,
  identityId: string,
  keyHash: string,
  owner: string,
  now: number,
): Promise<void> {
  const ours = stillOurs(owner);
  await conditionally(
    db.doc.send(
      new UpdateCommand({
        TableName: db.table,
        Key: keys.idempotency(identityId, keyHash),
        UpdateExpression: 'SET lease_until = :now',
        ...ours,
        ExpressionAttributeValues: { ...ours.ExpressionAttributeValues, ':now': now },
      }),
    ),
  );
}

/**
 * Step 4 of a send, after its message was written: complete the key with the answer, on condition
 * that it is still in progress for that message. Whoever holds the message completes it — the
 * request that wrote it, or one that took the key over and found it — so no owner condition: the
 * message id is the commit. False when the key was completed already (replay what it holds).
 */
export async function completeIdempotency(
  db: Db,
  args: { identityId: string; keyHash: string; messageId: string; response: string; now: number },
): Promise<boolean> {
  const completion = completionUpdate(args);
  try {
    await db.doc.send(
      new UpdateCommand({
        TableName: db.table,
        Key: keys.idempotency(args.identityId, args.keyHash),
        ...completion,
        ConditionExpression: '#state = :in_progress AND message_id = :mid',
      }),
    );
    return true;
  } catch (err) {
    if (!isConditionFailed(err)) throw err;
    return false;
  }
}

/** Resolve's transaction item that completes its reservation, on condition the owner is us. */
export function completeIdempotencyUpdate(
  db: Db,
  args: {
    identityId: string;
    keyHash: string;
    owner: string;
    messageId: string;
    response: string;
    now: number;
  },
) {
  const completion = completionUpdate(args);
  return {
    Update: {
      TableName: db.table,
      Key: keys.idempotency(args.identityId, args.keyHash),
      ...completion,
      ConditionExpression: '#owner = :owner AND #state = :in_progress',
      ExpressionAttributeValues: { ...completion.ExpressionAttributeValues, ':owner': args.owner },
    },
  };
}

/** A key's completion, whoever completes it: the answer kept (gzipped) for the key's 24 hours. */
function completionUpdate(args: { messageId: string; response: string; now: number }) {
  const expiresAt = args.now + KEEP_MS;
  return {
    UpdateExpression:
      'SET #state = :completed, message_id = :mid, #response = :response, expires_at = :exp, #ttl = :ttl REMOVE lease_until, #owner',
    ExpressionAttributeNames: {
      '#state': 'state',
      '#owner': 'owner',
      '#response': 'response',
      '#ttl': 'ttl',
    },
    ExpressionAttributeValues: {
      ':completed': 'completed',
      ':in_progress': 'in_progress',
      ':mid': args.messageId,
      ':response': gzipSync(args.response, { level: 9 }),
      ':exp': expiresAt,
      ':ttl': ttlOf(expiresAt),
    } as Record<string, unknown>,
  };
}

/** DynamoDB TTL takes epoch seconds. */
export const ttlOf = (ms: number) => Math.ceil(ms / 1000);
