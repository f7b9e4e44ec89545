import { sendFingerprint, sendTarget, sha256Hex } from '../../core/fingerprint.ts';
import type { MessageRecord } from '../../core/model.ts';
import type { Deps } from '../../deps.ts';
import { getMessage } from '../../store/messages.store.ts';
import { type KeyRef, reserveKey } from '../idempotency.ts';
import { type LoadedSubmit, loadSubmit, type PreparePorts } from '../prepare.ts';
import type { SubmitInput } from './input.ts';

/** The Idempotency-Key this request holds: its reference, owner, attempt and the message id minted. */
export type HeldKey = KeyRef & { owner: string; attempt: number; messageId: string };

/** The reservation's end: the key held (with the pipeline's load beside it), or a stored answer. */
export type Reservation =
  | { type: 'held'; key: HeldKey; loaded: PromiseSettledResult<LoadedSubmit> }
  | { type: 'replay'; response: string };

/** The key's reference: the identity, the key's hash, the fingerprint over the body as received. */
function keyRefOf(input: SubmitInput): KeyRef {
  const { identity, operation } = input;
  const target = sendTarget(operation, identity.id, input.targetMessageId);
  return {
    identityId: identity.id,
    keyHash: sha256Hex(input.idempotencyKey!),
    fingerprint: sendFingerprint(operation, target, input.request.raw),
  };
}

/** The pipeline's load (send/prepare.ts): the snapshot its checks need, the tenant among its reads. */
export const load = (deps: PreparePorts, input: SubmitInput): Promise<LoadedSubmit> =>
  loadSubmit(deps, {
    tenant: input.tenant,
    identity: input.identity,
    operation: input.operation,
    targetMessageId: input.targetMessageId,
    body: input.request.body,
  });

/**
 * Reserve (docs/architecture.md › The submit path), beside the pipeline's load and the tenant's
 * read (one BatchGetItem): one round trip. The reservation mints the message id (an earlier
 * owner's, kept, when its lease passed); its answer is decided on first, so a refusal comes in the
 * same order as if read after, and a load that failed is the held key's to give back.
 */
export async function reserve(deps: PreparePorts, input: SubmitInput): Promise<Reservation> {
  const ref = keyRefOf(input);
  const owner = input.requestId;
  const [loaded, reservation] = await Promise.allSettled([
    load(deps, input),
    reserveKey(deps, { ...ref, operation: input.operation, owner, messageId: `msg_${deps.newId()}` }),
  ]);
  if (reservation.status === 'rejected') throw reservation.reason;
  if (reservation.value.type === 'replay') return reservation.value;
  const { attempt, message_id } = reservation.value;
  return { type: 'held', key: { ...ref, owner, attempt, messageId: message_id! }, loaded };
}

/**
 * A takeover's first look: the message an earlier owner of the key may have written before it
 * stopped (that message is the send). A request that minted the id has none to find.
 */
export async function earlierWrite(deps: Pick<Deps, 'db'>, key: HeldKey): Promise<MessageRecord | undefined> {
  return key.attempt > 0 ? getMessage(deps.db, key.identityId, key.messageId, true) : undefined;
}
