import { consentKindOf } from './job-kind.ts';
import type { Delivery, Mailbox, MessageRecord } from './model.ts';
import { redactPayload } from './template-payload.ts';

const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());
const mailbox = (m: Mailbox) => ({ address: m.address, name: m.name ?? null });

/**
 * A Message-ID as the API shows it: the header's msg-id with its angle brackets (RFC 5322 § 3.6.4),
 * `<id-left@id-right>`, the form In-Reply-To and References carry it in and mail parsers return.
 * pmail stores what it composed or received; a value stored without brackets (a provider's
 * header copied bare) is shown with them, so every view compares equal to the header.
 */
export function msgIdView(id: string): string {
  const bare = id.trim().replace(/^<+|>+$/g, '');
  return `<${bare}>`;
}

/** The Message object of openapi.yaml, as the API returns it. */
export function toApiMessage(record: MessageRecord) {
  // As the codec stores it: a final message of a transactional template shows its redaction.
  const m = redactPayload(record);
  const outbound = m.direction === 'outbound';
  return {
    id: m.id,
    thread_id: m.thread_id,
    identity_id: m.identity_id,
    direction: m.direction,
    status: m.status,
    status_reason: m.status_reason ?? null,
    from: mailbox(m.from),
    to: m.to.map(mailbox),
    cc: m.cc.map(mailbox),
    bcc: m.bcc.map(mailbox),
    reply_to: m.reply_to.map(mailbox),
    subject: m.subject,
    sent_at: outbound ? iso(m.created_at) : null,
    received_at: iso(m.created_at),
    kind: m.kind,
    consent_kind: outbound ? consentKindOf(m) : null,
    labels: m.labels,
    flags: m.flags,
    metadata: m.metadata ?? {},
    rfc_message_id: msgIdView(m.rfc_message_id),
    in_reply_to: m.in_reply_to ? msgIdView(m.in_reply_to) : null,
    send_at: iso(m.send_at),
    provider: m.provider ?? null,
    provider_message_id: m.provider_message_id ?? null,
    // A send by template: which template and version rendered it; its variables are never shown.
    template: m.template ? { name: m.template.name, version: m.template.version } : null,
    payload_redacted_at: iso(m.payload_redacted_at),
    ...(outbound ? { deliveries: (m.deliveries ?? []).map(toApiDelivery) } : {}),
  };
}

export type ApiMessage = ReturnType<typeof toApiMessage>;

function toApiDelivery(d: Delivery) {
  return {
    address: d.address,
    typed_address: d.typed_address ?? null,
    field: d.field,
    status: d.status,
    smtp_code: d.smtp_code ?? null,
    enhanced_code: d.enhanced_code ?? null,
    smtp_response: d.smtp_response ?? null,
    bounce_type: d.bounce_type ?? null,
    updated_at: iso(d.updated_at),
  };
}
