import { ulidOf } from '../core/ids.ts';
import type { AddressRecord } from '../core/model.ts';
import { baseAddress } from '../core/recipients.ts';
import type { LoopbackCopy, RecipientRefusal, TransportResult } from '../core/transport-result.ts';
import type { Transport, TransportRequest } from './transport.ts';

/** What loopback reads: the directory of this deployment's addresses (keyed lower-case). */
export interface LoopbackPorts {
  addresses(addresses: string[]): Promise<Map<string, AddressRecord>>;
}

/** Loopback: the provider id shared by the test transports' recipients of one message. */
export const testProviderMessageId = (messageId: string): string => `test-${ulidOf(messageId)}`;

/**
 * Loopback (test tenants): a recipient that is an address of this deployment receives the
 * message as inbound mail; any other recipient is refused (550 5.1.1). The adapter only decides: the
 * inbound copies travel in the result and Record writes them and emits their delivered events
 * (functions/send/loopback-delivery.ts), so this transport writes nothing.
 */
export function loopbackTransport(ports: LoopbackPorts): Transport {
  return {
    provider: 'loopback',
    async send(req: TransportRequest): Promise<TransportResult> {
      const { refused, loopback } = await deliverLocally(
        ports,
        req.recipients.map((r) => r.address),
      );
      return {
        type: 'accepted',
        provider: 'loopback',
        provider_message_id: testProviderMessageId(req.message_id),
        refused,
        deferred: [],
        loopback,
      };
    },
  };
}

/** Which of `addresses` loopback delivers, and which it refuses. */
export async function deliverLocally(
  ports: LoopbackPorts,
  addresses: string[],
): Promise<{ refused: RecipientRefusal[]; loopback: LoopbackCopy[] }> {
  const refused: RecipientRefusal[] = [];
  const loopback: LoopbackCopy[] = [];
  if (addresses.length === 0) return { refused, loopback };
  // A sub-address (`agent+t…@`, the thread-token Reply-To) reaches the base address's identity.
  const directory = await ports.addresses(addresses.map(baseAddress));
  for (const address of addresses) {
    const rec = directory.get(baseAddress(address).toLowerCase());
    if (!rec || rec.status === 'retired') {
      refused.push({ address, code: '550', detail: '550 5.1.1 not an address on this deployment' });
      continue;
    }
    loopback.push({ recipient: address, tenant_id: rec.tenant_id, identity_id: rec.identity_id });
  }
  return { refused, loopback };
}
