import { requestInProgress } from '../core/errors.ts';
import { storedAnswer } from '../core/idempotency.ts';
import type { Deps } from '../deps.ts';
import { errorFields } from '../log.ts';
import {
  abandonIdempotency,
  completeIdempotency,
  lookupIdempotency,
  type Reserved,
  releaseIdempotency,
  reserveIdempotency,
} from '../store/idempotency.store.ts';

/**
 * The reservation protocol as the four sends and resolve use it, written once
 * (docs/architecture.md › The submit path, step 2).
 * A key is identified by the identity and the SHA-256 of its value; `fingerprint` is the request's.
 */
export interface KeyRef {
  identityId: string;
  keyHash: string;
  fingerprint: string;
}

/** The first read (docs/architecture.md › The submit path, step 1): a consistent read of the key; its stored answer, or undefined when it is free. */
export async function lookupKey(deps: Pick<Deps, 'db' | 'clock'>, key: KeyRef): Promise<string | undefined> {
  return storedAnswer(
    await lookupIdempotency(deps.db, key.identityId, key.keyHash, key.fingerprint, deps.clock()),
  );
}

/**
 * The reservation (step 2): the conditional put of an `in_progress` item owned by `owner` with a
 * lease (a send's carries the message id it mints). `reserved` when this request now owns the key,
 * with the message id to write (kept from an earlier owner whose lease passed: `attempt` > 0);
 * `replay` with the stored answer when a request with the same body completed it in between;
 * throws as core/idempotency.ts › `storedAnswer` for a conflict or a request still running.
 */
export async function reserveKey(
  deps: Pick<Deps, 'db' | 'clock'>,
  key: KeyRef & { operation: string; owner: string; messageId?: string },
): Promise<Reserved | { type: 'replay'; response: string }> {
  const reserved = await reserveIdempotency(deps.db, { ...key, now: deps.clock() });
  if (reserved.type === 'reserved') return reserved;
  return { type: 'replay', response: storedAnswer(reserved)! };
}

/**
 * After a send's message is written (step 7): complete the key with `response`. The answer to
 * give: `response`, or what the key holds when another request completed it first.
 */
export async function completeKey(
  deps: Pick<Deps, 'db' | 'clock'>,
  key: KeyRef & { messageId: string },
  response: string,
): Promise<string> {
  const done = await completeIdempotency(deps.db, {
    identityId: key.identityId,
    keyHash: key.keyHash,
    messageId: key.messageId,
    response,
    now: deps.clock(),
  });
  if (done) return response;
  const held = await lookupKey(deps, key);
  if (held === undefined) throw requestInProgress();
  return held;
}

/**
 * A failure (step 7) when the key's message may exist or may still be written (a put whose answer
 * was lost, a key taken over from an owner that may still run): keep the message id, end the lease;
 * never throws.
 */
export async function abandonKey(
  deps: Pick<Deps, 'db' | 'log' | 'clock'>,
  key: Pick<KeyRef, 'identityId' | 'keyHash'>,
  owner: string,
): Promise<void> {
  await abandonIdempotency(deps.db, key.identityId, key.keyHash, owner, deps.clock()).catch((e) =>
    deps.log.error('idempotency abandon failed', { identity_id: key.identityId, ...errorFields(e) }),
  );
}

/**
 * A failure (step 7) after the reservation, its message certainly not written: give the key back
 * (if still ours); never throws.
 */
export async function releaseKey(
  deps: Pick<Deps, 'db' | 'log'>,
  key: Pick<KeyRef, 'identityId' | 'keyHash'>,
  owner: string,
): Promise<void> {
  await releaseIdempotency(deps.db, key.identityId, key.keyHash, owner).catch((e) =>
    deps.log.error('idempotency release failed', { identity_id: key.identityId, ...errorFields(e) }),
  );
}
