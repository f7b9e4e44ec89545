import { type Db, isConditionFailed, isOutcomeUnknown, putOnce } from './db.ts';
import { KEEP_MS, LEASE_MS, ttlOf } from './idempotency.store.ts';

/**
 * Idempotency-Key on control-plane POSTs (keys, rotations, tenants, identities): scoped to the calling
 * key (`CK#{key_id}` / `IK#{sha256(key)}`), kept 30 days. The reservation is an `in_progress` item
 * with a lease; the change's own transaction completes it with the response to replay, so a change
 * and its replay record are written together or not at all. A response that carried a secret is
 * stored without it.
 */
export interface ControlIdempotency {
  callerKeyId: string;
  keyHash: string;
  fingerprint: string;
  owner: string;
  now: number;
}

export type ControlLookup =
  | { type: 'reserved' }
  | { type: 'replay'; status: number; body: string }
  | { type: 'conflict' }
  | { type: 'in_progress' };

const itemKey = (c: Pick<ControlIdempotency, 'callerKeyId' | 'keyHash'>) => ({
  pk: `CK#${c.callerKeyId}`,
  sk: `IK#${c.keyHash}`,
});

/**
 * Take the key for this request (docs/lost-answers.md › create): the reservation carries the
 * request's owner as its writer token, so a put whose answer was lost is sent again and a refusal
 * that finds this request's own reservation is `reserved`, never `in_progress` for the very request
 * that holds it. Another request's reservation or completed answer decides as before.
 */
export async function reserveControl(db: Db, c: ControlIdempotency): Promise<ControlLookup> {
  const out = await putOnce(
    db,
    {
      Item: {
        ...itemKey(c),
        type: 'control_idempotency',
        state: 'in_progress',
        owner: c.owner,
        lease_until: c.now + LEASE_MS,
        fingerprint: c.fingerprint,
        expires_at: c.now + KEEP_MS,
        ttl: ttlOf(c.now + KEEP_MS),
      },
      ConditionExpression:
        'attribute_not_exists(pk) OR expires_at <= :now OR (#state = :in_progress AND lease_until <= :now)',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: { ':now': c.now, ':in_progress': 'in_progress' },
    },
    c.owner,
  );
  if (out.written) return { type: 'reserved' };
  const old = out.old as { state?: string; fingerprint?: string; status?: number; body?: string } | undefined;
  if (old?.state !== 'completed') return { type: 'in_progress' };
  if (old.fingerprint !== c.fingerprint) return { type: 'conflict' };
  return { type: 'replay', status: old.status ?? 200, body: old.body ?? '{}' };
}

/**
 * The transaction item that completes the reservation with what a replay answers: it goes in the
 * change's own transaction, which the table's client resends with its ClientRequestToken when an answer is lost
 * (docs/lost-answers.md › transaction), so a resend finds no reservation to refuse it.
 */
export function completeControlUpdate(db: Db, c: ControlIdempotency, status: number, replayBody: string) {
  return {
    Update: {
      TableName: db.table,
      Key: itemKey(c),
      UpdateExpression: 'SET #state = :completed, #status = :status, body = :body REMOVE lease_until, #owner',
      ConditionExpression: '#owner = :owner AND #state = :in_progress',
      ExpressionAttributeNames: { '#state': 'state', '#owner': 'owner', '#status': 'status' },
      ExpressionAttributeValues: {
        ':completed': 'completed',
        ':in_progress': 'in_progress',
        ':owner': c.owner,
        ':status': status,
        ':body': replayBody,
      },
    },
  };
}

/** How often a release whose answers keep getting lost is sent before the error goes up. */
const RELEASE_SENDS = 3;

/**
 * Any failure after the reservation gives the key back (only if it is still ours). An owned
 * transition (docs/lost-answers.md): the delete is conditioned on this request's owner token, so a
 * lost answer sends it again; a refusal means the reservation is gone (this send's or an earlier
 * one's) or another request's, and either way is no longer ours to give back.
 */
export async function releaseControl(db: Db, c: ControlIdempotency): Promise<void> {
  for (let send = 1; ; send++) {
    try {
      await db.delete({
        TableName: db.table,
        Key: itemKey(c),
        ConditionExpression: '#owner = :owner AND #state = :in_progress',
        ExpressionAttributeNames: { '#owner': 'owner', '#state': 'state' },
        ExpressionAttributeValues: { ':owner': c.owner, ':in_progress': 'in_progress' },
      });
      return;
    } catch (err) {
      if (isConditionFailed(err)) return;
      if (!isOutcomeUnknown(err) || send >= RELEASE_SENDS) throw err;
    }
  }
}
