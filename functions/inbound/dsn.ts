import type { ParsedMail } from 'mailparser';
import { type DsnInput, dsnDeliveryEvents, dsnKey, parseDsn } from '../core/dsn.ts';
import type { BaseDeps, Deps } from '../deps.ts';
import { findOutboundByRfcId } from '../store/inbound.store.ts';

/** The parts of a received message DSN routing reads (mailparser's ParsedMail has them). */
export type DsnMail = Pick<ParsedMail, 'headers' | 'attachments' | 'text' | 'messageId'>;

const STATUS_TYPES = new Set(['message/delivery-status', 'message/global-delivery-status']);
const RETURNED_TYPES = new Set([
  'message/rfc822',
  'text/rfc822-headers',
  'message/global',
  'message/global-headers',
]);
/** Only the returned message's headers are read: its first 64 KiB hold them. */
const RETURNED_READ = 64 * 1024;

/**
 * A report's parts, or undefined when the message is no `multipart/report;
 * report-type=delivery-status`. The status part is an attachment when the parser keeps it apart
 * (mailparser's `keepDeliveryStatus`), else mailparser puts it into the text (core/dsn.ts skips
 * the notification's prose before its first field).
 */
export function dsnParts(parsed: DsnMail): DsnInput | undefined {
  const ct = parsed.headers.get('content-type') as
    | { value?: string; params?: Record<string, string> }
    | undefined;
  if (ct?.value?.toLowerCase() !== 'multipart/report') return undefined;
  const reportType = ct.params?.['report-type']?.toLowerCase();
  if (reportType !== 'delivery-status' && reportType !== 'global-delivery-status') return undefined;
  const status = parsed.attachments.find((a) => STATUS_TYPES.has(a.contentType.toLowerCase()));
  const returned = parsed.attachments.find((a) => RETURNED_TYPES.has(a.contentType.toLowerCase()));
  return {
    deliveryStatus: status ? status.content.toString('utf8') : (parsed.text ?? ''),
    ...(returned ? { returned: returned.content.subarray(0, RETURNED_READ).toString('utf8') } : {}),
  };
}

/**
 * DSN routing (docs/guides/receiving.md › Bounces that come back as mail): a report of one of this
 * identity's outbound messages, matched by the returned Message-ID, becomes one delivery event per
 * recipient it reports, published to the delivery-events queue, whose consumer applies it as it
 * applies SES's (a hard bounce suppresses). `routed`: not stored as inbox mail. `unmatched`: a
 * report of no message of this identity (or one that cannot be read): the caller stores it as
 * ordinary inbound mail. `not_dsn`: no report at all.
 *
 * Writes nothing itself. The events' ids come from the report (its Message-ID and status text),
 * so a report received again, or routed again after a failure, is a duplicate in the consumer.
 */
export async function routeDsn(
  deps: BaseDeps & Pick<Deps, 'events'>,
  input: { identityId: string; tenantId: string; parsed: DsnMail; receivedAt: number },
): Promise<'routed' | 'unmatched' | 'not_dsn'> {
  const parts = dsnParts(input.parsed);
  if (!parts) return 'not_dsn';
  const unmatched = (why: string) => {
    deps.metrics.add('dsn_unmatched');
    deps.log.info('DSN kept as inbound mail', { identity_id: input.identityId, why });
    return 'unmatched' as const;
  };
  const dsn = parseDsn(parts);
  if (!dsn) return unmatched('no recipient in the report');
  if (!dsn.original_message_id) return unmatched('no original Message-ID');
  const message = await findOutboundByRfcId(deps.db, input.identityId, dsn.original_message_id);
  if (!message || message.tenant_id !== input.tenantId) return unmatched('no outbound message');
  const { events, unknown_recipients } = dsnDeliveryEvents(
    dsn,
    {
      ...(message.provider_message_id ? { provider_message_id: message.provider_message_id } : {}),
      sender: message.from.address,
      subject: message.subject,
      recipients: (message.deliveries ?? []).map((d) => d.address),
    },
    { dsnKey: dsnKey(input.parsed.messageId, parts.deliveryStatus), occurredAt: input.receivedAt },
  );
  deps.metrics.add('dsn_routed');
  if (!message.provider_message_id) {
    // The consumer finds a message by its provider id; one never accepted by a provider has none.
    deps.log.warn('DSN of a message without a provider id: no event', {
      message_id: message.id,
      reported: dsn.recipients.length,
    });
    return 'routed';
  }
  if (events.length > 0) await deps.events.publish(events, 0);
  deps.log.info('DSN routed', {
    message_id: message.id,
    events: events.length,
    unknown_recipients,
  });
  return 'routed';
}
