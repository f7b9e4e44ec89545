import { createHmac } from 'node:crypto';
import { type DeliveryEvent, TRANSITIONS } from './deliveries.ts';
import { aboutMessage } from './event-access.ts';
import { derivedUlid } from './ids.ts';
import type { Delivery, MessageRecord } from './model.ts';

/**
 * The events an applied delivery event emits. Pure: the
 * consumer writes them in the transaction of the message, so they exist exactly when the
 * transition does. Their ids take their time from when the event was applied (the outbox reads in
 * id order) and their random part from the provider's event id; `data.occurred_at` keeps the
 * provider's time.
 */
export interface PendingEvent {
  id: string;
  type: string;
  created_at: number;
  data: Record<string, unknown>;
}

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';

/** The 10-character time part of a ULID for `ms`. */
export function ulidTime(ms: number): string {
  let out = '';
  let t = Math.max(0, Math.floor(ms));
  for (let i = 0; i < 10; i++) {
    out = CROCKFORD[t % 32] + out;
    t = Math.floor(t / 32);
  }
  return out;
}

/**
 * `evt_` + a ULID with time `at`; the random part starts with the event's position among those of
 * one application (so message.reconciled sorts before the recipient's event) and continues with a
 * hash of the provider event id and the event type.
 */
export function derivedEventId(at: number, seed: string, position: number): string {
  const ulid = derivedUlid(ulidTime(at), seed);
  return `evt_${ulid.slice(0, 10)}${CROCKFORD[position % 32]}${ulid.slice(11)}`;
}

/**
 * A ULID whose time is the suppression's created_at and whose random part
 * is the first 10 bytes of HMAC-SHA256(PM_HASH_KEY, "suppression:" + tenant_id + address_hash +
 * created_at).
 */
export function suppressionEventId(
  hashKey: string,
  tenantId: string,
  addressHash: string,
  createdAt: number,
): string {
  const mac = createHmac('sha256', hashKey)
    .update(`suppression:${tenantId}${addressHash}${createdAt}`)
    .digest()
    .subarray(0, 10);
  // 80 bits → 16 Crockford characters, 5 bits each, most significant first.
  let bits = 0n;
  for (const b of mac) bits = (bits << 8n) | BigInt(b);
  let random = '';
  for (let i = 15; i >= 0; i--) random += CROCKFORD[Number((bits >> BigInt(i * 5)) & 31n)];
  return `evt_${ulidTime(createdAt)}${random}`;
}

/** Whether the event moved (or updated) the delivery; stale and ignored events emit nothing. */
export function transitionApplies(delivery: Pick<Delivery, 'status'>, event: DeliveryEvent): boolean {
  return TRANSITIONS[delivery.status][event.kind] !== 'ignored';
}

const PER_RECIPIENT = new Set(['delivered', 'deferred', 'bounced', 'complained']);

export function deliveryEvents(args: {
  before: MessageRecord;
  after: MessageRecord;
  event: DeliveryEvent;
  /** The transition writes a suppression (hard bounce, complaint). */
  suppressed: boolean;
  /** Events that come first in this application (message.reconciled). */
  leading?: PendingEvent[];
  /**
   * When the event is applied: the time part of the outbox ids. Not the provider's occurred_at,
   * which can be minutes or hours old, so a late event would sort before events a reader of
   * `GET /v1/events?after=` has already passed, and never be seen.
   */
  at: number;
}): PendingEvent[] {
  const { before, after, event } = args;
  const out: PendingEvent[] = [...(args.leading ?? [])];
  const recipient = event.recipient.toLowerCase();
  const was = before.deliveries?.find((d) => d.address.toLowerCase() === recipient);
  const now = after.deliveries?.find((d) => d.address.toLowerCase() === recipient);
  if (!was || !now || !transitionApplies(was, event)) return out;
  const at = args.at;
  const add = (type: string, data: Record<string, unknown>) =>
    out.push({
      id: derivedEventId(at, `${event.event_id}|${type}`, out.length),
      type,
      created_at: at,
      data: {
        ...aboutMessage(after),
        ...data,
        occurred_at: new Date(event.occurred_at).toISOString(),
      },
    });
  if (PER_RECIPIENT.has(event.kind)) {
    add(`message.${event.kind}`, {
      recipient: now.address,
      status: now.status,
      message_status: after.status,
      smtp_code: now.smtp_code ?? null,
      enhanced_code: now.enhanced_code ?? null,
      smtp_response: now.smtp_response ?? null,
      ...(event.kind === 'bounced'
        ? { bounce_type: now.bounce_type ?? 'soft', suppressed: args.suppressed }
        : {}),
      ...(event.kind === 'complained' ? { suppressed: true } : {}),
    });
  }
  if (after.status !== before.status && after.status === 'rejected') {
    add('message.rejected', { reason: 'provider_validation', detail: event.smtp_response ?? null });
  }
  if (after.status !== before.status && after.status === 'failed') {
    add('message.failed', { reason: 'provider_failed' });
  }
  return out;
}

export function reconciledEvent(message: MessageRecord, event: DeliveryEvent, at: number): PendingEvent {
  return {
    id: derivedEventId(at, `${event.event_id}|message.reconciled`, 0),
    type: 'message.reconciled',
    created_at: at,
    data: { ...aboutMessage(message), status: message.status },
  };
}

/** What a client does about an uncertain send (message.uncertain's fix). */
export const UNCERTAIN_FIX =
  "Check the recipient's mailbox or wait for a delivery event; then call resolve with sent or not_sent.";

/**
 * The event of an attempt that ended the message (docs/guides/sending.md):
 * message.uncertain with its reason and fix, message.rejected when the transport refused
 * it, message.failed (the 24-hour end of a back-off). Its id comes from the message and the
 * status's `status_at`, so a Record retried after its write emits the same event, once. A
 * message that reached the status through delivery events (no `status_at`) has its own events.
 */
export function attemptEndEvent(m: MessageRecord): PendingEvent | undefined {
  if (m.status_at === undefined) return undefined;
  const base = aboutMessage(m);
  const [type, data] =
    m.status === 'uncertain'
      ? ['message.uncertain', { ...base, reason: m.status_reason ?? 'unknown', fix: UNCERTAIN_FIX }]
      : m.status === 'rejected'
        ? [
            'message.rejected',
            { ...base, reason: m.status_reason ?? 'recipients_refused', detail: m.status_detail ?? null },
          ]
        : m.status === 'failed'
          ? ['message.failed', { ...base, reason: m.status_reason ?? 'failed' }]
          : m.status === 'suppressed'
            ? [
                // Every recipient turned out suppressed by the provider.
                'message.suppressed',
                {
                  ...base,
                  recipients: (m.deliveries ?? []).map((d) => ({
                    address: d.address,
                    reason: d.smtp_response,
                  })),
                },
              ]
            : [undefined, undefined];
  if (!type) return undefined;
  return {
    id: derivedEventId(m.status_at, `${m.id}|${type}`, 0),
    type,
    created_at: m.status_at,
    data: data as Record<string, unknown>,
  };
}
