import { PmailError } from './errors.ts';
import type { MessageRecord } from './model.ts';

/**
 * seed 000 › Cancel: only while queued, with no transport claim and no delivery already submitted.
 * The message becomes `canceled` (deliveries stay queued: the message status is authoritative);
 * back-off and dispatch are cleared, and the lock is released by the caller.
 */
export function cancelMessage(m: MessageRecord, now: number): MessageRecord {
  const partlySent = (m.deliveries ?? []).some((d) => d.status !== 'queued' && d.status !== 'suppressed');
  if (m.status !== 'queued' || m.claim || partlySent) {
    throw new PmailError(
      'not_cancelable',
      'Only a queued message that no attempt is sending can be canceled.',
      {
        details: { status: m.status },
      },
    );
  }
  return {
    ...m,
    status: 'canceled',
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
 * DESIGN § 8 › Resolve: only an `uncertain` message with an uncertain delivery. `sent` → the message
 * and its uncertain deliveries `submitted`; `not_sent` → `failed` (`resolved_not_sent`). Where the
 * deliveries already say what happened (issue 9), resolve refuses with `not_uncertain` rather than
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
    const message =
      m.status === 'uncertain' && reported
        ? 'A provider event already reported on this message: it was sent, and cannot be resolved as not sent.'
        : 'Only an uncertain message can be resolved.';
    throw new PmailError('not_uncertain', message, {
      details: { status: m.status, ...(m.status === 'uncertain' ? { provider_reported: reported } : {}) },
    });
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
