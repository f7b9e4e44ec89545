import { gunzipSync, gzipSync } from 'node:zlib';
import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Db } from './db.ts';
import { isConditionFailed, oldItem } from './db.ts';
import { keys } from './keys.ts';

/**
 * DESIGN § 5.1 — the idempotency item replaces the seed's in-memory `in_flight` set: a conditional
 * put of an `in_progress` item with an owner and a lease, completed in the storage transaction on
 * condition that the owner is still us, deleted on any failure.
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

/**
 * Step 2: take the key for this request. The put wins where the item is absent, expired, or an
 * in-progress item whose lease has passed; losing returns what the winner left (step 1 again).
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
  },
): Promise<{ type: 'reserved' } | Lookup> {
  const { identityId, keyHash, fingerprint, operation, owner, now } = args;
  const item: IdempotencyItem = {
    state: 'in_progress',
    owner,
    lease_until: now + LEASE_MS,
    fingerprint,
    operation,
    created_at: now,
    expires_at: now + KEEP_MS,
  };
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
        ConditionExpression:
          'attribute_not_exists(pk) OR expires_at <= :now OR (#state = :in_progress AND lease_until <= :now)',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':now': now, ':in_progress': 'in_progress' },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return { type: 'reserved' };
  } catch (err) {
    if (!isConditionFailed(err)) throw err;
    const lookup = evaluate(oldItem<IdempotencyItem>(err), fingerprint, now);
    // The item changed between the failed condition and its evaluation only if a lease just ran out.
    return lookup.type === 'absent' ? { type: 'in_progress' } : lookup;
  }
}

/** Step 5: any error after the reservation gives the key back (only if it is still ours). */
export async function releaseIdempotency(
  db: Db,
  identityId: string,
  keyHash: string,
  owner: string,
): Promise<void> {
  try {
    await db.doc.send(
      new DeleteCommand({
        TableName: db.table,
        Key: keys.idempotency(identityId, keyHash),
        ConditionExpression: '#owner = :owner AND #state = :in_progress',
        ExpressionAttributeNames: { '#owner': 'owner', '#state': 'state' },
        ExpressionAttributeValues: { ':owner': owner, ':in_progress': 'in_progress' },
      }),
    );
  } catch (err) {
    if (!isConditionFailed(err)) throw err;
  }
}

/** The transaction item that completes the reservation (step 4), on condition the owner is us. */
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
  const expiresAt = args.now + KEEP_MS;
  return {
    Update: {
      TableName: db.table,
      Key: keys.idempotency(args.identityId, args.keyHash),
      UpdateExpression:
        'SET #state = :completed, message_id = :mid, #response = :response, expires_at = :exp, #ttl = :ttl REMOVE lease_until, #owner',
      ConditionExpression: '#owner = :owner AND #state = :in_progress',
      ExpressionAttributeNames: {
        '#state': 'state',
        '#owner': 'owner',
        '#response': 'response',
        '#ttl': 'ttl',
      },
      ExpressionAttributeValues: {
        ':completed': 'completed',
        ':in_progress': 'in_progress',
        ':owner': args.owner,
        ':mid': args.messageId,
        ':response': gzipSync(args.response, { level: 9 }),
        ':exp': expiresAt,
        ':ttl': ttlOf(expiresAt),
      },
    },
  };
}

/** DynamoDB TTL takes epoch seconds. */
export const ttlOf = (ms: number) => Math.ceil(ms / 1000);
