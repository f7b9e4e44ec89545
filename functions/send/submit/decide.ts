import { approvalNeeded } from '../../core/approval.ts';
import { allRecipientsSuppressed, invalidSendAt, rateLimited, recipientBlocked } from '../../core/errors.ts';
import { sendFingerprint, sendTarget } from '../../core/fingerprint.ts';
import { storedAnswer } from '../../core/idempotency.ts';
import { MAX_SCHEDULE_MS } from '../../core/limits.ts';
import type { Identity, Tenant } from '../../core/model.ts';
import type { SendCommand } from '../../core/send-command.ts';
import type { Deps } from '../../deps.ts';
import { verdictOf } from '../../store/idempotency.store.ts';
import { rateRetryAfter } from '../../store/quota.store.ts';
import { type LoadedSubmit, type Prepared, type PreparePorts, prepareSubmit } from '../prepare.ts';
import { type DryRunResult, keyFlags, replayed, type SubmitInput, type SubmitResult } from './input.ts';
import { type HeldKey, load } from './reserve.ts';

/**
 * The rate window and the key's stored answer, on the first read alone: 429 rate_limited when
 * the identity's window is full (replays included: a replay counts against it too), the stored
 * answer of a duplicate (or 409 for a conflict or a request still running); undefined when the
 * send goes on.
 */
export function answerFromFirstRead(input: SubmitInput): SubmitResult | undefined {
  const { first } = input;
  if (first.rateFull) throw rateLimited(rateRetryAfter(first.now));
  if (input.dryRun || input.idempotencyKey === undefined) return undefined;
  const fingerprint = sendFingerprint(
    input.operation,
    sendTarget(input.operation, input.identity.id, input.targetMessageId),
    input.request.raw,
  );
  const seen = storedAnswer(verdictOf(first.idempotency, fingerprint, first.now));
  return seen === undefined ? undefined : replayed(seen);
}

/**
 * A scheduled send: in the future, at most 30 days ahead (checked after the replay: a stored
 * answer is replayed even once its send_at has passed).
 */
export function checkSendAt(sendAt: string | undefined, now: number): void {
  if (sendAt === undefined) return;
  const at = Date.parse(sendAt);
  if (at > now && at <= now + MAX_SCHEDULE_MS) return;
  throw invalidSendAt();
}

/**
 * Dry run: 200 with each recipient's fate, or 422 when a recipient is on the send-block
 * list (recipient_blocked) or nobody would receive it (all_recipients_suppressed). It decides and
 * composes, and writes nothing.
 */
export async function dryRun(deps: PreparePorts, input: SubmitInput): Promise<SubmitResult> {
  const p = await prepareSubmit(deps, await load(deps, input), deps.newId());
  const recipients: DryRunResult['recipients'] = p.recipients.map((r, i) => {
    const d = p.decisions[i];
    return d.status === 'queued'
      ? { address: r.address, field: r.field, status: 'queued' as const }
      : { address: r.address, field: r.field, status: 'suppressed' as const, reason: d.reason };
  });
  const blocked = recipients.filter((r) => r.reason === 'send_block');
  if (blocked.length > 0) throw recipientBlocked(blocked.map(({ address, field }) => ({ address, field })));
  if (recipients.every((r) => r.status === 'suppressed')) throw allRecipientsSuppressed(recipients);
  return { type: 'dry_run', result: { would_send: true, recipients } };
}

/** A send decided: what it is, and how it is written — counted or waiting for approval. */
export interface Decided {
  tenant: Tenant;
  identity: Identity;
  operation: SubmitInput['operation'];
  body: SendCommand;
  key: HeldKey;
  prepared: Prepared;
  /** When the writes started: the day counted, the thread's wait. */
  started: number;
  /** Every recipient suppressed: counted in the rate window only, never dispatched. */
  suppressedAll: boolean;
  /** Waits for a person's approval: counts nothing (send/approval.ts counts it when approved). */
  pending: boolean;
}

/**
 * Decide: the pipeline's checks and the composition (send/prepare.ts › prepareSubmit, under the id
 * the reservation minted), then whether the send waits for approval (core/approval.ts).
 */
export async function decide(
  deps: PreparePorts & Pick<Deps, 'clock'>,
  input: SubmitInput,
  loaded: LoadedSubmit,
  key: HeldKey,
): Promise<Decided> {
  const prepared = await prepareSubmit(deps, loaded, key.messageId.slice('msg_'.length));
  const started = deps.clock();
  const suppressedAll = prepared.decisions.every((d) => d.status === 'suppressed');
  const queued = prepared.decisions.filter((d) => d.status === 'queued').map((d) => d.address);
  const approval = approvalNeeded(input.identity, keyFlags(input), queued, prepared.contacts);
  return {
    tenant: loaded.tenant,
    identity: input.identity,
    operation: input.operation,
    body: input.request.body,
    key,
    prepared,
    started,
    suppressedAll,
    pending: !suppressedAll && !!approval,
  };
}
