import type { DeliveryEvent } from '../core/deliveries.ts';
import { derivedUlid, ulidOf } from '../core/ids.ts';
import type { MessageRecord } from '../core/model.ts';
import type { LoopbackCopy } from '../core/transport-result.ts';
import { type IngestDeps, ingestNotification } from '../inbound/ingest.ts';
import { INBOUND_RAW_PREFIX } from '../inbound/notification.ts';
import { receivedNotification } from '../inbound/received.ts';

/**
 * The loopback-delivery step, run by Record with the copies a loopback (or simulator) result hands
 * back (the transport itself writes nothing): each recipient's copy comes in the way every received
 * message does (docs/guides/receiving.md): the composed MIME stored under `inbound/raw/`, the
 * notification SES's S3 action would publish, and the ingest, which routes, threads, stores and
 * announces it. Then loopback's `delivered` event is published, as the provider's event would be.
 *
 * The ingest is called here, not through the ingest queue: Record's `delivered` must follow the
 * copy, and a failed ingest fails this task, which the send machine retries (the queue would ack
 * Record before the copy exists, and the send-attempt function would need the queue as a port).
 * The object's key and the event ids derive from the outbound id and the recipient, and the ingest
 * stores one message per (raw message, recipient), so a retried Record makes no second copy and
 * no second event.
 */
export async function deliverLoopback(
  deps: IngestDeps,
  message: MessageRecord,
  providerMessageId: string,
  copies: LoopbackCopy[],
): Promise<void> {
  if (copies.length === 0) return;
  const raw = await deps.blobs.get(message.raw_key);
  if (!raw) throw new Error(`the stored copy of ${message.id} is missing`);
  const now = deps.clock();
  const events: DeliveryEvent[] = [];
  for (const copy of copies) {
    await injectLoopback(deps, message, raw.body, copy.recipient);
    events.push({
      source: 'loopback',
      event_id: `loopback:${message.id}:${copy.recipient.toLowerCase()}`,
      provider_message_id: providerMessageId,
      sender: message.from.address,
      recipient: copy.recipient,
      subject: message.subject,
      kind: 'delivered',
      smtp_code: '250',
      enhanced_code: '2.0.0',
      smtp_response: '250 2.0.0 delivered by loopback',
      occurred_at: now,
    });
  }
  await deps.events.publish(events, deps.config.simEventDelaySeconds);
}

/**
 * One recipient's copy: the composed MIME as it left (Message-ID kept, so replies thread), received
 * at the time the message was composed, so the same copy is the same notification however often
 * Record runs. SPF, DKIM and DMARC pass (this deployment composed it for one of its own identities);
 * nothing scans it for spam or viruses (`GRAY`).
 */
async function injectLoopback(deps: IngestDeps, message: MessageRecord, body: Uint8Array, recipient: string) {
  const id = `loopback-${derivedUlid(ulidOf(message.id), `${message.id}|${recipient.toLowerCase()}`).toLowerCase()}`;
  await deps.blobs.put(`${INBOUND_RAW_PREFIX}${id}`, body, {});
  const notification = receivedNotification({
    id,
    at: message.created_at,
    source: message.from.address,
    destination: [recipient],
    recipients: [recipient],
    verdicts: { spf: 'PASS', dkim: 'PASS', dmarc: 'PASS' },
  });
  await ingestNotification(deps, notification, {
    loopbackOf: { tenant_id: message.tenant_id, identity_id: message.identity_id, message_id: message.id },
  });
}
