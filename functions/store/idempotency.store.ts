import { gunzipSync, gzipSync } from 'node:zlib';
import { afterLostTakeover, afterRefusedPut, type KeyVerdict, keyVerdict } from '../core/idempotency.ts';
import type { Db } from './db.ts';
import { conditionally, isConditionFailed, isOutcomeUnknown, oldItem } from './db.ts';
import { keys } from './table-keys.ts';

/**
 * The idempotency item, shared by every instance (docs/architecture.md › The submit path): a conditional
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

/** The core's verdict (core/idempotency.ts) on a key's item as stored: its answer decoded when replayed. */
export function verdictOf(item: IdempotencyItem | undefined, fingerprint: string, now: number): KeyVerdict {
  return keyVerdict(item, fingerprint, now, () => decodeAnswer(item!.response!));
}

const decodeAnswer = (response: Uint8Array) => gunzipSync(response).toString('utf8');

export async function lookupIdempotency(
  db: Db,
  identityId: string,
  keyHash: string,
  fingerprint: string,
  now: number,
): Promise<KeyVerdict> {
  const out = await db.get({
    TableName: db.table,
    Key: keys.idempotency(identityId, keyHash),
    ConsistentRead: true,
  });
  return verdictOf(out.Item as IdempotencyItem | undefined, fingerprint, now);
}

/** The key is ours: `message_id` (a send's) minted now or kept from an owner whose lease passed. */
export interface Reserved {
  type: 'reserved';
  message_id?: string;
  /** 0 for the request that minted the id; n for the n-th takeover. */
  attempt: number;
}

/** How often a write of the key whose answers keep getting lost is sent before the outcome goes up. */
const SENDS = 3;

/** The key's item as stored (consistent read). */
async function readItem(
  db: Db,
  identityId: string,
  keyHash: string,
): Promise<(IdempotencyItem & { owner?: string }) | undefined> {
  const out = await db.get({
    TableName: db.table,
    Key: keys.idempotency(identityId, keyHash),
    ConsistentRead: true,
  });
  return out.Item as (IdempotencyItem & { owner?: string }) | undefined;
}

/** Held by `owner`, still in progress: the reservation's own token is on the item. */
const heldBy = (item: IdempotencyItem | undefined, owner: string): boolean =>
  item?.state === 'in_progress' && item.owner === owner;

/**
 * Reserve: take the key for this request. The put wins where the item is absent or expired; an
 * in-progress item whose lease has passed is taken over by an update that keeps its `message_id`
 * (the earlier owner may have written that message, or may still: one id, one message). A takeover
 * by a different request (another fingerprint) of a key that already names a message is a
 * conflict: that message may exist, and its request is not this one. Losing returns what the
 * winner left, decided as the first read's item is (`verdictOf`).
 *
 * Both writes recognise their own earlier send by the request's token, `owner` (docs/lost-answers.md):
 * the put is a create, sent again after a lost answer, and a refusal whose item this request holds
 * is its own reservation; the takeover is an owned transition, whose lost answer re-reads the key:
 * held by this request, it is taken; still the earlier owner's with its lease passed, it is sent
 * again; else it answers as a lost race.
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
): Promise<Reserved | KeyVerdict> {
  const put = await putReservation(db, args);
  if (put.type === 'reserved') return put;
  const { old } = put;
  const next = afterRefusedPut(old, args.fingerprint, args.now, () => decodeAnswer(old!.response!));
  return next.type === 'take_over' ? takeOver(db, args, old!) : next;
}

/**
 * The reservation's conditions, from named fragments (docs/lost-answers.md): the put creates a key
 * that is absent or expired; the takeover moves a key still in progress, held by the owner it was
 * read with, whose lease has passed.
 */
const keyAbsent = 'attribute_not_exists(pk)';
const keyExpired = 'expires_at <= :now';
const stillInProgress = '#state = :in_progress';
const heldByPrevious = '#owner = :old';
const leasePassed = 'lease_until <= :now';
const KEY_FREE = [keyAbsent, keyExpired].join(' OR ');
const LEASE_RAN_OUT = [stillInProgress, heldByPrevious, leasePassed].join(' AND ');

type ReserveArgs = Parameters<typeof reserveIdempotency>[1];
type OwnedItem = IdempotencyItem & { owner?: string };

/** The put of a new `in_progress` item; refused, the item that refused it. */
async function putReservation(
  db: Db,
  args: ReserveArgs,
): Promise<Reserved | { type: 'refused'; old: OwnedItem | undefined }> {
  const { now } = args;
  const item: IdempotencyItem = {
    state: 'in_progress',
    owner: args.owner,
    lease_until: now + LEASE_MS,
    fingerprint: args.fingerprint,
    operation: args.operation,
    ...(args.messageId ? { message_id: args.messageId } : {}),
    created_at: now,
    expires_at: now + KEEP_MS,
  };
  for (let send = 1; ; send++) {
    try {
      await db.put({
        TableName: db.table,
        Item: {
          ...keys.idempotency(args.identityId, args.keyHash),
          type: 'idempotency',
          ...item,
          ttl: ttlOf(item.expires_at),
        },
        ConditionExpression: KEY_FREE,
        ExpressionAttributeValues: { ':now': now },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      });
      return { type: 'reserved', message_id: args.messageId, attempt: 0 };
    } catch (err) {
      if (isOutcomeUnknown(err) && send < SENDS) continue;
      if (!isConditionFailed(err)) throw err;
      const old = oldItem<IdempotencyItem & { owner: string }>(err);
      // This request's own put, answered by a resend.
      if (old && heldBy(old, args.owner))
        return { type: 'reserved', message_id: old.message_id, attempt: old.attempt ?? 0 };
      return { type: 'refused', old };
    }
  }
}

/** The takeover of an in-progress key whose lease has passed: it keeps the key's message id. */
async function takeOver(db: Db, args: ReserveArgs, old: OwnedItem): Promise<Reserved | KeyVerdict> {
  const { identityId, keyHash, fingerprint, owner, now } = args;
  const kept = old.message_id ?? args.messageId;
  const attempt = (old.attempt ?? 0) + 1;
  const previous = old.owner ?? '';
  for (let send = 1; ; send++) {
    try {
      await db.update({
        TableName: db.table,
        Key: keys.idempotency(identityId, keyHash),
        UpdateExpression:
          'SET #owner = :owner, lease_until = :lease, fingerprint = :fp, operation = :op, attempt = :attempt' +
          (kept ? ', message_id = :mid' : ''),
        ConditionExpression: LEASE_RAN_OUT,
        ExpressionAttributeNames: { '#owner': 'owner', '#state': 'state' },
        ExpressionAttributeValues: {
          ':owner': owner,
          ':lease': now + LEASE_MS,
          ':fp': fingerprint,
          ':op': args.operation,
          ':attempt': attempt,
          ':in_progress': 'in_progress',
          ':old': previous,
          ':now': now,
          ...(kept ? { ':mid': kept } : {}),
        },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      });
      return { type: 'reserved', message_id: kept, attempt };
    } catch (err) {
      let seen: IdempotencyItem | undefined;
      if (isOutcomeUnknown(err)) {
        seen = await readItem(db, identityId, keyHash);
        if (seen && heldBy(seen, owner))
          return { type: 'reserved', message_id: seen.message_id, attempt: seen.attempt ?? 0 };
        const unchanged = !!seen && heldBy(seen, previous) && (seen.lease_until ?? 0) <= now;
        if (unchanged && send < SENDS) continue;
        if (unchanged) throw err;
      } else if (isConditionFailed(err)) {
        seen = oldItem<IdempotencyItem>(err);
      } else throw err;
      // Another request took it over first (or it changed as a lease ran out): it runs.
      return afterLostTakeover(verdictOf(seen, fingerprint, now));
    }
  }
}

/**
 * The condition of a write by the key's holder: it is still in progress and still ours. An owned
 * transition (docs/lost-answers.md): `ownedWrite` re-reads the key after a lost answer and sends the
 * write again only while the key is still ours and not yet as the write leaves it.
 */
const stillOurs = (owner: string) => ({
  ConditionExpression: '#owner = :owner AND #state = :in_progress',
  ExpressionAttributeNames: { '#owner': 'owner', '#state': 'state' },
  ExpressionAttributeValues: { ':owner': owner, ':in_progress': 'in_progress' },
});

/**
 * Send a write conditioned on `stillOurs`; a refusal is a no-op. A lost answer re-reads the key:
 * ours and not yet `done`, the write is sent again (at most SENDS times); otherwise it landed, or
 * the key is no longer ours to write.
 */
async function ownedWrite(
  db: Db,
  key: { identityId: string; keyHash: string; owner: string },
  write: () => Promise<unknown>,
  done: (item: IdempotencyItem) => boolean,
): Promise<void> {
  for (let send = 1; ; send++) {
    try {
      await conditionally(write());
      return;
    } catch (err) {
      if (!isOutcomeUnknown(err)) throw err;
      const seen = await readItem(db, key.identityId, key.keyHash);
      if (!seen || !heldBy(seen, key.owner) || done(seen)) return;
      if (send >= SENDS) throw err;
    }
  }
}

/** A give-back: any error after the reservation gives the key back (only if it is still ours). */
export async function releaseIdempotency(
  db: Db,
  identityId: string,
  keyHash: string,
  owner: string,
): Promise<void> {
  await ownedWrite(
    db,
    { identityId, keyHash, owner },
    () =>
      db.delete({
        TableName: db.table,
        Key: keys.idempotency(identityId, keyHash),
        ...stillOurs(owner),
      }),
    () => false,
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
  await ownedWrite(
    db,
    { identityId, keyHash, owner },
    () =>
      db.update({
        TableName: db.table,
        Key: keys.idempotency(identityId, keyHash),
        UpdateExpression: 'SET lease_until = :now',
        ...ours,
        ExpressionAttributeValues: { ...ours.ExpressionAttributeValues, ':now': now },
      }),
    (item) => (item.lease_until ?? 0) <= now,
  );
}

/**
 * Complete, after the send's message is written: complete the key with the answer, on condition
 * that it is still in progress for that message. Whoever holds the message completes it — the
 * request that wrote it, or one that took the key over and found it — so no owner condition: the
 * message id is the commit. False when the key was completed already (replay what it holds).
 *
 * An owned transition whose token is the message id (docs/lost-answers.md): a lost answer re-reads
 * the key. Still in progress for the message, it is sent again; completed with this very answer, it
 * is this call's (true); completed otherwise, false, and the caller replays what the key holds.
 */
export async function completeIdempotency(
  db: Db,
  args: { identityId: string; keyHash: string; messageId: string; response: string; now: number },
): Promise<boolean> {
  const completion = completionUpdate(args);
  for (let send = 1; ; send++) {
    try {
      await db.update({
        TableName: db.table,
        Key: keys.idempotency(args.identityId, args.keyHash),
        ...completion,
        ConditionExpression: '#state = :in_progress AND message_id = :mid',
      });
      return true;
    } catch (err) {
      if (isConditionFailed(err)) return false;
      if (!isOutcomeUnknown(err)) throw err;
      const seen = await readItem(db, args.identityId, args.keyHash);
      if (seen?.message_id !== args.messageId) return false;
      if (seen.state === 'completed') return !!seen.response && decodeAnswer(seen.response) === args.response;
      if (send >= SENDS) throw err;
    }
  }
}

/**
 * Resolve's transaction item that completes its reservation, on condition the owner is us. A
 * transaction (docs/lost-answers.md): the table's client resends it with its ClientRequestToken, and DynamoDB
 * applies it once.
 */
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
