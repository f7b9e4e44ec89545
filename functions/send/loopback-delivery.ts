import type { DeliveryEvent } from '../core/deliveries.ts';
import { derivedUlid, ulidOf } from '../core/ids.ts';
import type { MessageRecord } from '../core/model.ts';
import type { LoopbackCopy } from '../core/transport-result.ts';
import type { Deps } from '../deps.ts';
import { inboundKey } from '../store/blobs.ts';
import { putNewMessage } from '../store/messages.store.ts';

/**
 * The loopback-delivery step, run by Record with the copies a loopback (or simulator) result hands
 * back (the transport itself writes nothing): each recipient's mailbox receives the composed MIME
 * as an inbound message, then loopback's `delivered` event is published, as the provider's event
 * would be. Inbound ids and event ids derive from the outbound id and the recipient, so a retried
 * Record makes no second copy and no second event.
 */
export async function deliverLoopback(
  deps: Deps,
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
    await injectLoopback(deps, message, raw.body, copy, now);
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
 * Loopback: the recipient's mailbox receives the composed MIME (Message-ID kept, so
 * replies thread) as an inbound message of its own.
 */
async function injectLoopback(
  deps: Deps,
  message: MessageRecord,
  body: Uint8Array,
  copy: LoopbackCopy,
  now: number,
): Promise<void> {
  const { tenant_id: tenantId, identity_id: identityId, recipient } = copy;
  const ulid = derivedUlid(ulidOf(message.id), `${message.id}|${recipient.toLowerCase()}`);
  const inboundId = `msg_${ulid}`;
  const key = inboundKey(tenantId, identityId, inboundId);
  await deps.blobs.put(key, body, {
    tenant: tenantId,
    identity: identityId,
    message: inboundId,
    loopback_of: message.id,
  });
  const bcc = message.bcc.filter((b) => b.address.toLowerCase() === recipient.toLowerCase());
  await putNewMessage(deps.db, {
    id: inboundId,
    tenant_id: tenantId,
    identity_id: identityId,
    thread_id: `thr_${ulid}`,
    direction: 'inbound',
    status: 'received',
    from: message.from,
    to: message.to,
    cc: message.cc,
    bcc,
    reply_to: message.reply_to,
    subject: message.subject,
    kind: message.kind,
    labels: [],
    // An auto-reply arrives as automated mail: answering it automatically is refused (D6).
    flags: message.kind === 'auto_reply' ? ['loopback', 'automated'] : ['loopback'],
    rfc_message_id: message.rfc_message_id,
    in_reply_to: message.in_reply_to,
    references: message.references,
    hop: message.hop,
    raw_key: key,
    raw_size: body.length,
    created_at: now,
    updated_at: now,
    version: 1,
    loopback_of: { tenant_id: message.tenant_id, identity_id: message.identity_id, message_id: message.id },
  });
}
