import { consentKindOf } from './job-kind.ts';
import { bodyOf, bodyRedacted, type MessageBody } from './message-body.ts';
import type { Delivery, InboundFields, Mailbox, MessageRecord } from './model.ts';
import { redactPayload } from './template-payload.ts';
import type { Trust } from './trust.ts';

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

/** The id an attachment has in the API: its position in the message's list, from 1 (`att_1`). */
export const attachmentId = (index: number) => `att_${index + 1}`;

/** The list position an attachment id names, or undefined for what is no attachment id. */
export function attachmentIndex(id: string): number | undefined {
  const m = /^att_([1-9][0-9]{0,2})$/.exec(id);
  return m ? Number(m[1]) - 1 : undefined;
}

/** A received message's receipt: envelope, verdicts, parse flags and threading (its body is the Message's own). */
function toApiInbound(m: MessageRecord) {
  // An inbound copy written before ingest read it (loopback's) has no fields: the view shows null.
  const i: Partial<InboundFields> = m.inbound ?? {};
  const v = i.verdicts ?? {};
  return {
    envelope_from: i.envelope_from ?? null,
    envelope_recipient: i.envelope_recipient ?? null,
    routed_to: i.routed_to ?? null,
    canonical: {
      from: i.canonical?.from ?? m.from.address.toLowerCase(),
      to: i.canonical?.to ?? m.to.map((t) => t.address.toLowerCase()),
      cc: i.canonical?.cc ?? m.cc.map((t) => t.address.toLowerCase()),
      reply_to: i.canonical?.reply_to ?? m.reply_to.map((t) => t.address.toLowerCase()),
    },
    parse: i.parse ?? null,
    cap: i.cap ?? null,
    threaded_by: i.threaded_by ?? null,
    headers: (i.headers ?? []).map((h) => ({ name: h.name, value: h.value })),
    verdicts: {
      spf: v.spf ?? null,
      dkim: v.dkim ?? null,
      dmarc: v.dmarc ?? null,
      spam: v.spam ?? null,
      virus: v.virus ?? null,
    },
    sender_auth: i.sender_auth ?? null,
    trust: i.trust ? toApiTrust(i.trust) : null,
    possible_duplicate: i.possible_duplicate
      ? { of: i.possible_duplicate.of, reason: i.possible_duplicate.reason }
      : null,
    auto: i.auto ?? null,
    dsn_unmatched: i.dsn_unmatched ?? false,
    ses_message_id: i.ses_message_id ?? null,
  };
}

/**
 * How much of the body a view carries: `full` (the message itself) or `summary` (a page of the list,
 * an action's answer: snippet and attachments, no text, HTML or extracted text). A view that leaves
 * out a body field the message may have says so (`body_omitted`).
 */
export type BodyView = 'full' | 'summary';

function bodyFields(b: MessageBody, view: BodyView, read: boolean) {
  const full = view === 'full' && read;
  return {
    text: full ? b.text : null,
    html: full ? b.html : null,
    extracted_text: full ? b.extracted_text : null,
    snippet: b.snippet,
    attachments: b.attachments.map((a, index) => ({
      id: attachmentId(index),
      filename: a.filename ?? null,
      content_type: a.content_type,
      size: a.size,
      content_id: a.content_id ?? null,
      risky: a.risky !== undefined,
      risk: a.risky ?? null,
    })),
    body_truncated: b.body_truncated,
    body_withheld: b.withheld,
    body_omitted: !full && b.withheld === null,
  };
}

/**
 * The Message object (openapi.yaml › Message), as the API returns it. `body` is what
 * functions/bodies/read-bodies.ts read (core/message-body.ts › bodyOf); without it a received
 * message's body is its record's and a sent message's is not read (its body fields empty,
 * `body_omitted`). `view` says how much of it is shown.
 */
export function toApiMessage(record: MessageRecord, body?: MessageBody, view: BodyView = 'full') {
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
    ...bodyFields(body ?? bodyOf(m), view, body !== undefined || !outbound || bodyRedacted(m)),
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
    unless_reply: outbound ? m.unless_reply === true : null,
    provider: m.provider ?? null,
    provider_message_id: m.provider_message_id ?? null,
    // A send by template: which template and version rendered it; its variables are never shown.
    template: m.template ? { name: m.template.name, version: m.template.version } : null,
    payload_redacted_at: iso(m.payload_redacted_at),
    inbound: outbound ? null : toApiInbound(m),
    // Held mail (core/hold.ts): only a key holding messages:hold ever reads one.
    held: m.held ? { reason: m.held.reason, held_at: iso(m.held.at) } : null,
    ...(outbound ? { deliveries: (m.deliveries ?? []).map(toApiDelivery) } : {}),
  };
}

export type ApiMessage = ReturnType<typeof toApiMessage>;

/** `inbound.trust` (core/trust.ts › Trust): who sent it, as a reader is shown. */
function toApiTrust(t: Trust) {
  return {
    authenticated: t.authenticated,
    spf: t.spf,
    dkim: t.dkim,
    dkim_aligned: t.dkim_aligned,
    dmarc: t.dmarc,
    arc: t.arc,
    verified_by: t.verified_by,
    known_sender: t.known_sender,
    listed: t.listed,
    risk: [...t.risk],
  };
}

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
