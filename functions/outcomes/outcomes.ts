import { evaluateAbuse, outcomeMatters, pushOutcome } from '../core/abuse.ts';
import type { AbuseOutcome } from '../core/deliveries.ts';
import { attemptEndEvent, suppressionEventId } from '../core/delivery-outbox.ts';
import type { MessageRecord } from '../core/model.ts';
import { addressHash, addressHint, type SuppressionReason } from '../core/suppressions.ts';
import type { Deps } from '../deps.ts';
import { getTenant } from '../store/directory.store.ts';
import { appendEvent } from '../store/events.store.ts';
import { autoPauseIdentity, updateOutcomeWindow } from '../store/outcomes.store.ts';
import { putSuppressionIfAbsent } from '../store/suppressions.store.ts';

/**
 * What an outcome leaves beyond its message, written by the send attempt's Record
 * (functions/send/attempt.ts), the delivery-event consumer (functions/events/consume.ts) and the
 * sweeper alike: the suppression a hard bounce, a complaint or a provider's own suppression adds,
 * the identity's outcome window that pauses it over the abuse thresholds, and the event of an
 * attempt that ended its message.
 */

/**
 * One permanent suppression of `recipient` caused by `message` (added if absent), and
 * its suppression.created event when this message created it: for a delivery event (a hard
 * bounce, a complaint) and for the recipients a provider reported suppressed to the send attempt.
 */
export async function addSuppression(
  deps: Pick<Deps, 'db' | 'clock' | 'config' | 'metrics'>,
  message: Pick<MessageRecord, 'id' | 'tenant_id'>,
  recipient: string,
  reason: SuppressionReason,
): Promise<void> {
  const hash = addressHash(deps.config.hashKey, recipient);
  const { suppression } = await putSuppressionIfAbsent(
    deps.db,
    message.tenant_id,
    {
      address_hash: hash,
      address_hint: addressHint(recipient),
      reason,
      created_at: deps.clock(),
      source_message_id: message.id,
    },
    deps.clock(),
  );
  if (suppression.source_message_id !== message.id) return;
  const created = await appendEvent(
    deps.db,
    {
      id: suppressionEventId(deps.config.hashKey, message.tenant_id, hash, suppression.created_at),
      type: 'suppression.created',
      tenant_id: message.tenant_id,
      created_at: suppression.created_at,
      data: {
        address_hint: suppression.address_hint,
        reason: suppression.reason,
        source_message_id: message.id,
        expires_at: null,
      },
    },
    deps.clock(),
  );
  if (created) deps.metrics.add('suppressions_created', { reason });
}

/** Abuse auto-pause: record the outcome, pause an active identity over a threshold. */
export async function recordAbuseOutcome(
  deps: Pick<Deps, 'db' | 'clock' | 'newId' | 'metrics' | 'log'>,
  message: Pick<MessageRecord, 'identity_id' | 'tenant_id'>,
  outcome: AbuseOutcome,
): Promise<void> {
  const now = deps.clock();
  const window = await updateOutcomeWindow(
    deps.db,
    message.identity_id,
    (w) => (outcomeMatters(w, outcome) ? pushOutcome(w, outcome) : undefined),
    now,
  );
  if (outcome !== 'complained' && outcome !== 'bounced') return;
  const tenant = await getTenant(deps.db, message.tenant_id);
  const { pause, metrics } = evaluateAbuse(window, tenant?.policy.abuse);
  if (!pause) return;
  const paused = await autoPauseIdentity(deps.db, {
    tenantId: message.tenant_id,
    identityId: message.identity_id,
    now,
    eventId: `evt_${deps.newId()}`,
    auditId: deps.newId(),
    metrics,
  });
  if (paused) deps.metrics.add('identities_auto_paused');
  if (paused)
    deps.log.warn('identity paused: abuse threshold', {
      identity_id: message.identity_id,
      ...metrics,
    });
}

/**
 * Append the event of an attempt that ended the message (uncertain, rejected, failed). Its id is
 * derived from the message (core/delivery-outbox.ts › attemptEndEvent): appending it again is a
 * no-op, so every path that may have ended the message calls this after its write.
 */
export async function emitAttemptEnd(
  deps: Pick<Deps, 'db' | 'clock' | 'metrics'>,
  m: MessageRecord,
): Promise<void> {
  const e = attemptEndEvent(m);
  // The event's id is per message, so only its first append counts the message as uncertain.
  const appended = e ? await appendEvent(deps.db, { ...e, tenant_id: m.tenant_id }, deps.clock()) : false;
  if (appended && m.status === 'uncertain')
    deps.metrics.add('uncertain_created', { reason: m.status_reason ?? 'unknown' });
}
