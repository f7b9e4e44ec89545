import { type DeliveryEvent, type DeliveryEventKind, isDeliveryEventKind } from './deliveries.ts';
import { bareAddress } from './ses-events.ts';

/**
 * Cloudflare Email Sending event subscriptions → DeliveryEvent
 * (`CfEvent`).
 *
 * Verified against the Email Service "Event subscriptions" page (developers.cloudflare.com/
 * email-service/platform/event-subscriptions/, partial `queues/event-subscriptions/
 * email-sending-events.mdx` in cloudflare/cloudflare-docs, read 2026-12-02):
 * - types `cf.email.sending.message.{delivered,deferred,bounced,failed,rejected,complained}`;
 * - `payload.{eventId, messageId, sender, recipient, subject?, terminal}`; `subject` is absent from
 *   the complaint example;
 * - `payload.delivery.{status, provider, deliveryTimeMs, smtpStatusCode, smtpEnhancedStatusCode,
 *   smtpResponse}`; the SMTP fields appear on delivered/deferred/bounced only, as strings;
 * - `payload.bounce.{type: hard|soft, classification, reason}` on bounced (hard, or soft when the
 *   retries ran out) and on deferred (soft); `failure.reason`, `rejection.{reason, party, detail}`,
 *   `complaint.type`.
 * The queue "Events & schemas" page lists `metadata.eventTimestamp` (ISO 8601, "when the event
 * occurred") among the fields *all* events include and names no fallback: an event without a
 * readable one does not match the documented shape and is counted as unknown, like any other shape
 * the docs do not describe. Pure: the caller passes the queue body.
 */
export interface CfRecord {
  type: string;
  source?: { type?: string; zoneId?: string; domain?: string };
  payload: {
    eventId: string;
    messageId: string;
    sender: string;
    recipient: string;
    subject?: string;
    terminal?: boolean;
    delivery?: {
      status?: string;
      provider?: string;
      deliveryTimeMs?: number;
      smtpStatusCode?: string | number;
      smtpEnhancedStatusCode?: string;
      smtpResponse?: string;
    };
    bounce?: { type?: 'hard' | 'soft'; classification?: string; reason?: string };
    failure?: { reason?: string };
    rejection?: { reason?: string; party?: string; detail?: string };
    complaint?: { type?: string };
  };
  metadata: {
    accountId?: string;
    eventSubscriptionId?: string;
    eventSchemaVersion?: number;
    eventTimestamp: string;
  };
}

/** What one queue body of Cloudflare origin becomes (the SES normaliser's shape). */
export type CfNormalised =
  | { type: 'events'; events: DeliveryEvent[] }
  /** A type not handled here, or a body that does not match the documented shape. */
  | { type: 'unknown'; event_type: string };

/** The prefix every Email Sending event type carries. */
export const CF_EMAIL_SENDING_PREFIX = 'cf.email.sending.';
const MESSAGE_PREFIX = `${CF_EMAIL_SENDING_PREFIX}message.`;

/**
 * The parsed body when it is an Email Sending event (`type` starting `cf.email.sending.`),
 * undefined for anything else (SES records, normalised DeliveryEvents) so the caller tries those.
 */
export function unwrapCf(body: string): Record<string, unknown> | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return undefined;
  const type = (parsed as Record<string, unknown>).type;
  return typeof type === 'string' && type.startsWith(CF_EMAIL_SENDING_PREFIX)
    ? (parsed as Record<string, unknown>)
    : undefined;
}

const isString = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

function isCfRecord(r: Record<string, unknown>): r is Record<string, unknown> & CfRecord {
  const p = r.payload as Record<string, unknown> | undefined;
  const m = r.metadata as Record<string, unknown> | undefined;
  return (
    !!p &&
    typeof p === 'object' &&
    isString(p.eventId) &&
    isString(p.messageId) &&
    isString(p.sender) &&
    isString(p.recipient) &&
    !!m &&
    typeof m === 'object' &&
    isString(m.eventTimestamp) &&
    Number.isFinite(Date.parse(m.eventTimestamp))
  );
}

const trim = (text: string) => text.slice(0, 512);

export function normaliseCf(record: Record<string, unknown>): CfNormalised {
  const type = String(record.type);
  const kind = type.startsWith(MESSAGE_PREFIX) ? type.slice(MESSAGE_PREFIX.length) : '';
  if (!isDeliveryEventKind(kind)) return { type: 'unknown', event_type: type };
  if (!isCfRecord(record)) return { type: 'unknown', event_type: `${type} (malformed)` };
  const p = record.payload;
  const d = p.delivery ?? {};
  const detail = providerDetail(kind, record);
  const event: DeliveryEvent = {
    source: 'cloudflare',
    event_id: p.eventId,
    provider_message_id: p.messageId,
    sender: bareAddress(p.sender),
    recipient: bareAddress(p.recipient),
    ...(typeof p.subject === 'string' ? { subject: p.subject } : {}),
    kind,
    // No bounce object on a bounced event: soft, so an unclear report never suppresses an address.
    ...(kind === 'bounced' ? { bounce_type: p.bounce?.type === 'hard' ? 'hard' : 'soft' } : {}),
    ...(d.smtpStatusCode !== undefined && d.smtpStatusCode !== ''
      ? { smtp_code: String(d.smtpStatusCode) }
      : {}),
    ...(isString(d.smtpEnhancedStatusCode) ? { enhanced_code: d.smtpEnhancedStatusCode } : {}),
    ...(detail ? { smtp_response: trim(detail) } : {}),
    occurred_at: Date.parse(record.metadata.eventTimestamp),
  };
  return { type: 'events', events: [event] };
}

/** The SMTP answer when there is one; otherwise the provider's own words (as the SES path does). */
function providerDetail(kind: DeliveryEventKind, record: CfRecord): string | undefined {
  const p = record.payload;
  if (isString(p.delivery?.smtpResponse)) return p.delivery.smtpResponse;
  if (kind === 'failed') return `cloudflare: failed (${p.failure?.reason ?? 'unknown'})`;
  if (kind === 'rejected') {
    const r = p.rejection;
    return `cloudflare: rejected (${r?.reason ?? 'unknown'}${r?.detail ? `: ${r.detail}` : ''})`;
  }
  if (isString(p.bounce?.reason)) return p.bounce.reason;
  return undefined;
}
