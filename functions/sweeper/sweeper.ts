import { canDispatchHeld } from '../core/domains.ts';
import { dispatchHeld } from '../core/enqueue.ts';
import type { MessageRecord } from '../core/model.ts';
import { domainOf } from '../core/recipients.ts';
import { CLAIM_STALE_MS, deadAttemptOutcome, redispatch } from '../core/send-attempt.ts';
import type { DepsFor } from '../lambda-ports.ts';
import { errorFields } from '../log.ts';
import { emitAttemptEnd } from '../outcomes/outcomes.ts';
import { executionName, isStandardExecution, startExecution } from '../send/dispatcher.ts';
import { getDomain } from '../store/directory.store.ts';
import {
  getMessage,
  listDueDispatches,
  listUndispatched,
  mayHaveApplied,
  mutateMessage,
} from '../store/messages.store.ts';
import { releaseThreadLock } from '../store/threads.store.ts';

/** A dispatch older than this with nothing running for it is lost. */
export const SWEEP_AFTER_MS = 5 * 60 * 1000;

/** The message ids the pass acted on. */
export interface SweepReport {
  redispatched: string[];
  /** Held (`undispatched`) messages whose transport is now configured, dispatched. */
  dispatched: string[];
  uncertain: string[];
  running: string[];
}

/**
 * The sweeper (docs/architecture.md › Dead claims): for every queued message whose dispatch time is
 * more than 5 minutes old —
 * - a claim older than 5 minutes belongs to a dead attempt: it carries the `sending` mark (the
 *   transport task writes the mark with the claim, just before the call), so the provider may have
 *   been called and the message becomes `uncertain` (`transport_connection_lost`), never retried; a
 *   younger claim is left alone;
 * - an attempt that died before its transport's claim write (in Claim, or between Claim and the
 *   transport task) left no claim: its message is a lost dispatch, below;
 * - a named Standard execution that still runs is left alone; an Express execution older than
 *   5 minutes is dead;
 * - otherwise the next execution name is minted on the message in one conditional write, and the
 *   execution is started after it (send/dispatcher.ts › startExecution). A crash between the two
 *   is found again 5 minutes later.
 */
/** The sweeper's ports (functions/lambda-ports.ts): the base ports and the dispatcher. */
export type SweeperDeps = DepsFor<'sweeper'>;

export async function sweep(deps: SweeperDeps): Promise<SweepReport> {
  const report: SweepReport = { redispatched: [], dispatched: [], uncertain: [], running: [] };
  const now = deps.clock();
  for (const due of await listDueDispatches(deps.db, now - SWEEP_AFTER_MS)) {
    try {
      await sweepOne(deps, due.identity_id, due.message_id, now, report);
    } catch (err) {
      deps.log.error('sweep of a message failed', { message_id: due.message_id, ...errorFields(err) });
    }
  }
  for (const held of await listUndispatched(deps.db)) {
    try {
      await dispatchOne(deps, held.identity_id, held.message_id, report);
    } catch (err) {
      deps.log.error('dispatch of a held message failed', {
        message_id: held.message_id,
        ...errorFields(err),
      });
    }
  }
  deps.metrics.add('sweeper_runs');
  if (report.redispatched.length)
    deps.metrics.add('sweeper_redispatched', undefined, report.redispatched.length);
  if (report.uncertain.length) deps.metrics.add('stale_claims', { by: 'sweeper' }, report.uncertain.length);
  if (report.redispatched.length + report.uncertain.length + report.dispatched.length > 0) {
    deps.log.info('sweep', {
      redispatched: report.redispatched.length,
      dispatched: report.dispatched.length,
      uncertain: report.uncertain.length,
      running: report.running.length,
    });
  }
  return report;
}

async function sweepOne(
  deps: SweeperDeps,
  identityId: string,
  messageId: string,
  now: number,
  report: SweepReport,
): Promise<void> {
  const seen = await getMessage(deps.db, identityId, messageId, true);
  if (seen?.status !== 'queued' || !seen.dispatch) return;
  if (seen.claim) {
    if (now - seen.claim.at < CLAIM_STALE_MS) return;
    let release = false;
    const out = await sweepWrite(deps, identityId, messageId, (m) => {
      if (m.status !== 'queued' || m.claim?.token !== seen.claim?.token) return { result: false };
      const dead = deadAttemptOutcome(m, now, 'the attempt holding the claim never recorded an outcome');
      release = dead.releaseLock;
      return { next: dead.message, result: true };
    });
    if (!out.found || !out.written) return;
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
  const out = await sweepWrite(deps, identityId, messageId, (m) => {
    if (m.status !== 'queued' || m.claim || m.dispatch?.execution !== current) return { result: false };
    return { next: redispatch(m, now, (n) => executionName(m.id, n)), result: true };
  });
  if (out.found && out.written) await start(deps, out.message, report);
}

/**
 * The sweeper's versioned write of a message (mutateMessage), surviving its own lost answer
 * (docs/lost-answers.md › owned transition): the message read again, consistently, shows whether
 * the write landed — its status, its dispatch name (minted in the write) and its claim are what the
 * write made them — and the pass then goes on as its writer (the event, the lock, the start: each
 * fenced or idempotent, so a twin decision by Claim or another pass reads the same); otherwise the
 * decision runs again on the message as it is now.
 */
async function sweepWrite<R>(
  deps: SweeperDeps,
  identityId: string,
  messageId: string,
  decide: (m: MessageRecord) => { next?: MessageRecord; result: R },
): Promise<{ found: false } | { found: true; result: R; message: MessageRecord; written: boolean }> {
  let sent: { next: MessageRecord; result: R } | undefined;
  const decideSent = (m: MessageRecord) => {
    const out = decide(m);
    if (out.next) sent = { next: out.next, result: out.result };
    return out;
  };
  try {
    return await mutateMessage(deps.db, identityId, messageId, decideSent);
  } catch (err) {
    if (!sent || !mayHaveApplied(err)) throw err;
    const { next, result } = sent;
    const m = await getMessage(deps.db, identityId, messageId, true);
    if (!m) return { found: false };
    const landed =
      m.status === next.status &&
      m.dispatch?.execution === next.dispatch?.execution &&
      m.claim?.token === next.claim?.token;
    if (landed) return { found: true, result, message: m, written: true };
    return mutateMessage(deps.db, identityId, messageId, decideSent);
  }
}

/** Start the execution the sweeper just named on the message. */
async function start(deps: SweeperDeps, m: MessageRecord, report: SweepReport): Promise<void> {
  report.redispatched.push(m.id);
  await startExecution(deps.dispatcher, m);
}

/**
 * A held (`undispatched`) message whose sending domain can now send (core/domains.ts ›
 * canDispatchHeld, the submit path's own rule) is queued under its first execution name in one
 * conditional write (another sweeper or a cancel that won leaves it alone), then that execution is
 * started: a start that fails leaves it queued with its dispatch, which the next pass re-dispatches.
 */
async function dispatchOne(deps: SweeperDeps, identityId: string, messageId: string, report: SweepReport) {
  const seen = await getMessage(deps.db, identityId, messageId, true);
  if (seen?.status !== 'undispatched') return;
  const domain = await getDomain(deps.db, domainOf(seen.from.address));
  if (!canDispatchHeld(domain, seen.kind === 'marketing')) return;
  const now = deps.clock();
  const out = await sweepWrite(deps, identityId, messageId, (m) => {
    const next = dispatchHeld(m, now, (n, scheduled) =>
      executionName(m.id, n, scheduled ? 'send' : 'attempt'),
    );
    return next ? { next, result: true } : { result: false };
  });
  if (!out.found || !out.written) return;
  report.dispatched.push(out.message.id);
  await startExecution(deps.dispatcher, out.message);
}
