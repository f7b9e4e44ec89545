import { isCfRestProviderId } from './cf-outcome.ts';
import type { DeliveryEvent } from './deliveries.ts';
import type { MessageRecord } from './model.ts';

/**
 * Reconciliation of uncertain sends: an event whose provider id matches no
 * message may belong to a message recorded uncertain (its provider answer was lost). A candidate has
 * the event's sender, the recipient with an uncertain delivery, the exact subject, and that
 * delivery's updated_at within −30/+5 minutes of the event. Pure: the store supplies the identity's
 * uncertain messages.
 */
export const RECONCILE_BEFORE_MS = 30 * 60_000;
export const RECONCILE_AFTER_MS = 5 * 60_000;

/**
 * An event is reconciled only once it is older than this. Until then the send that owns it
 * may still be in flight — accepted by the provider, its Record not yet written (Record retries for
 * up to a minute) or not yet visible through gsi1 — and an older uncertain sibling with the same
 * sender, recipient and subject would take its provider id. The attempt machine's whole execution is
 * bounded by its TimeoutSeconds (290 s, statemachines/send-attempt.asl.json; a test keeps it below
 * this), so past 5 minutes no Record can still come, and a not-found event is either an uncertain
 * send's or an orphan. Younger not-found events are retried (NotFound is retried by age).
 */
export const RECONCILE_MIN_AGE_MS = 5 * 60_000;

/** Whether an event whose provider id matches no message is old enough to be reconciled. */
export function reconcilable(event: Pick<DeliveryEvent, 'occurred_at'>, now: number): boolean {
  return now - event.occurred_at >= RECONCILE_MIN_AGE_MS;
}

export function reconcileCandidates(
  messages: readonly MessageRecord[],
  event: DeliveryEvent,
): MessageRecord[] {
  // Cloudflare omits the subject on complaints: no subject, no reconciliation.
  if (event.subject === undefined || !event.provider_message_id) return [];
  const sender = event.sender.toLowerCase();
  const recipient = event.recipient.toLowerCase();
  const from = event.occurred_at - RECONCILE_BEFORE_MS;
  const to = event.occurred_at + RECONCILE_AFTER_MS;
  return messages.filter(
    (m) =>
      m.direction === 'outbound' &&
      m.status === 'uncertain' &&
      !m.provider_message_id &&
      m.from.address.toLowerCase() === sender &&
      m.subject === event.subject &&
      (m.deliveries ?? []).some(
        (d) =>
          d.address.toLowerCase() === recipient &&
          d.status === 'uncertain' &&
          d.updated_at >= from &&
          d.updated_at <= to,
      ),
  );
}

/** The candidate with the event's provider id and the `reconciled` flag (then the event applies). */
export function reconcile(message: MessageRecord, event: DeliveryEvent): MessageRecord {
  return {
    ...message,
    provider_message_id: event.provider_message_id,
    ...(event.source === 'ses' || event.source === 'cloudflare' ? { provider: event.source } : {}),
    flags: message.flags.includes('reconciled') ? message.flags : [...message.flags, 'reconciled'],
  };
}

/**
 * Cloudflare REST sends: the REST answer has no message id, so
 * the message is recorded with `cf-rest:{message id}` and the first Cloudflare event for it adopts
 * the event's `messageId` as its provider id (later events then route through gsi1). A candidate is
 * a submitted Cloudflare REST send with the event's sender, exact subject, and the recipient's
 * delivery recorded within −30/+5 minutes of the event; exactly one candidate, else nothing changes.
 */
export function adoptCandidates(messages: readonly MessageRecord[], event: DeliveryEvent): MessageRecord[] {
  if (event.source !== 'cloudflare' || event.subject === undefined || !event.provider_message_id) return [];
  if (isCfRestProviderId(event.provider_message_id)) return [];
  const sender = event.sender.toLowerCase();
  const recipient = event.recipient.toLowerCase();
  const from = event.occurred_at - RECONCILE_BEFORE_MS;
  const to = event.occurred_at + RECONCILE_AFTER_MS;
  return messages.filter(
    (m) =>
      m.direction === 'outbound' &&
      isCfRestProviderId(m.provider_message_id) &&
      m.from.address.toLowerCase() === sender &&
      m.subject === event.subject &&
      (m.deliveries ?? []).some(
        (d) =>
          d.address.toLowerCase() === recipient &&
          d.status !== 'queued' &&
          d.status !== 'suppressed' &&
          d.updated_at >= from &&
          d.updated_at <= to,
      ),
  );
}

/** The candidate with Cloudflare's messageId as its provider id (then the event applies). */
export function adopt(message: MessageRecord, event: DeliveryEvent): MessageRecord {
  return { ...message, provider_message_id: event.provider_message_id };
}
