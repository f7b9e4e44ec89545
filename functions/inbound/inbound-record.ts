import { derivedEventId } from '../core/delivery-outbox.ts';
import { HELD_EVENT, type Screened } from '../core/hold.ts';
import {
  type AutoReason,
  autoReplyReason,
  type InboundVerdicts,
  messageIds,
  type PossibleDuplicateReason,
  type RoutedRecipient,
  type SenderAuth,
  snippetOf,
  type ThreadedBy,
  verdictFlags,
} from '../core/inbound.ts';
import type { AddressRecord, InboundFields, MessageRecord } from '../core/model.ts';
import { baseAddress, canonicalAddress } from '../core/recipients.ts';
import { type AuthResults, trustOf } from '../core/trust.ts';
import type { SesReceivedNotification } from './notification.ts';
import type { ParsedInbound } from './parse.ts';

/**
 * The records of one recipient's inbound copy, built from what the ingest read and decided
 * (functions/inbound/ingest.ts): pure, no I/O.
 */

/**
 * What loopback delivery knows that the message does not say (functions/send/loopback-delivery.ts):
 * the copy is flagged `loopback` and names the outbound message it copies (`loopback_of`).
 */
export interface IngestOptions {
  loopbackOf?: NonNullable<MessageRecord['loopback_of']>;
}

/** One envelope recipient's copy of a received message, parsed once for all recipients. */
export interface RecipientCopy {
  n: SesReceivedNotification;
  raw: Uint8Array;
  parsed: ParsedInbound;
  verdicts: InboundVerdicts;
  /** How well the message proves its From (core/trust.ts › senderAuthOf). */
  auth: SenderAuth;
  /** Its verdicts (the local MX's, or SES's: core/trust.ts). */
  authResults: AuthResults;
  /** What the screen decided for this recipient (functions/inbound/screen.ts); set before the copy is placed. */
  screened?: Screened;
  receivedAt: number;
  rcpt: string;
  routed: RoutedRecipient;
  address: AddressRecord;
  opts: IngestOptions;
}

/**
 * Where the copy goes: its dedupe key, its id (and the ULID in it), its thread, its raw object;
 * for a possible duplicate, the earlier message whose thread it joins.
 */
export interface Placement {
  key: string;
  ulid: string;
  id: string;
  threadId: string;
  by: ThreadedBy;
  rawKey: string;
  possibleDuplicate?: { of: string; reason: PossibleDuplicateReason };
}

/** The copy's From: the header's, else the envelope sender's. */
export function senderOf(args: Pick<RecipientCopy, 'parsed' | 'n'>): { address: string; name?: string } {
  return args.parsed.from ?? { address: args.n.mail.source || 'unknown@invalid' };
}

/** The copy's flags; `automated` is what the auto-reply rule reads (core/submit-pipeline.ts, check 10). */
export function inboundFlags(
  args: RecipientCopy,
  placement: Placement,
  auto: AutoReason | undefined,
  dsnUnmatched: boolean,
): string[] {
  const { parsed, verdicts, opts } = args;
  return [
    ...(opts.loopbackOf ? ['loopback'] : []),
    ...(parsed.parse === 'parsed' ? [] : [parsed.parse]),
    ...(parsed.parse === 'oversize' ? ['unparsed'] : []),
    ...verdictFlags(verdicts).filter((f) => f !== parsed.parse),
    ...(auto ? ['auto_reply', 'automated'] : []),
    ...(parsed.attachments.some((a) => a.risky) ? ['risky_attachment'] : []),
    ...(dsnUnmatched ? ['dsn'] : []),
    ...(placement.possibleDuplicate ? ['possible_duplicate'] : []),
  ];
}

/** What only an inbound message carries: the envelope, the canonical addresses, the parse, the bodies. */
export function inboundFields(
  args: RecipientCopy,
  placement: Placement,
  from: { address: string },
  auto: AutoReason | undefined,
  flags: { dsnUnmatched: boolean; flags: string[] },
): InboundFields {
  const { n, parsed, routed } = args;
  const { dsnUnmatched } = flags;
  const screened = args.screened ?? { listed: null, known_sender: false };
  return {
    ses_message_id: n.mail.messageId,
    received_at: args.receivedAt,
    envelope_from: n.mail.source,
    envelope_recipient: args.rcpt,
    routed_to: routed.address,
    dedupe_key: placement.key,
    canonical: {
      from: canonicalAddress(from.address),
      to: parsed.to.map((m) => canonicalAddress(m.address)),
      cc: parsed.cc.map((m) => canonicalAddress(m.address)),
      reply_to: parsed.replyTo.map((m) => canonicalAddress(m.address)),
    },
    parse: parsed.parse,
    ...(parsed.cap ? { cap: parsed.cap } : {}),
    threaded_by: placement.by,
    ...(parsed.text !== undefined ? { text: parsed.text } : {}),
    ...(parsed.extractedText !== undefined ? { extracted_text: parsed.extractedText } : {}),
    ...(parsed.html !== undefined ? { html: parsed.html } : {}),
    ...(parsed.bodyTruncated ? { body_truncated: true } : {}),
    headers: parsed.kept,
    attachments: parsed.attachments,
    verdicts: args.verdicts,
    sender_auth: args.auth,
    trust: trustOf(args.authResults, {
      known_sender: screened.known_sender,
      listed: screened.listed,
      flags: flags.flags,
    }),
    ...(placement.possibleDuplicate ? { possible_duplicate: placement.possibleDuplicate } : {}),
    ...(auto ? { auto } : {}),
    ...(dsnUnmatched ? { dsn_unmatched: true } : {}),
  };
}

/** The stored message record of the copy (`received`, in its thread, version 1). */
export function inboundMessage(
  args: RecipientCopy,
  placement: Placement,
  at: { dsnUnmatched: boolean; now: number },
): MessageRecord {
  const { n, raw, parsed, routed, address, opts } = args;
  const auto = autoReplyReason(parsed.headerMap, n.mail.source);
  const flags = inboundFlags(args, placement, auto, at.dsnUnmatched);
  const from = senderOf(args);
  const hop = Number.parseInt(parsed.headerMap.get('x-pmail-hop') ?? '', 10);
  return {
    id: placement.id,
    tenant_id: address.tenant_id,
    identity_id: address.identity_id,
    thread_id: placement.threadId,
    direction: 'inbound',
    status: 'received',
    from,
    to: parsed.to,
    cc: parsed.cc,
    // The envelope recipient not among To and Cc received a blind copy.
    bcc: [...parsed.to, ...parsed.cc].some((m) => baseAddress(canonicalAddress(m.address)) === routed.address)
      ? []
      : [{ address: address.address }],
    reply_to: parsed.replyTo,
    subject: parsed.subject,
    kind: auto ? 'auto_reply' : 'transactional',
    labels: [],
    flags,
    rfc_message_id: parsed.rfcMessageId ?? `<${placement.ulid}@${address.domain}>`,
    ...(parsed.inReplyTo ? { in_reply_to: messageIds(parsed.inReplyTo)[0] ?? parsed.inReplyTo } : {}),
    ...(parsed.references.length ? { references: parsed.references } : {}),
    ...(Number.isFinite(hop) && hop > 0 ? { hop } : {}),
    raw_key: placement.rawKey,
    raw_size: raw.byteLength,
    created_at: args.receivedAt,
    updated_at: at.now,
    version: 1,
    inbound: inboundFields(args, placement, from, auto, { dsnUnmatched: at.dsnUnmatched, flags }),
    ...(opts.loopbackOf ? { loopback_of: opts.loopbackOf } : {}),
    ...(args.screened?.held ? { held: { reason: args.screened.held, at: at.now } } : {}),
  };
}

/**
 * The event that announces a stored copy: `message.received`, or `message.held` for a held one
 * (its reason beside; only keys holding messages:hold read it: core/hold.ts › maySee). Its id takes
 * its time from the write, not the receipt: a released message's `message.received` is its own.
 */
export function receivedEvent(message: MessageRecord, now: number) {
  const type = message.held ? HELD_EVENT : 'message.received';
  return {
    id: derivedEventId(now, `${type}|${message.id}`, 0),
    type,
    tenant_id: message.tenant_id,
    created_at: now,
    data: {
      message_id: message.id,
      identity_id: message.identity_id,
      thread_id: message.thread_id,
      from: message.from,
      subject: message.subject,
      snippet: snippetOf(message.inbound?.text),
      flags: message.flags,
      received_at: new Date(message.created_at).toISOString(),
      ...(message.held ? { reason: message.held.reason } : {}),
      ...(message.inbound?.trust ? { authenticated: message.inbound.trust.authenticated } : {}),
    },
  };
}
