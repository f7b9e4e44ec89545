import { applyDeliveryEvent, type DeliveryEvent } from '../core/deliveries.ts';
import { sha256Hex } from '../core/fingerprint.ts';
import type { Deps } from '../deps.ts';
import { getAddress } from '../store/directory.store.ts';
import { mutateMessage } from '../store/messages.store.ts';

/** seed 000 › The delivery consumer: NotFound is retried by age, not by attempts (G8). */
export const ORPHAN_AGE_MS = 330_000;
export const NOT_FOUND_RETRY_SECONDS = 30;

export type ConsumeOutcome =
  | 'applied'
  | 'duplicate'
  | 'ignored'
  | 'unroutable'
  | 'unknown_type'
  | 'retry'
  | 'orphaned';

const KINDS = new Set(['delivered', 'deferred', 'bounced', 'failed', 'rejected', 'complained']);

export function parseDeliveryEvent(body: string): DeliveryEvent | undefined {
  try {
    const e = JSON.parse(body) as DeliveryEvent;
    if (typeof e.event_id !== 'string' || typeof e.sender !== 'string' || typeof e.recipient !== 'string')
      return undefined;
    if (!KINDS.has(e.kind) || typeof e.occurred_at !== 'number') return undefined;
    return e;
  } catch {
    return undefined;
  }
}

/**
 * The message an event is about. Test transports use `test-{message ulid}`, which names the message
 * directly; provider ids of SES and Cloudflare go through the provider-id index (issue 5).
 */
function messageIdFor(event: DeliveryEvent): string | undefined {
  const pid = event.provider_message_id;
  if (pid?.startsWith('test-')) return `msg_${pid.slice(5)}`;
  return undefined;
}

export async function consumeDeliveryEvent(deps: Deps, body: string): Promise<ConsumeOutcome> {
  const event = parseDeliveryEvent(body);
  if (!event) {
    deps.log.warn('delivery event of unknown type acked', { metric: 'delivery_unknown_type_total' });
    return 'unknown_type';
  }
  // Route by sender with no status filter: retiring and retired addresses still route late events.
  const address = await getAddress(deps.db, event.sender);
  if (!address) {
    deps.log.warn('unroutable delivery event', {
      metric: 'delivery_unroutable_total',
      event: hashed(event.event_id),
    });
    return 'unroutable';
  }
  const messageId = messageIdFor(event);
  const now = deps.clock();
  const out = messageId
    ? await mutateMessage(deps.db, address.identity_id, messageId, (m) => {
        if (m.direction !== 'outbound') return { result: 'ignored' as const };
        const applied = applyDeliveryEvent(m, event, now);
        if (applied.type === 'applied') return { next: applied.message, result: 'applied' as const };
        return { result: applied.type };
      })
    : ({ found: false } as const);
  if (out.found) return out.result;
  if (now - event.occurred_at < ORPHAN_AGE_MS) return 'retry';
  deps.log.warn('orphaned delivery event', {
    metric: 'delivery_orphaned_total',
    event: hashed(event.event_id),
    provider_message_id: event.provider_message_id ? hashed(event.provider_message_id) : undefined,
  });
  return 'orphaned';
}

const hashed = (s: string) => sha256Hex(s).slice(0, 16);
