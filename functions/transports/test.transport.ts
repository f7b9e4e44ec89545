import type { DeliveryEvent } from '../core/deliveries.ts';
import { derivedUlid, ulidOf } from '../core/ids.ts';
import type { MessageRecord } from '../core/model.ts';
import { baseAddress } from '../core/recipients.ts';
import { isSimulatorAddress, simulate } from '../core/simulator.ts';
import type { RecipientRefusal, TransportResult } from '../core/transport-result.ts';
import type { Deps } from '../deps.ts';
import { inboundKey } from '../store/blobs.ts';
import { getAddresses } from '../store/directory.store.ts';
import { putNewMessage } from '../store/messages.store.ts';

/**
 * The transports of test tenants (seed 000 › Simulator, Loopback; DESIGN § 8). Simulator and
 * loopback recipients of one message share the provider id `test-{message ulid}`; the provider is
 * `simulator` if any simulator recipient exists, else `loopback`. Events are published the way a
 * real provider emits them: after the call, independently of what pmail records.
 */
export async function sendTest(deps: Deps, message: MessageRecord): Promise<TransportResult> {
  const queued = (message.deliveries ?? []).filter((d) => d.status === 'queued').map((d) => d.address);
  const simulated = queued.filter(isSimulatorAddress);
  const local = queued.filter((a) => !isSimulatorAddress(a));
  const providerMessageId = `test-${ulidOf(message.id)}`;
  const provider = simulated.length > 0 ? 'simulator' : 'loopback';
  const now = deps.clock();
  const events: DeliveryEvent[] = [];

  if (simulated.length > 0) {
    const outcome = simulate(simulated, providerMessageId, (message.backoff?.n ?? 0) + 1);
    if (outcome.result.type !== 'accepted') return outcome.result;
    for (const e of outcome.events) {
      events.push({
        source: 'simulator',
        event_id: `sim:${message.id}:${e.recipient.toLowerCase()}:${e.n}`,
        provider_message_id: providerMessageId,
        sender: message.from.address,
        recipient: e.recipient,
        subject: message.subject,
        kind: e.kind,
        bounce_type: e.bounce_type,
        smtp_code: e.smtp_code,
        enhanced_code: e.enhanced_code,
        smtp_response: e.smtp_response,
        occurred_at: now,
      });
    }
  }

  const refused: RecipientRefusal[] = [];
  if (local.length > 0) {
    // A sub-address (`agent+t…@`, the thread-token Reply-To) reaches the base address's identity.
    const directory = await getAddresses(deps.db, local.map(baseAddress));
    for (const address of local) {
      const rec = directory.get(baseAddress(address).toLowerCase());
      if (!rec || rec.status === 'retired') {
        refused.push({ address, code: '550', detail: '550 5.1.1 not an address on this deployment' });
        continue;
      }
      await injectLoopback(deps, message, rec.tenant_id, rec.identity_id, address, now);
      events.push({
        source: 'loopback',
        event_id: `loopback:${message.id}:${address.toLowerCase()}`,
        provider_message_id: providerMessageId,
        sender: message.from.address,
        recipient: address,
        subject: message.subject,
        kind: 'delivered',
        smtp_code: '250',
        enhanced_code: '2.0.0',
        smtp_response: '250 2.0.0 delivered by loopback',
        occurred_at: now,
      });
    }
  }

  if (events.length > 0) await deps.events.publish(events, deps.config.simEventDelaySeconds);
  await deps.faults?.afterProviderCall?.(message.id);
  return { type: 'accepted', provider, provider_message_id: providerMessageId, refused, deferred: [] };
}

/**
 * seed 000 › Loopback: the recipient's mailbox receives the composed MIME (Message-ID kept, so
 * replies thread) as an inbound message of its own. The inbound id is derived from the outbound id
 * and the recipient, so a repeated injection cannot make a second copy.
 */
async function injectLoopback(
  deps: Deps,
  message: MessageRecord,
  tenantId: string,
  identityId: string,
  recipient: string,
  now: number,
): Promise<void> {
  const ulid = derivedUlid(ulidOf(message.id), `${message.id}|${recipient.toLowerCase()}`);
  const inboundId = `msg_${ulid}`;
  const raw = await deps.blobs.get(message.raw_key);
  if (!raw) throw new Error(`the stored copy of ${message.id} is missing`);
  const key = inboundKey(tenantId, identityId, inboundId);
  await deps.blobs.put(key, raw.body, {
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
    raw_size: raw.body.length,
    created_at: now,
    updated_at: now,
    version: 1,
    loopback_of: { tenant_id: message.tenant_id, identity_id: message.identity_id, message_id: message.id },
  });
}
