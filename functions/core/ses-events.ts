import { createHash } from 'node:crypto';
import type { DeliveryEvent } from './deliveries.ts';

/**
 * Amazon SES event records → DeliveryEvent
 * Shapes from "Contents of event data that Amazon SES publishes to Amazon SNS" and the SNS
 * notification contents of identity feedback (docs.aws.amazon.com/ses/latest/dg/
 * event-publishing-retrieving-sns-contents.html and notification-contents.html, read 2026-12-02):
 * event publishing names the type `eventType`, identity notifications `notificationType`; both carry
 * `mail` and one object per type (`bounce`, `complaint`, `delivery`, `send`, `reject`,
 * `deliveryDelay`, `failure`). Pure: the caller passes the SQS body.
 */

interface SesRecipient {
  emailAddress: string;
  status?: string;
  action?: string;
  diagnosticCode?: string;
}

export interface SesRecord {
  eventType?: string;
  notificationType?: string;
  mail: {
    timestamp: string;
    messageId: string;
    source?: string;
    destination?: string[];
    commonHeaders?: { from?: string[]; to?: string[]; messageId?: string; subject?: string };
  };
  bounce?: {
    bounceType: 'Permanent' | 'Transient' | 'Undetermined';
    bounceSubType?: string;
    bouncedRecipients: SesRecipient[];
    timestamp: string;
  };
  complaint?: { complainedRecipients: { emailAddress: string }[]; timestamp: string };
  delivery?: { recipients: string[]; timestamp: string; smtpResponse?: string };
  deliveryDelay?: { delayedRecipients: SesRecipient[]; timestamp: string; delayType?: string };
  reject?: { reason?: string };
  failure?: { errorMessage?: string; templateName?: string };
}

/** What one SQS body of SES origin becomes. */
export type SesNormalised =
  | { type: 'events'; events: DeliveryEvent[] }
  /** `Send`: no status changes; the rfc Message-ID SES assigned is stored on the message. */
  | {
      type: 'send';
      provider_message_id: string;
      sender: string;
      rfc_message_id?: string;
      occurred_at: number;
    }
  /** Open, Click, Subscription, or a type SES adds later: acked and counted. */
  | { type: 'unknown'; event_type: string };

/** Bounce subtypes that mean SES itself suppressed the address: our list takes it as `provider`. */
const PROVIDER_SUPPRESSED = new Set(['Suppressed', 'OnAccountSuppressionList']);

/**
 * An SQS body is SES-shaped when it is an SNS envelope (`Type: Notification` with a JSON `Message`)
 * or a raw record (raw message delivery on) with `mail` and an `eventType`/`notificationType`.
 * Returns the record and the id SNS gave the notification, or undefined for anything else.
 */
export function unwrapSes(body: string): { record: SesRecord; notificationId: string } | undefined {
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(body) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  if (!parsed || typeof parsed !== 'object') return undefined;
  if (parsed.Type === 'Notification' && typeof parsed.Message === 'string') {
    try {
      const record = JSON.parse(parsed.Message) as SesRecord;
      if (!isSesRecord(record)) return undefined;
      return { record, notificationId: String(parsed.MessageId) };
    } catch {
      return undefined;
    }
  }
  if (!isSesRecord(parsed)) return undefined;
  // Raw delivery has no SNS MessageId: the body itself is stable across SNS redeliveries.
  return {
    record: parsed as unknown as SesRecord,
    notificationId: `raw-${createHash('sha256').update(body).digest('hex').slice(0, 32)}`,
  };
}

function isSesRecord(r: unknown): r is SesRecord {
  const o = r as Record<string, unknown> | null;
  return (
    !!o &&
    typeof o === 'object' &&
    (typeof o.eventType === 'string' || typeof o.notificationType === 'string') &&
    !!o.mail &&
    typeof (o.mail as Record<string, unknown>).messageId === 'string'
  );
}

/** `Sender Name <sender@example.com>` → `sender@example.com` (lower case). */
export function bareAddress(value: string): string {
  const angle = /<([^<>]+)>\s*$/.exec(value);
  return (angle ? angle[1] : value).trim().toLowerCase();
}

/** `smtp; 550 5.1.1 user unknown` → code 550; the text is kept as it came (trimmed to 512). */
function smtpParts(text: string | undefined, enhanced?: string) {
  if (!text) return enhanced ? { enhanced_code: enhanced } : {};
  const code = /(?:^|;\s*|\s)([245]\d\d)(?:[\s-]|$)/.exec(text)?.[1];
  const enh = enhanced ?? /\b([245]\.\d{1,3}\.\d{1,3})\b/.exec(text)?.[1];
  return {
    ...(code ? { smtp_code: code } : {}),
    ...(enh ? { enhanced_code: enh } : {}),
    smtp_response: text.slice(0, 512),
  };
}

const time = (iso: string | undefined, fallback: string) => Date.parse(iso ?? fallback);

export function normaliseSes(record: SesRecord, notificationId: string): SesNormalised {
  const type = record.eventType ?? record.notificationType ?? '';
  const mail = record.mail;
  const from = mail.commonHeaders?.from?.[0] ?? mail.source ?? '';
  const sender = bareAddress(from);
  if (type === 'Send') {
    return {
      type: 'send',
      provider_message_id: mail.messageId,
      sender,
      ...(mail.commonHeaders?.messageId ? { rfc_message_id: mail.commonHeaders.messageId } : {}),
      occurred_at: time(undefined, mail.timestamp),
    };
  }
  const events = recipientEvents(type, record, eventBase(record, notificationId, sender));
  return events ? { type: 'events', events } : { type: 'unknown', event_type: type || 'missing' };
}

/** What every per-recipient event of one SES record carries, for one recipient. */
function eventBase(record: SesRecord, notificationId: string, sender: string) {
  const mail = record.mail;
  const subject = mail.commonHeaders?.subject;
  return (recipient: string) => ({
    source: 'ses' as const,
    event_id: `ses:${notificationId}:${recipient.toLowerCase()}`,
    provider_message_id: mail.messageId,
    sender,
    recipient: recipient.toLowerCase(),
    ...(subject !== undefined ? { subject } : {}),
  });
}

/** One SES record's events, one per recipient it names; undefined for a type pmail does not read. */
function recipientEvents(
  type: string,
  record: SesRecord,
  base: ReturnType<typeof eventBase>,
): DeliveryEvent[] | undefined {
  const mail = record.mail;
  switch (type) {
    case 'Delivery': {
      const d = record.delivery!;
      return d.recipients.map((r) => ({
        ...base(bareAddress(r)),
        kind: 'delivered',
        ...smtpParts(d.smtpResponse),
        occurred_at: time(d.timestamp, mail.timestamp),
      }));
    }
    case 'Bounce': {
      const b = record.bounce!;
      const hard = b.bounceType === 'Permanent';
      return b.bouncedRecipients.map((r) => ({
        ...base(bareAddress(r.emailAddress)),
        kind: 'bounced',
        bounce_type: hard ? 'hard' : 'soft',
        ...(hard && PROVIDER_SUPPRESSED.has(b.bounceSubType ?? '') ? { provider_suppressed: true } : {}),
        ...smtpParts(r.diagnosticCode ?? `ses: ${b.bounceType} ${b.bounceSubType ?? ''}`.trim(), r.status),
        occurred_at: time(b.timestamp, mail.timestamp),
      }));
    }
    case 'Complaint': {
      const c = record.complaint!;
      return c.complainedRecipients.map((r) => ({
        ...base(bareAddress(r.emailAddress)),
        kind: 'complained',
        occurred_at: time(c.timestamp, mail.timestamp),
      }));
    }
    case 'DeliveryDelay': {
      const d = record.deliveryDelay!;
      return d.delayedRecipients.map((r) => ({
        ...base(bareAddress(r.emailAddress)),
        kind: 'deferred',
        ...smtpParts(r.diagnosticCode ?? `ses: delayed (${d.delayType ?? 'unknown'})`, r.status),
        occurred_at: time(d.timestamp, mail.timestamp),
      }));
    }
    case 'Reject':
    case 'Rendering Failure':
      return (mail.destination ?? []).map((r) => ({
        ...base(bareAddress(r)),
        kind: 'rejected',
        smtp_response: refusalDetail(record, type).slice(0, 512),
        occurred_at: time(undefined, mail.timestamp),
      }));
    default:
      return undefined;
  }
}

/** Why SES refused a message it never sent (a Reject or a Rendering Failure). */
const refusalDetail = (record: SesRecord, type: 'Reject' | 'Rendering Failure') =>
  type === 'Reject'
    ? `ses: rejected (${record.reject?.reason ?? 'unknown'})`
    : `ses: rendering failure (${record.failure?.errorMessage ?? 'unknown'})`;
