import { NotCancelableError, notRetryable, notUncertain, resolveRequired } from './errors.ts';
import type { MessageRecord } from './model.ts';
import { withoutBackoffReason } from './send-attempt.ts';

/**
 * Cancel: only while queued, with no transport claim and no delivery already submitted.
 * The message becomes `canceled` (deliveries stay queued: the message status is authoritative);
 * back-off (its `retry_later` reason too) and dispatch are cleared, and the lock is released by the
 * caller. A cancel the system decided names its reason (`status_reason`: `reply_received`, an
 * identity paused …); a caller's cancel has none.
 */
export function cancelMessage(m: MessageRecord, now: number, reason?: string): MessageRecord {
  const partlySent = (m.deliveries ?? []).some((d) => d.status !== 'queued' && d.status !== 'suppressed');
  // An undispatched message (held for a transport not configured yet) cancels alike.
  if ((m.status !== 'queued' && m.status !== 'undispatched') || m.claim || partlySent) {
    throw new NotCancelableError(m.status);
  }
  return {
    ...withoutBackoffReason(m),
    status: 'canceled',
    ...(reason ? { status_reason: reason } : {}),
    backoff: undefined,
    dispatch: undefined,
    holds_lock: undefined,
    updated_at: now,
    version: m.version + 1,
  };
}

/** Delivery statuses only a provider's answer or event can set: the provider took the message. */
const PROVIDER_REPORTED = new Set(['submitted', 'delivered', 'deferred', 'bounced', 'complained']);

/**
 * Resolve: only an `uncertain` message with an uncertain delivery. `sent` → the message
 * and its uncertain deliveries `submitted`; `not_sent` → `failed` (`resolved_not_sent`). Where the
 * deliveries already say what happened, resolve refuses with `not_uncertain` rather than
 * overwrite them: no uncertain delivery left, or `not_sent` for a message the provider reported on.
 */
export function resolveMessage(m: MessageRecord, outcome: 'sent' | 'not_sent', now: number): MessageRecord {
  const deliveries = m.deliveries ?? [];
  const reported = deliveries.some((d) => PROVIDER_REPORTED.has(d.status));
  if (
    m.status !== 'uncertain' ||
    !deliveries.some((d) => d.status === 'uncertain') ||
    (outcome === 'not_sent' && reported)
  ) {
    throw notUncertain(m.status, reported);
  }
  const status = outcome === 'sent' ? 'submitted' : 'failed';
  return {
    ...m,
    status,
    status_reason: outcome === 'sent' ? undefined : 'resolved_not_sent',
    status_detail: outcome === 'sent' ? undefined : 'resolved as not sent',
    deliveries: deliveries.map((d) => (d.status === 'uncertain' ? { ...d, status, updated_at: now } : d)),
    updated_at: now,
    version: m.version + 1,
  };
}

/**
 * What retries: the failure codes (`status_reason` of a `failed` message) after which an
 * operator may retry. Each says nothing reached a recipient's server: the 24-hour end of a back-off
 * (rate limits, quota, a paused account, a relay's 4xx) and a sending domain that was failing at
 * claim time. Everything else is terminal for retry: a refusal by the recipient's server (a
 * `rejected` message, a provider's `failed` delivery event: `provider_failed`), and a message that
 * was `uncertain` (`resolved_not_sent`: resolve decided it; a retry could send a second copy).
 */
export const RETRYABLE_FAILURES: ReadonlySet<string> = new Set([
  'quota_exhausted',
  'domain_failing_no_fallback',
]);

/** Failure codes that mean the message was uncertain: only resolve decides about those. */
const WAS_UNCERTAIN: ReadonlySet<string> = new Set(['resolved_not_sent']);

export type RetryDecision = { type: 'requeue'; message: MessageRecord } | { type: 'current' };

/**
 * POST …/messages/{id}/retry (an operator retrying a failure is one of
 * the three writes that move a message back into the queue). A `failed` message with a retryable failure
 * is queued again: its failed deliveries queued, the back-off and its 24 hours start again, and the
 * execution coming for it named in this same write (`executionFor(n)`, n the next dispatch number),
 * so two racing retries write once and start one execution. A message an operator already re-queued
 * answers its current state (`current`). `uncertain` (or resolved from it) → 409
 * `resolve_required`; anything else → 409 `not_retryable`.
 */
export function retryMessage(
  m: MessageRecord,
  now: number,
  executionFor: (n: number) => string,
): RetryDecision {
  if (m.status === 'uncertain' || (m.status === 'failed' && WAS_UNCERTAIN.has(m.status_reason ?? ''))) {
    throw resolveRequired(m.status, m.status_reason ?? null);
  }
  if (m.status === 'failed' && RETRYABLE_FAILURES.has(m.status_reason ?? '')) {
    const n = (m.dispatch?.n ?? m.dispatch_n ?? 1) + 1;
    return {
      type: 'requeue',
      message: {
        ...m,
        status: 'queued',
        status_reason: undefined,
        status_detail: undefined,
        status_at: undefined,
        deliveries: (m.deliveries ?? []).map((d) =>
          d.status === 'failed' ? { ...d, status: 'queued', smtp_response: undefined, updated_at: now } : d,
        ),
        backoff: undefined,
        claim: undefined,
        recorded: undefined,
        dispatch: { execution: executionFor(n), at: now, n },
        dispatch_n: n,
        retry: { n: (m.retry?.n ?? 0) + 1, at: now },
        updated_at: now,
        version: m.version + 1,
      },
    };
  }
  // Idempotent for the operator: a message a retry already re-queued answers its state.
  if (m.retry && m.status !== 'failed') return { type: 'current' };
  throw notRetryable(m.status, m.status_reason ?? null);
}
