import {
  APPROVAL_REFUSALS,
  approveMessage,
  checkPendingApproval,
  refuseAtApproval,
  rejectMessage,
} from '../core/approval.ts';
import { derivedEventId } from '../core/delivery-outbox.ts';
import {
  dailyCapReached,
  messageNotFound,
  PmailError,
  rateLimited,
  refusedAtApproval,
} from '../core/errors.ts';
import { aboutMessage } from '../core/event-access.ts';
import { toApiMessage } from '../core/message-view.ts';
import type { Identity, MessageRecord, Tenant } from '../core/model.ts';
import { checkSender } from '../core/policy.ts';
import { counterDay } from '../core/quota.ts';
import { domainOf } from '../core/recipients.ts';
import { suppressAtSend } from '../core/send-attempt.ts';
import { capsFor, checkSendingDomain } from '../core/submit-pipeline.ts';
import type { Deps } from '../deps.ts';
import { errorFields } from '../log.ts';
import { auditPut } from '../store/audit-log.store.ts';
import { countOutbound } from '../store/contacts.store.ts';
import { getDomain } from '../store/directory.store.ts';
import { eventPutItem } from '../store/events.store.ts';
import { getOutboundMessage, mutateMessage } from '../store/messages.store.ts';
import { rateRetryAfter, releaseSend, reserveSend } from '../store/quota.store.ts';
import { getSuppressionsFor } from '../store/suppressions.store.ts';
import { executionName, startExecution } from './dispatcher.ts';

/**
 * POST …/messages/{id}/approve and …/reject (docs/guides/sending.md › Approval before a send); the
 * rules are core/approval.ts. Each ends the wait with one owned transition of the message
 * (store/messages.store.ts › mutateMessage, conditioned on its version, with its event and audit
 * entry in the same write), so of two decisions racing one writes and the other reads the message
 * again and answers 409 `not_pending_approval` with its state.
 */

/** The ports an approval decision uses. */
type ApprovalDeps = Pick<Deps, 'db' | 'clock' | 'newId' | 'log' | 'config' | 'dispatcher'>;

interface Decision {
  tenant: Tenant;
  identity: Identity;
  messageId: string;
  actor: string;
}

/** The pending outbound message, or 404 / 409 with its current state. */
async function pendingMessage(
  deps: Pick<Deps, 'db'>,
  identityId: string,
  messageId: string,
): Promise<MessageRecord> {
  const m = await getOutboundMessage(deps.db, identityId, messageId);
  if (!m) throw messageNotFound();
  checkPendingApproval(m);
  return m;
}

/** The audit action of each decision's event. */
const AUDIT_ACTIONS: Record<string, string> = {
  'message.approved': 'message.approve',
  'message.rejected': 'message.reject',
  'message.failed': 'message.approve',
};

/**
 * The id of a decision's event at `position` among the events of its write: the write's time, then
 * the position first in the random part (core/delivery-outbox.ts › derivedEventId), so the feed
 * lists the decision before what it led to.
 */
const decisionEventId = (m: MessageRecord, now: number, position: number) =>
  derivedEventId(now, `decision:${m.id}:${m.version}`, position);

/** The outbox event and the audit entry a decision writes with the message. */
function decisionItems(
  deps: Pick<Deps, 'db' | 'newId'>,
  d: Decision,
  m: MessageRecord,
  type: string,
  data: Record<string, unknown>,
  now: number,
) {
  return [
    eventPutItem(
      deps.db,
      {
        id: decisionEventId(m, now, 0),
        type,
        tenant_id: m.tenant_id,
        created_at: now,
        data: { ...aboutMessage(m), ...data },
      },
      now,
    ),
    auditPut(deps.db, {
      id: deps.newId(),
      tenant_id: m.tenant_id,
      action: AUDIT_ACTIONS[type] ?? type,
      actor: d.actor,
      message_id: m.id,
      details: data,
      at: now,
    }),
  ];
}

/** An approval that found every recipient suppressed publishes `message.suppressed`, as a send does. */
function suppressedItems(deps: Pick<Deps, 'db'>, next: MessageRecord, now: number) {
  if (next.status !== 'suppressed') return [];
  const recipients = (next.deliveries ?? []).map((x) => ({ address: x.address, reason: x.smtp_response }));
  return [
    eventPutItem(
      deps.db,
      {
        id: decisionEventId(next, now, 1),
        type: 'message.suppressed',
        tenant_id: next.tenant_id,
        created_at: now,
        data: { ...aboutMessage(next), recipients },
      },
      now,
    ),
  ];
}

/** One decision on the pending message: `decide` runs on each read (a lost race reads again). */
async function decideOn(
  deps: Pick<Deps, 'db' | 'clock' | 'newId'>,
  d: Decision,
  decide: (
    m: MessageRecord,
    now: number,
  ) => { next: MessageRecord; type: string; data: Record<string, unknown> },
): Promise<MessageRecord> {
  const out = await mutateMessage(deps.db, d.identity.id, d.messageId, (m) => {
    const now = deps.clock();
    const { next, type, data } = decide(m, now);
    const items = decisionItems(deps, d, m, type, data, now);
    return { next, result: undefined, alsoWrite: [...items, ...suppressedItems(deps, next, now)] };
  });
  if (!out.found) throw messageNotFound();
  return out.message;
}

/** Reject: the pending message ends `canceled` (`rejected_by_reviewer`), `message.rejected`. */
export async function rejectSend(
  deps: Pick<Deps, 'db' | 'clock' | 'newId'>,
  d: Decision,
): Promise<MessageRecord> {
  await pendingMessage(deps, d.identity.id, d.messageId);
  return decideOn(deps, d, (m, now) => ({ next: rejectMessage(m, now), type: 'message.rejected', data: {} }));
}

/**
 * The checks of a send run again on the pending message, before anything is counted: the sender
 * (tenant suspended, identity paused), the sending domain (`hold` when the tenant holds sends whose
 * transport is not configured yet), the suppressions in force now (their deliveries become
 * `suppressed`; every one suppressed ends the message `suppressed`, nothing counted).
 */
async function recheck(deps: Pick<Deps, 'db' | 'config'>, d: Decision, m: MessageRecord) {
  checkSender(d.tenant, d.identity);
  const domain = await getDomain(deps.db, domainOf(m.from.address));
  const hold = checkSendingDomain(d.tenant, domain, m.kind === 'marketing');
  const queued = (m.deliveries ?? []).filter((x) => x.status === 'queued').map((x) => x.address);
  const found = await getSuppressionsFor(deps.db, m.tenant_id, deps.config.hashKey, queued);
  return { hold, found };
}

type Rechecked = Awaited<ReturnType<typeof recheck>>;

/**
 * Approve: the checks run again (`recheck`), then the count (the rate window and both daily caps,
 * on the day of the approval), then the write that queues the message and names its execution,
 * then that execution's start. A check that refuses ends the message `failed` with the refusal's
 * code and answers that refusal; a full rate window answers 429 and leaves the message pending.
 * A count whose write lost the race (another approve, a reject) is given back.
 */
export async function approveSend(deps: ApprovalDeps, d: Decision): Promise<MessageRecord> {
  const m = await pendingMessage(deps, d.identity.id, d.messageId);
  let checked: Rechecked;
  try {
    checked = await recheck(deps, d, m);
  } catch (err) {
    throw await refused(deps, d, err);
  }
  const suppressed = suppressAtSend(m, checked.found, deps.clock());
  if (suppressed?.message.status === 'suppressed') {
    return decideOn(deps, d, (cur, now) => {
      checkPendingApproval(cur);
      const next = suppressAtSend(cur, checked.found, now)?.message ?? suppressed.message;
      return { next, type: 'message.approved', data: { outcome: 'suppressed' } };
    });
  }
  const counters = await countApproval(deps, d);
  const approved = await queueApproved(deps, d, checked, counters);
  await startExecution(deps.dispatcher, approved).catch((err) =>
    deps.log.error('dispatch failed; the sweeper will retry', { message_id: m.id, ...errorFields(err) }),
  );
  await countApprovedContacts(deps, approved);
  return approved;
}

/**
 * An approved send makes its recipients contacts, as a queued send does at submit (a send that
 * waited makes none until then). Unconditional counts (docs/lost-answers.md): a failure is logged,
 * never undoes the approval.
 */
async function countApprovedContacts(deps: Pick<Deps, 'db' | 'log'>, m: MessageRecord): Promise<void> {
  const queued = (m.deliveries ?? []).filter((x) => x.status === 'queued').map((x) => x.address);
  const results = await Promise.allSettled(countOutbound(deps.db, m.identity_id, queued, m.updated_at));
  for (const r of results)
    if (r.status === 'rejected')
      deps.log.error('contact count failed', { message_id: m.id, ...errorFields(r.reason) });
}

type Counters = { tenantId: string; identityId: string; day: string; now: number };

/**
 * The approval's count: the rate window and both daily caps, on the day of the approval. A full
 * rate window answers 429 and leaves the message pending; a daily cap reached is a check's refusal.
 */
async function countApproval(deps: Pick<Deps, 'db' | 'clock' | 'newId'>, d: Decision): Promise<Counters> {
  const started = deps.clock();
  const { day, resetsAt, expiresAt } = counterDay(started, d.tenant.timezone);
  const counters = { tenantId: d.tenant.id, identityId: d.identity.id, day, now: started };
  const caps = capsFor(d.tenant, d.identity);
  const reserved = await reserveSend(deps.db, { ...counters, expiresAt, caps });
  if (!reserved.ok) {
    if (reserved.refused === 'rate') throw rateLimited(rateRetryAfter(started));
    const scope = reserved.refused;
    throw await refused(deps, d, dailyCapReached(scope, caps[scope], resetsAt, started));
  }
  return counters;
}

/**
 * The write that queues the approved message and names its execution. Only a decision certainly
 * not written gives the count back (a lost answer keeps it: it errs towards refusing, never
 * towards passing a cap).
 */
async function queueApproved(
  deps: Pick<Deps, 'db' | 'clock' | 'newId' | 'log'>,
  d: Decision,
  checked: Rechecked,
  counters: Counters,
): Promise<MessageRecord> {
  try {
    return await decideOn(deps, d, (cur, now) => {
      const base = suppressAtSend(cur, checked.found, now)?.message ?? cur;
      const next = approveMessage(base, now, {
        quotaDay: counters.day,
        hold: checked.hold,
        executionFor: (n, scheduled) => executionName(cur.id, n, scheduled ? 'send' : 'attempt'),
      });
      return { next, type: 'message.approved', data: {} };
    });
  } catch (err) {
    if (err instanceof PmailError) {
      await releaseSend(deps.db, { ...counters, daily: true }).catch((e) =>
        deps.log.error('approval count release failed', { message_id: d.messageId, ...errorFields(e) }),
      );
    }
    throw err;
  }
}

/**
 * A check refused at approval: the message ends `failed` with the refusal's code (`message.failed`,
 * its reason that code), and the refusal is the answer, with the message's new state in its details.
 * Anything that is not a check's refusal goes up as it is.
 */
async function refused(
  deps: Pick<Deps, 'db' | 'clock' | 'newId'>,
  d: Decision,
  err: unknown,
): Promise<unknown> {
  if (!(err instanceof PmailError) || !APPROVAL_REFUSALS.has(err.code)) return err;
  const after = await decideOn(deps, d, (cur, now) => ({
    next: refuseAtApproval(cur, err, now),
    type: 'message.failed',
    data: { reason: err.code, at_approval: true },
  }));
  return refusedAtApproval(err, toApiMessage(after));
}
