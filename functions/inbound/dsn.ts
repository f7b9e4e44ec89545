import type { ParsedMail } from 'mailparser';
import { type DsnInput, dsnDeliveryEvents, dsnKey, parseDsn } from '../core/dsn.ts';
import { isNullReversePath, returnPathClaim, returnPathVerifies } from '../core/return-path.ts';
import type { BaseDeps, Deps } from '../deps.ts';
import { getMessage } from '../store/messages.store.ts';

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
 * DSN routing (docs/guides/receiving.md › Bounces that come back as mail): a report changes a
 * delivery only when it proves it answers pmail's own envelope (› Which reports count): it came
 * with the null reverse-path (MAIL FROM:<>), to a signed return path pmail minted for one recipient
 * of one of this identity's messages (core/return-path.ts), and it names that recipient. Then its
 * block about that recipient becomes one delivery event, published to the delivery-events queue,
 * whose consumer applies it to that message (a hard bounce suppresses), once the recipient's
 * attempt is recorded. `routed`: not stored as inbox mail. `kept`: a report without that proof (or
 * one that cannot be read): the caller stores it as ordinary inbound mail, flagged `dsn`, and it
 * changes nothing. `not_dsn`: no report at all.
 *
 * Writes nothing itself. The events' ids come from the report (its Message-ID and status text),
 * so a report received again, or routed again after a failure, is a duplicate in the consumer.
 */
export async function routeDsn(
  deps: BaseDeps & Pick<Deps, 'events'>,
  input: {
    identityId: string;
    tenantId: string;
    parsed: DsnMail;
    receivedAt: number;
    /** The envelope sender (SES's `mail.source`): empty for MAIL FROM:<>. */
    envelopeFrom: string;
    /** The envelope recipient's `+detail`: a signed return path's token, if it is one. */
    detail?: string;
  },
): Promise<'routed' | 'kept' | 'not_dsn'> {
  const parts = dsnParts(input.parsed);
  if (!parts) return 'not_dsn';
  const kept = (why: string) => {
    deps.metrics.add('dsn_unmatched');
    deps.log.info('DSN kept as inbound mail', { identity_id: input.identityId, why });
    return 'kept' as const;
  };
  if (!isNullReversePath(input.envelopeFrom)) return kept('not sent with the null reverse-path');
  const claim = returnPathClaim(input.detail);
  if (!claim) return kept('not delivered to a signed return path');
  const dsn = parseDsn(parts);
  if (!dsn) return kept('no recipient in the report');
  const message = await getMessage(deps.db, input.identityId, claim.messageId, true);
  const delivery = message?.direction === 'outbound' ? message.deliveries?.[claim.index] : undefined;
  if (!message || !delivery || message.tenant_id !== input.tenantId) return kept('no such recipient');
  if (!returnPathVerifies(deps.config.hashKey, input.identityId, claim, delivery.address))
    return kept('the return path is not one pmail signed');
  const { events, unknown_recipients } = dsnDeliveryEvents(
    dsn,
    {
      identity_id: message.identity_id,
      message_id: message.id,
      ...(message.provider_message_id ? { provider_message_id: message.provider_message_id } : {}),
      sender: message.from.address,
      subject: message.subject,
      recipients: [delivery.address],
    },
    { dsnKey: dsnKey(input.parsed.messageId, parts.deliveryStatus), occurredAt: input.receivedAt },
  );
  if (unknown_recipients === dsn.recipients.length) return kept('the report names another recipient');
  deps.metrics.add('dsn_routed');
  if (events.length > 0) await deps.events.publish(events, 0);
  deps.log.info('DSN routed', {
    message_id: message.id,
    events: events.length,
    other_recipients: unknown_recipients,
  });
  return 'routed';
}
