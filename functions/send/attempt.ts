import { NotCancelableError } from '../core/errors.ts';
import { sha256Hex } from '../core/fingerprint.ts';
import type { MessageRecord, RecordedClaim } from '../core/model.ts';
import { returnPathsOf } from '../core/return-path.ts';
import {
  type ClaimDecision,
  deadAttemptOutcome,
  decideClaim,
  decideRecord,
  type RecordContext,
  senderStop,
  suppressAtSend,
} from '../core/send-attempt.ts';
import type { TransportResult, TransportTaskResult } from '../core/transport-result.ts';
import { unlessReplyCheck } from '../core/unless-reply.ts';
import type { Deps } from '../deps.ts';
import type { DepsFor } from '../lambda-ports.ts';
import { countAttempt } from '../metrics.ts';
import { addSuppression, emitAttemptEnd } from '../outcomes/outcomes.ts';
import { getIdentity, getTenant } from '../store/directory.store.ts';
import { getMessage, mayHaveApplied, mutateMessage } from '../store/messages.store.ts';
import { getSuppressionsFor } from '../store/suppressions.store.ts';
import { refreshThreadLock, releaseThreadLock } from '../store/threads.store.ts';
import type { TransportChoice } from '../transports/transport.ts';
import { cancelSend } from './actions.ts';
import { chooseClaimTransport } from './claim-transport.ts';
import type { SendAttemptInput } from './dispatcher.ts';
import { deliverLoopback } from './loopback-delivery.ts';
import type { UnlessReplyCheck } from './unless-reply.ts';

/**
 * The tasks of statemachines/send-attempt.asl.json (docs/architecture.md › The
 * attempt's writes, step by step): Claim (reads and decides) → the provider's transport task
 * (functions/send/transport-task.ts, chosen by `ByProvider`: writes the claim with its `sending`
 * mark, then calls the provider once) → Record.
 */

export type ClaimOutput =
  | ({
      outcome: 'claimed';
      token: string;
      /** The relay's transport only: each queued recipient's signed return path (core/return-path.ts). */
      return_paths?: Record<string, string>;
      /** A follow-up that waits for no answer: what its claim checks on the thread (send/unless-reply.ts). */
      unless_reply?: UnlessReplyCheck;
    } & TransportChoice)
  | {
      outcome: 'stop';
      reason: Exclude<ClaimDecision['type'], 'claim'> | 'not_found' | 'canceled' | 'suppressed';
    };

/** The ports Claim uses. */
export type ClaimDeps = Pick<Deps, 'db' | 'clock' | 'newId' | 'log' | 'config' | 'metrics'>;

/**
 * The claim token is derived from the execution id: a retried task of the same execution
 * recognises its own claim, while a duplicate Express execution (same name, another id) does not.
 */
export function claimToken(executionId: string): string {
  return sha256Hex(executionId).slice(0, 32);
}

/**
 * Claim: one consistent read of the message and the decision (core/send-attempt.ts › decideClaim).
 * In the normal case it writes no claim — the transport task writes the claim and its `sending`
 * mark in one conditional write just before the provider call — and answers `claimed` with the
 * token and the transport to run. It writes only to end or hand on the message: the sender's
 * re-check (a cancel), the suppression re-check, a dead attempt's claim (uncertain), and the
 * thread lock's lease. A Claim that dies leaves nothing behind: its retry,
 * or the sweeper's next execution, decides again from scratch.
 */
export async function claim(
  deps: ClaimDeps,
  input: SendAttemptInput & { execution_id: string },
): Promise<ClaimOutput> {
  const token = claimToken(input.execution_id);
  if (await recheckSender(deps, input)) return { outcome: 'stop', reason: 'canceled' };
  const now = deps.clock();
  const read = await getMessage(deps.db, input.identity_id, input.message_id, true);
  if (!read) return { outcome: 'stop', reason: 'not_found' };
  let m = read;
  let decision = decideClaim(m, token, now);
  if (decision.type === 'stale') {
    const dead = await endDeadClaim(deps, m, token, now);
    if (!dead) return { outcome: 'stop', reason: 'not_found' };
    m = dead.message;
    decision = dead.decision;
  }
  if (decision.type !== 'claim') {
    deps.log.info('claim stopped', { message_id: input.message_id, reason: decision.type });
    return { outcome: 'stop', reason: decision.type };
  }
  const checked = await recheckSuppressions(deps, m, token, now);
  if (checked.status === 'suppressed') return { outcome: 'stop', reason: 'suppressed' };
  // The attempt holding a thread lock refreshes the lease to now + 60 s.
  if (checked.holds_lock) await refreshThreadLock(deps.db, m.identity_id, m.thread_id, m.id, now + 60_000);
  const choice = await chooseClaimTransport(deps, checked);
  // Only the relay's envelope is pmail's own: SES and Cloudflare send with their own return paths.
  const paths =
    choice.provider === 'smtp' ? { return_paths: returnPathsOf(deps.config.hashKey, checked) } : {};
  const check = unlessReplyCheck(checked);
  return { outcome: 'claimed', token, ...choice, ...paths, ...(check ? { unless_reply: check } : {}) };
}

/**
 * The previous attempt died holding the claim (older than 5 minutes): the claim carries the
 * `sending` mark, so the message becomes uncertain (core/send-attempt.ts › deadAttemptOutcome).
 * Decided again on the message as written (a versioned put): when another attempt or the
 * sweeper handled it first, the decision on what it left is returned instead. Undefined when the
 * message is gone.
 */
async function endDeadClaim(
  deps: Pick<Deps, 'db' | 'clock' | 'metrics'>,
  read: MessageRecord,
  token: string,
  now: number,
): Promise<{ decision: ClaimDecision; message: MessageRecord } | undefined> {
  let release = false;
  const out = await mutateMessage<ClaimDecision>(deps.db, read.identity_id, read.id, (m) => {
    const decision = decideClaim(m, token, now);
    if (decision.type !== 'stale') return { result: decision };
    const dead = deadAttemptOutcome(m, now, 'a previous attempt died holding the claim');
    release = dead.releaseLock;
    return { next: dead.message, result: decision };
  });
  if (!out.found) return undefined;
  const m = out.message;
  if (release) await releaseThreadLock(deps.db, m.identity_id, m.thread_id, m.id);
  if (out.result.type === 'stale') {
    deps.metrics.add('stale_claims', { by: 'claim' });
    await emitAttemptEnd(deps, m);
  }
  return { decision: out.result, message: m };
}

/**
 * Suppression is checked at enqueue as well as at send: before the transport claims the
 * message (while no other execution's claim is on it), the recipients still queued are checked
 * against the suppressions in force now (a scheduled send was enqueued days ago). The decision is
 * core/send-attempt.ts › suppressAtSend; this reads and writes it. A message left with no recipient
 * ends `suppressed` here, and no transport is called.
 */
async function recheckSuppressions(
  deps: Pick<Deps, 'db' | 'clock' | 'config' | 'metrics' | 'log'>,
  m: MessageRecord,
  token: string,
  now: number,
): Promise<MessageRecord> {
  const queued = (m.deliveries ?? []).filter((d) => d.status === 'queued').map((d) => d.address);
  if (queued.length === 0) return m;
  const found = await getSuppressionsFor(deps.db, m.tenant_id, deps.config.hashKey, queued);
  if (!suppressAtSend(m, found, now)) return m;
  let release = false;
  const out = await mutateMessage(deps.db, m.identity_id, m.id, (cur) => {
    // Not while another execution's claim is on it: that attempt is calling the provider.
    if (decideClaim(cur, token, now).type !== 'claim') return { result: undefined };
    const decided = suppressAtSend(cur, found, now);
    if (!decided) return { result: undefined };
    release = decided.releaseLock;
    return { next: decided.message, result: undefined };
  });
  if (!out.found) return m;
  if (release) await releaseThreadLock(deps.db, m.identity_id, m.thread_id, m.id);
  if (out.message.status === 'suppressed') {
    await emitAttemptEnd(deps, out.message);
    deps.log.info('claim found every recipient suppressed', { message_id: m.id });
  }
  return out.message;
}

/**
 * The sender re-check (core/send-attempt.ts › senderStop): an identity paused or being deleted, or
 * a suspended tenant, sends nothing more: the queued message is canceled by `system`. True when
 * this re-check canceled it.
 */
async function recheckSender(
  deps: Pick<Deps, 'db' | 'clock' | 'newId' | 'log'>,
  input: SendAttemptInput,
): Promise<boolean> {
  const [identity, tenant] = await Promise.all([
    getIdentity(deps.db, input.identity_id),
    getTenant(deps.db, input.tenant_id),
  ]);
  const reason = senderStop(tenant, identity);
  if (!reason || !tenant) return false;
  const m = await getMessage(deps.db, input.identity_id, input.message_id, true);
  if (m?.status !== 'queued') return false;
  try {
    await cancelSend(deps, {
      tenant,
      identityId: input.identity_id,
      messageId: input.message_id,
      actor: 'system',
      reason,
    });
    deps.log.info('claim canceled the message', { message_id: input.message_id, reason });
    return true;
  } catch (err) {
    // A claim is active or part was sent: leave it to that attempt.
    if (err instanceof NotCancelableError) return false;
    throw err;
  }
}

export interface RecordOutput {
  /** `wait`: the parent execution waits `seconds` and loops; `start`: a Standard execution must start. */
  next: 'done' | 'wait' | 'start';
  seconds?: number;
  /** The Standard execution to start (its name is on the message already). */
  start?: {
    name: string;
    input: { tenant_id: string; identity_id: string; message_id: string; send_at: string };
  };
  status?: string;
}

/** ±10 % of the back-off; drawn here, outside the pure core. */
const drawJitter = () => (Math.random() * 2 - 1) * 0.1;

/**
 * Record: loopback's inbound copies, then the result applied under our claim in one versioned put
 * (`writeRecord`, deciding with core/send-attempt.ts › decideRecord), what follows the write
 * (`afterRecord`, the attempt's end event) and the machine's answer (`recordOutput`). A claim that
 * is not ours means someone else decided —
 * unless this is a retry of the Record that cleared it: the message keeps the claim token
 * it recorded and the `next` it answered, and a retry gets that answer again and releases the
 * thread lock again (a no-op when the first release happened). A back-off names the execution
 * coming for the message in the same write: the parent Standard execution when there is one (it
 * waits and loops), else a new Standard execution, started by the machine after this task (also
 * when the parent hands off before its history limit). A transport that found the message claimed
 * or decided by another (`not_claimed`) has nothing to record: the machine skips Record for it, and
 * Record answers `done` and writes nothing should it get one anyway (an execution of the previous
 * definition during a deploy).
 */
export async function record(deps: DepsFor<'send-attempt'>, input: RecordInput): Promise<RecordOutput> {
  if (input.result.type === 'not_claimed') return { next: 'done' };
  const result = input.result;
  if (result.type === 'accepted' && result.loopback?.length) {
    const sent = await getMessage(deps.db, input.identity_id, input.message_id, true);
    if (sent) await deliverLoopback(deps, sent, result.provider_message_id, result.loopback);
  }
  const now = deps.clock();
  const { out, lost } = await writeRecord(deps, input, {
    claim: input.claim,
    result,
    now,
    jitter: input.jitter ?? drawJitter(),
    parent: input.execution?.parent ?? input.parent,
    handOff: input.execution?.hand_off ?? input.hand_off,
  });
  if (!out.found) return { next: 'done' };
  const m = out.message;
  const mine = m.recorded?.token === input.claim.token ? m.recorded : undefined;
  await afterRecord(deps, m, result, mine);
  if (out.written || (lost && mine)) countAttempt(deps.metrics, result, m, now);
  // Also when this Record found its write already done (a retry): the event may be what was lost.
  await emitAttemptEnd(deps, m);
  deps.log.info('attempt recorded', {
    message_id: input.message_id,
    result: result.type,
    status: m.status,
    written: out.written,
  });
  return { ...recordOutput(input, m, mine ? out.result : 'done'), status: m.status };
}

export type RecordInput = SendAttemptInput & {
  /** Claim's answer: its token, and `provider: 'none'` when no transport ran (`NoTransport`). */
  claim: { token: string; provider?: string };
  result: TransportTaskResult;
  /** The execution's input (`$$.Execution.Input`): `parent` and `hand_off` when a Standard execution runs it. */
  execution?: { parent?: string; hand_off?: boolean };
  jitter?: number;
};

/**
 * Record's write: core/send-attempt.ts › decideRecord on the message, in one versioned put. An
 * owned transition (docs/lost-answers.md): the claim's token is the owner. When the put's answer is
 * lost, the same decision runs again on the message read again: if the put landed, the claim is
 * gone and `recorded` carries this token, so it replays its answer and writes nothing (`lost`).
 */
async function writeRecord(deps: Pick<Deps, 'db'>, input: SendAttemptInput, context: RecordContext) {
  const decide = (m: MessageRecord) => decideRecord(m, context);
  let lost = false;
  const out = await mutateMessage<RecordedClaim['next']>(
    deps.db,
    input.identity_id,
    input.message_id,
    decide,
  ).catch((err) => {
    if (!mayHaveApplied(err)) throw err;
    lost = true;
    return mutateMessage<RecordedClaim['next']>(deps.db, input.identity_id, input.message_id, decide);
  });
  return { out, lost };
}

/**
 * What follows Record's write, each step safe to repeat: the thread lock released when this
 * token's record says so (also when this Record is a retry: the first one may have written and
 * died before releasing), and pmail's own `provider` suppressions for the recipients this
 * attempt's transport reported (idempotent, so a retried Record adds nothing twice).
 */
async function afterRecord(
  deps: Pick<Deps, 'db' | 'clock' | 'config' | 'metrics'>,
  m: MessageRecord,
  result: TransportResult,
  mine: RecordedClaim | undefined,
): Promise<void> {
  if (mine?.release) await releaseThreadLock(deps.db, m.identity_id, m.thread_id, m.id);
  for (const p of result.provider_suppressed ?? []) {
    await addSuppression(deps, m, p.address, 'provider');
  }
}

/** The answer of a Record whose outcome is `next`, built from the message as stored. */
function recordOutput(input: SendAttemptInput, m: MessageRecord, next: RecordedClaim['next']): RecordOutput {
  if (next === 'wait' && m.recorded?.seconds !== undefined) return { next, seconds: m.recorded.seconds };
  // The Standard execution to start is the one the message names, while it still waits for it.
  if (next === 'start' && m.status === 'queued' && m.dispatch) {
    return {
      next,
      start: {
        name: m.dispatch.execution,
        input: {
          tenant_id: input.tenant_id,
          identity_id: input.identity_id,
          message_id: input.message_id,
          send_at: new Date(m.dispatch.at).toISOString(),
        },
      },
    };
  }
  return { next: 'done' };
}
