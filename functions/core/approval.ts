import { notPendingApproval, type PmailError } from './errors.ts';
import type { Identity, MessageRecord } from './model.ts';
import { type ContactCounts, canonicalAddress, isKnownRecipient } from './suppressions.ts';

/**
 * A person's approval before a send (docs/guides/sending.md › Approval before a send). A send of an
 * identity whose send policy says `require_approval: true`, through a draft-only key, or to a first
 * contact under `require_approval: "first_contact"` is accepted `pending_approval`: the
 * message is written (the key, the fingerprint and the replay are any send's), nothing is counted
 * against a cap and no execution is named. A holder of `messages:approve` then approves (the policy
 * checks run again, the count is taken, the execution is named in the write that queues it) or
 * rejects (`canceled`, `rejected_by_reviewer`). Pure: send/approval.ts reads and writes.
 */

/** The reason a rejected message carries. */
export const REJECTED_BY_REVIEWER = 'rejected_by_reviewer';

/** Why a send waits for approval: the identity's policy, the draft-only key, a first contact. */
export type ApprovalReason = 'identity_policy' | 'key' | 'first_contact';

/**
 * Whether every send of this identity through this key waits for approval, before its recipients
 * are known: the identity's `require_approval: true`, or a draft-only key (`sends_need_approval`,
 * whatever the identity's policy).
 */
export function alwaysNeedsApproval(
  identity: Pick<Identity, 'send_policy'>,
  key: { sends_need_approval?: boolean } = {},
): ApprovalReason | undefined {
  if (key.sends_need_approval) return 'key';
  return identity.send_policy?.require_approval === true ? 'identity_policy' : undefined;
}

/**
 * Whether this send waits for approval: always (`alwaysNeedsApproval`), or under
 * `require_approval: "first_contact"` when a recipient it would go to is not a contact yet (the
 * same contacts as the known-recipient rule: core/suppressions.ts › isKnownRecipient).
 */
export function approvalNeeded(
  identity: Pick<Identity, 'send_policy'>,
  key: { sends_need_approval?: boolean },
  queued: readonly string[],
  contacts: ReadonlyMap<string, ContactCounts>,
): ApprovalReason | undefined {
  const always = alwaysNeedsApproval(identity, key);
  if (always) return always;
  if (identity.send_policy?.require_approval !== 'first_contact') return undefined;
  return queued.some((a) => !isKnownRecipient(contacts.get(canonicalAddress(a))))
    ? 'first_contact'
    : undefined;
}

/** 409 `not_pending_approval` with the message's current state, unless it still waits for approval. */
export function checkPendingApproval(m: MessageRecord): void {
  if (m.status === 'pending_approval') return;
  throw notPendingApproval(m.status, m.status_reason ?? null);
}

/**
 * Approve: the pending message becomes `queued` (or `undispatched`, when its domain's transport is
 * not configured yet and the tenant holds such sends) and, when queued, names the execution coming
 * for it in this same write: a `send_at` still ahead waits in the Standard machine
 * (`executionFor(n, scheduled)`). `quotaDay` is the day its count was taken on (cancel gives that
 * day's count back). Of two approves racing, the second finds the message no longer pending.
 */
export function approveMessage(
  m: MessageRecord,
  now: number,
  opts: { quotaDay: string; hold: boolean; executionFor: (n: number, scheduled: boolean) => string },
): MessageRecord {
  checkPendingApproval(m);
  const scheduled = m.send_at !== undefined && m.send_at > now;
  return {
    ...m,
    status: opts.hold ? 'undispatched' : 'queued',
    quota_day: opts.quotaDay,
    ...(opts.hold
      ? { dispatch: undefined }
      : {
          dispatch: {
            execution: opts.executionFor(1, scheduled),
            at: scheduled ? m.send_at! : now,
            n: 1,
          },
        }),
    updated_at: now,
    version: m.version + 1,
  };
}

/** Reject: the pending message ends `canceled` with the reason `rejected_by_reviewer`. */
export function rejectMessage(m: MessageRecord, now: number): MessageRecord {
  checkPendingApproval(m);
  return {
    ...m,
    status: 'canceled',
    status_reason: REJECTED_BY_REVIEWER,
    updated_at: now,
    version: m.version + 1,
  };
}

/**
 * A check run again at approval refused the send (a cap reached, the identity paused, the tenant
 * suspended, no accountable owner, the domain not ready or unable to send): the message ends `failed` with the refusal's error code as its reason, as
 * the same refusal ends a send at submit (nothing sent, nothing counted).
 */
export function refuseAtApproval(m: MessageRecord, refusal: PmailError, now: number): MessageRecord {
  checkPendingApproval(m);
  return {
    ...m,
    status: 'failed',
    status_reason: refusal.code,
    status_detail: refusal.message,
    status_at: now,
    updated_at: now,
    version: m.version + 1,
  };
}

/** The checks approval runs again, by the error code their refusal carries. */
export const APPROVAL_REFUSALS: ReadonlySet<string> = new Set([
  'daily_cap_reached',
  'identity_paused',
  'tenant_suspended',
  'identity_owner_required',
  'domain_not_ready',
  'transport_unavailable',
]);
