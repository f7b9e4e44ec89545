import { normaliseSes, type SesNormalised, unwrapSes } from '../core/ses-events.ts';
import type { BaseDeps } from '../deps.ts';
import { findByProviderId, mutateMessage } from '../store/messages.store.ts';

/**
 * SES events on the delivery-events queue (configuration set → SNS → SQS, raw or
 * enveloped). Undefined when the body is not of SES origin.
 */
export function sesFromBody(body: string): SesNormalised | undefined {
  const unwrapped = unwrapSes(body);
  return unwrapped ? normaliseSes(unwrapped.record, unwrapped.notificationId) : undefined;
}

/**
 * A `Send` event: no status changes; the Message-ID SES put in the header becomes the message's
 * rfc_message_id (SES replaces the one pmail composed). False when no message has that provider id
 * yet (the caller retries by age, as for any NotFound).
 */
export async function applySendEvent(
  deps: BaseDeps,
  send: Extract<SesNormalised, { type: 'send' }>,
): Promise<boolean> {
  const target = await findByProviderId(deps.db, send.provider_message_id);
  if (target.type === 'none') return false;
  if (target.type === 'ambiguous') {
    // Two messages hold the id: neither is given the other's Message-ID.
    deps.metrics.add('delivery_ambiguous');
    deps.log.warn('SES send event for a provider id two messages hold: nothing changed');
    return true;
  }
  const rfc = send.rfc_message_id;
  if (!rfc) return true;
  const rfcId = rfc.startsWith('<') ? rfc : `<${rfc}>`;
  await mutateMessage(deps.db, target.identity_id, target.message_id, (m) =>
    m.rfc_message_id === rfcId
      ? { result: undefined }
      : { next: { ...m, rfc_message_id: rfcId, updated_at: deps.clock() }, result: undefined },
  );
  return true;
}
