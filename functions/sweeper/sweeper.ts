import type { MessageRecord } from '../core/model.ts';
import { CLAIM_STALE_MS, deadClaimOutcome, redispatch } from '../core/send-attempt.ts';
import type { Deps } from '../deps.ts';
import { errorFields } from '../log.ts';
import { emitAttemptEnd } from '../send/attempt.ts';
import { executionName, isStandardExecution } from '../send/dispatcher.ts';
import { getMessage, listDueDispatches, mutateMessage } from '../store/messages.store.ts';
import { releaseThreadLock } from '../store/threads.store.ts';

/** seed 002 › The batch id: a dispatch older than this with nothing running for it is lost. */
export const SWEEP_AFTER_MS = 5 * 60 * 1000;

/** The message ids the pass acted on. */
export interface SweepReport {
  redispatched: string[];
  uncertain: string[];
  running: string[];
}

/**
 * The sweeper (DESIGN § 6; seed 002's one rule): for every queued message whose dispatch time is
 * more than 5 minutes old —
 * - a claim older than 5 minutes belongs to a dead attempt: with the `sending` mark (the provider
 *   may have been called) the message becomes `uncertain` (`transport_connection_lost`) and is never
 *   retried; without it (the provider was never called) the claim is released and the message
 *   re-dispatched like a lost dispatch, below; a younger claim is left alone;
 * - a named Standard execution that still runs is left alone; an Express execution older than
 *   5 minutes is dead;
 * - otherwise the next execution name is minted on the message in one conditional write, and the
 *   execution is started after it. A crash between the two is found again 5 minutes later.
 */
export async function sweep(deps: Deps): Promise<SweepReport> {
  const report: SweepReport = { redispatched: [], uncertain: [], running: [] };
  const now = deps.clock();
  for (const due of await listDueDispatches(deps.db, now - SWEEP_AFTER_MS)) {
    try {
      await sweepOne(deps, due.identity_id, due.message_id, now, report);
    } catch (err) {
      deps.log.error('sweep of a message failed', { message_id: due.message_id, ...errorFields(err) });
    }
  }
  deps.metrics.add('sweeper_runs');
  if (report.redispatched.length)
    deps.metrics.add('sweeper_redispatched', undefined, report.redispatched.length);
  if (report.uncertain.length) deps.metrics.add('stale_claims', { by: 'sweeper' }, report.uncertain.length);
  if (report.redispatched.length + report.uncertain.length > 0) {
    deps.log.info('sweep', {
      redispatched: report.redispatched.length,
      uncertain: report.uncertain.length,
      running: report.running.length,
    });
  }
  return report;
}

async function sweepOne(
  deps: Deps,
  identityId: string,
  messageId: string,
  now: number,
  report: SweepReport,
): Promise<void> {
  const seen = await getMessage(deps.db, identityId, messageId, true);
  if (!seen || seen.status !== 'queued' || !seen.dispatch) return;
  if (seen.claim) {
    if (now - seen.claim.at < CLAIM_STALE_MS) return;
    let release = false;
    const out = await mutateMessage(deps.db, identityId, messageId, (m) => {
      if (m.status !== 'queued' || m.claim?.token !== seen.claim?.token) return { result: '' as const };
      const dead = deadClaimOutcome(m, now, 'the attempt holding the claim never recorded an outcome', (n) =>
        executionName(m.id, n),
      );
      if (dead.type === 'redispatch') return { next: dead.message, result: dead.type };
      release = dead.recorded.releaseLock;
      return { next: dead.recorded.message, result: dead.type };
    });
    if (!out.found || !out.written) return;
    if (out.result === 'redispatch') return start(deps, out.message, report);
    // (Events may already have settled every recipient: the message then keeps their status.)
    if (out.message.status === 'uncertain') report.uncertain.push(messageId);
    if (release) await releaseThreadLock(deps.db, identityId, out.message.thread_id, messageId);
    await emitAttemptEnd(deps, out.message);
    return;
  }
  const current = seen.dispatch.execution;
  if (isStandardExecution(current) && (await deps.dispatcher.isRunning?.(current))) {
    report.running.push(messageId);
    return;
  }
  const out = await mutateMessage(deps.db, identityId, messageId, (m) => {
    if (m.status !== 'queued' || m.claim || m.dispatch?.execution !== current) return { result: false };
    return { next: redispatch(m, now, (n) => executionName(m.id, n)), result: true };
  });
  if (out.found && out.written) await start(deps, out.message, report);
}

/** Start the execution the sweeper just named on the message. */
async function start(deps: Deps, m: MessageRecord, report: SweepReport): Promise<void> {
  report.redispatched.push(m.id);
  await deps.dispatcher.start(m.dispatch!.execution, {
    tenant_id: m.tenant_id,
    identity_id: m.identity_id,
    message_id: m.id,
  });
}
