import type { Delivery, DeliveryStatus, MessageRecord, MessageStatus } from './model.ts';

/** The delivery consumer: every provider event normalised to one shape. */
export const DELIVERY_EVENT_KINDS = [
  'delivered',
  'deferred',
  'bounced',
  'failed',
  'rejected',
  'complained',
] as const;
export type DeliveryEventKind = (typeof DELIVERY_EVENT_KINDS)[number];
export const isDeliveryEventKind = (s: string): s is DeliveryEventKind =>
  (DELIVERY_EVENT_KINDS as readonly string[]).includes(s);
export type EventSource = 'simulator' | 'loopback' | 'ses' | 'cloudflare' | 'dsn';

export interface DeliveryEvent {
  source: EventSource;
  event_id: string;
  provider_message_id?: string;
  sender: string;
  recipient: string;
  subject?: string;
  kind: DeliveryEventKind;
  bounce_type?: 'hard' | 'soft';
  /** A hard bounce the provider reports from its own suppression list (SES `Suppressed`,
   * `OnAccountSuppressionList`): our suppression takes reason `provider`. */
  provider_suppressed?: boolean;
  smtp_code?: string;
  enhanced_code?: string;
  /** trimmed to 512 characters */
  smtp_response?: string;
  occurred_at: number;
  /**
   * `dsn` only: the message and its identity that the report's signed return path names
   * (core/return-path.ts). The consumer applies the event to that message, not by provider id.
   */
  identity_id?: string;
  message_id?: string;
}

type Step = DeliveryStatus | 'ignored' | 'update';

const ALL_TO_EVENT: Record<DeliveryEventKind, Step> = {
  delivered: 'delivered',
  deferred: 'deferred',
  bounced: 'bounced',
  failed: 'failed',
  rejected: 'rejected',
  complained: 'complained',
};
const IGNORE_ALL: Record<DeliveryEventKind, Step> = {
  delivered: 'ignored',
  deferred: 'ignored',
  bounced: 'ignored',
  failed: 'ignored',
  rejected: 'ignored',
  complained: 'ignored',
};

/** Applying an event: the transition table (current status × event). */
export const TRANSITIONS: Record<DeliveryStatus, Record<DeliveryEventKind, Step>> = {
  queued: ALL_TO_EVENT,
  submitted: ALL_TO_EVENT,
  uncertain: ALL_TO_EVENT,
  deferred: { ...ALL_TO_EVENT, deferred: 'update' },
  delivered: {
    delivered: 'ignored',
    deferred: 'ignored',
    bounced: 'bounced',
    failed: 'ignored',
    rejected: 'ignored',
    complained: 'complained',
  },
  bounced: { ...IGNORE_ALL, bounced: 'update', complained: 'complained' },
  complained: IGNORE_ALL,
  failed: IGNORE_ALL,
  rejected: IGNORE_ALL,
  suppressed: IGNORE_ALL,
};

const TERMINAL_DELIVERY = new Set<DeliveryStatus>([
  'delivered',
  'bounced',
  'complained',
  'failed',
  'rejected',
]);
const TERMINAL_MESSAGE = new Set<MessageStatus>([
  'delivered',
  'bounced',
  'complained',
  'rejected',
  'failed',
  'suppressed',
  'canceled',
]);

/** A message status that is final (a transactional template's variables are redacted here). */
export const isTerminalMessageStatus = (s: MessageStatus): boolean => TERMINAL_MESSAGE.has(s);

/** Applying an event: the message status over its non-suppressed deliveries. */
export function rollUp(
  current: MessageStatus,
  deliveries: readonly Pick<Delivery, 'status'>[],
): MessageStatus {
  const next = rollUpDeliveries(current, deliveries);
  if (next === current || !TERMINAL_MESSAGE.has(current)) return next;
  // A terminal message status changes only delivered → bounced (late bounce) or → complained,
  // and bounced → complained.
  if (current === 'delivered' && (next === 'bounced' || next === 'complained')) return next;
  if (current === 'bounced' && next === 'complained') return next;
  return current;
}

function rollUpDeliveries(
  current: MessageStatus,
  deliveries: readonly Pick<Delivery, 'status'>[],
): MessageStatus {
  const ds = deliveries.map((d) => d.status).filter((s) => s !== 'suppressed');
  if (ds.length === 0) return 'suppressed';
  if (ds.includes('complained')) return 'complained';
  if (ds.includes('queued')) return 'queued';
  const open = ds.filter((s) => !TERMINAL_DELIVERY.has(s));
  if (open.length > 0) {
    if (current === 'uncertain' && open.every((s) => s === 'uncertain')) return 'uncertain';
    if (open.includes('deferred')) return 'deferred';
    return 'submitted';
  }
  if (ds.includes('bounced')) return 'bounced';
  if (ds.includes('failed')) return 'failed';
  if (ds.includes('rejected')) return 'rejected';
  return 'delivered';
}

/** The outcome an applied event feeds to the abuse windows. */
export type AbuseOutcome = 'delivered' | 'bounced' | 'complained' | 'other';

export type ApplyResult =
  | { type: 'applied'; message: MessageRecord; outcome?: AbuseOutcome; suppress: boolean }
  | { type: 'duplicate'; suppress: boolean }
  | { type: 'ignored' };

const KEEP_EVENT_IDS = 20;

/**
 * Apply one provider event to an outbound message: dedupe by event id, transition the recipient's
 * delivery, roll the message up. Pure: the store writes the returned message under a version check.
 */
export function applyDeliveryEvent(message: MessageRecord, event: DeliveryEvent, now: number): ApplyResult {
  const recipient = event.recipient.toLowerCase();
  const deliveries = message.deliveries ?? [];
  const index = deliveries.findIndex((d) => d.address.toLowerCase() === recipient);
  const suppress = event.kind === 'complained' || (event.kind === 'bounced' && event.bounce_type === 'hard');
  // An address we did not send to is no recipient of this message: the event changes nothing here.
  if (index < 0) return { type: 'duplicate', suppress: false };
  const delivery = deliveries[index];
  if (delivery.event_ids?.includes(event.event_id)) return { type: 'duplicate', suppress };

  const step = TRANSITIONS[delivery.status][event.kind];
  if (step === 'ignored') {
    // Stale or ignored events emit nothing, but remember the id so a redelivery stays a duplicate.
    const updated = { ...delivery, event_ids: rememberEvent(delivery.event_ids, event.event_id) };
    return {
      type: 'applied',
      message: withDelivery(message, index, updated, message.status, now),
      suppress: false,
    };
  }
  const status = step === 'update' ? delivery.status : step;
  const updated: Delivery = {
    ...delivery,
    status,
    smtp_code: event.smtp_code,
    enhanced_code: event.enhanced_code,
    smtp_response: event.smtp_response?.slice(0, 512),
    bounce_type: event.kind === 'bounced' ? (event.bounce_type ?? 'soft') : delivery.bounce_type,
    updated_at: now,
    event_ids: rememberEvent(delivery.event_ids, event.event_id),
  };
  const next = withDelivery(message, index, updated, undefined, now);
  return { type: 'applied', message: next, outcome: abuseOutcome(event), suppress };
}

function rememberEvent(ids: string[] | undefined, id: string): string[] {
  return [...(ids ?? []), id].slice(-KEEP_EVENT_IDS);
}

function withDelivery(
  message: MessageRecord,
  index: number,
  delivery: Delivery,
  status: MessageStatus | undefined,
  now: number,
): MessageRecord {
  const deliveries = (message.deliveries ?? []).map((d, i) => (i === index ? delivery : d));
  const rolled = status ?? rollUp(message.status, deliveries);
  return { ...message, deliveries, status: rolled, updated_at: now };
}

function abuseOutcome(event: DeliveryEvent): AbuseOutcome | undefined {
  switch (event.kind) {
    case 'delivered':
      return 'delivered';
    case 'complained':
      return 'complained';
    case 'bounced':
      return event.bounce_type === 'hard' ? 'bounced' : 'other';
    case 'deferred':
      return undefined;
    default:
      return 'other';
  }
}
