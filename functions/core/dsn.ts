import { createHash } from 'node:crypto';
import type { DeliveryEvent, DeliveryEventKind } from './deliveries.ts';
import type { MessageRecord } from './model.ts';

/**
 * Delivery status notifications (RFC 3464): the `message/delivery-status` part of a
 * `multipart/report; report-type=delivery-status` message, and the returned message (or only its
 * headers) that names the original Message-ID. Pure: the caller hands over the parts' text.
 *
 * The part is header-like: one block of per-message fields, a blank line, then one block per
 * recipient (RFC 3464 § 2.2, § 2.3). Field names are case-insensitive, values may be folded and
 * carry `(comments)`. Real MTAs bend the shape, so the reader is tolerant: human text before the
 * first field is skipped (a parser that inlines the part into the body text), a recipient block
 * missing its blank line is split at its next `Final-Recipient`, and unknown lines are ignored.
 */

export type DsnAction = 'failed' | 'delayed' | 'delivered' | 'relayed' | 'expanded';

export interface DsnRecipient {
  /** The address of `Final-Recipient` (its `rfc822;` type removed), lower case. */
  final_recipient: string;
  original_recipient?: string;
  action?: DsnAction;
  /** The enhanced status code (RFC 3463), `class.subject.detail`, comments removed. */
  status?: string;
  /** `Diagnostic-Code` as the reporting MTA wrote it, unfolded (`smtp; 550 5.1.1 …`). */
  diagnostic_code?: string;
  /** `Remote-MTA` without its `dns;` type. */
  remote_mta?: string;
}

export interface ParsedDsn {
  /** The returned message's Message-ID, `<…>`; else the report's `X-Original-Message-ID`. */
  original_message_id?: string;
  reporting_mta?: string;
  recipients: DsnRecipient[];
}

export interface DsnInput {
  /** The text of the `message/delivery-status` part. */
  deliveryStatus: string;
  /** The returned message (`message/rfc822`) or its headers (`text/rfc822-headers`), if any. */
  returned?: string;
}

const PER_MESSAGE_FIELDS = new Set([
  'original-envelope-id',
  'reporting-mta',
  'dsn-gateway',
  'received-from-mta',
  'arrival-date',
  'x-original-message-id',
]);
const PER_RECIPIENT_FIELDS = new Set([
  'original-recipient',
  'final-recipient',
  'action',
  'status',
  'remote-mta',
  'diagnostic-code',
  'last-attempt-date',
  'final-log-id',
  'will-retry-until',
]);
const ACTIONS = new Set<string>(['failed', 'delayed', 'delivered', 'relayed', 'expanded']);

type Field = { name: string; value: string };

/** Header-like lines → blocks of unfolded fields (a blank line ends a block). */
function blocks(text: string): Field[][] {
  const out: Field[][] = [];
  let current: Field[] = [];
  let started = false;
  for (const line of text.replace(/\r\n?/g, '\n').split('\n')) {
    if (line.trim() === '') {
      if (current.length > 0) out.push(current);
      current = [];
      continue;
    }
    if (/^[ \t]/.test(line)) {
      const last = current[current.length - 1];
      if (last) last.value = `${last.value} ${line.trim()}`;
      continue;
    }
    const m = /^([A-Za-z][A-Za-z0-9-]*)[ \t]*:(.*)$/.exec(line);
    if (!m) continue;
    const name = m[1].toLowerCase();
    // Text before the first DSN field (a notification inlined ahead of the report) is not the report.
    if (!started && !PER_MESSAGE_FIELDS.has(name) && !PER_RECIPIENT_FIELDS.has(name)) continue;
    started = true;
    current.push({ name, value: m[2].trim() });
  }
  if (current.length > 0) out.push(current);
  return out;
}

/** `(comments)` removed, as RFC 5322 allows them in structured fields. */
const uncomment = (v: string) => v.replace(/\([^()]*\)/g, ' ').trim();

/** `rfc822; <Bob@Example.org>` → `bob@example.org`; a value without a type is taken as an address. */
function typedAddress(value: string): string {
  const semi = value.indexOf(';');
  const addr = uncomment(semi >= 0 ? value.slice(semi + 1) : value).trim();
  return addr.replace(/^<|>$/g, '').trim().toLowerCase();
}

/** `dns; mx.example.org` → `mx.example.org`. */
function typedName(value: string): string {
  const semi = value.indexOf(';');
  return uncomment(semi >= 0 ? value.slice(semi + 1) : value).trim();
}

function statusCode(value: string): string | undefined {
  return /^([245])\.(\d{1,3})\.(\d{1,3})(?![\d.])/.exec(uncomment(value))?.slice(1).join('.');
}

/** The Message-ID in a header block (a returned message or its headers): `<…>`. */
export function messageIdOfHeaders(text: string): string | undefined {
  const head = text.replace(/\r\n?/g, '\n').split(/\n[ \t]*\n/, 1)[0] ?? '';
  const unfolded = head.replace(/\n[ \t]+/g, ' ');
  const line = /^message-id[ \t]*:(.*)$/im.exec(unfolded)?.[1];
  return line ? msgId(line) : undefined;
}

function msgId(value: string): string | undefined {
  const angle = /<([^<>\s]+)>/.exec(value);
  const bare = angle ? angle[1] : uncomment(value).trim();
  return bare && !/\s/.test(bare) ? `<${bare}>` : undefined;
}

/**
 * The report's fields and recipients; undefined when the part names no recipient at all (a
 * malformed report: the caller keeps the message as ordinary mail).
 */
export function parseDsn(input: DsnInput): ParsedDsn | undefined {
  const recipients: DsnRecipient[] = [];
  const perMessage = new Map<string, string>();
  for (const block of blocks(input.deliveryStatus)) {
    let r: Partial<DsnRecipient> & { has?: boolean } = {};
    const finish = () => {
      const final = r.final_recipient ?? r.original_recipient;
      if (r.has && final) recipients.push({ ...stripped(r), final_recipient: final });
      r = {};
    };
    for (const f of block) {
      if (PER_MESSAGE_FIELDS.has(f.name)) {
        if (!perMessage.has(f.name)) perMessage.set(f.name, f.value);
        continue;
      }
      switch (f.name) {
        case 'final-recipient':
          if (r.final_recipient) finish();
          r.final_recipient = typedAddress(f.value);
          r.has = true;
          break;
        case 'original-recipient':
          // Postfix writes Final- before Original-Recipient, RFC 3464's examples the other way round.
          if (r.original_recipient || (r.final_recipient && (r.action || r.status))) finish();
          r.original_recipient = typedAddress(f.value);
          r.has = true;
          break;
        case 'action': {
          const a = uncomment(f.value).toLowerCase();
          if (ACTIONS.has(a)) r.action = a as DsnAction;
          r.has = true;
          break;
        }
        case 'status':
          r.status = statusCode(f.value);
          r.has = true;
          break;
        case 'diagnostic-code':
          r.diagnostic_code = f.value;
          break;
        case 'remote-mta':
          r.remote_mta = typedName(f.value);
          break;
      }
    }
    finish();
  }
  if (recipients.length === 0) return undefined;
  const reporting = perMessage.get('reporting-mta');
  const xOriginal = perMessage.get('x-original-message-id');
  const original =
    (input.returned ? messageIdOfHeaders(input.returned) : undefined) ??
    (xOriginal ? msgId(xOriginal) : undefined);
  return {
    ...(original ? { original_message_id: original } : {}),
    ...(reporting ? { reporting_mta: typedName(reporting) } : {}),
    recipients,
  };
}

function stripped(r: Partial<DsnRecipient> & { has?: boolean }): Omit<DsnRecipient, 'final_recipient'> {
  const { has: _has, final_recipient: _f, ...rest } = r;
  return Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined)) as Omit<
    DsnRecipient,
    'final_recipient'
  >;
}

/**
 * What one recipient's report means for its delivery (docs/guides/receiving.md › Bounces that come
 * back as mail): `failed` with a 5.x.x status is a hard bounce (suppressed), `failed` with 4.x.x
 * or no status a soft bounce (the reporting MTA gave up on a transient failure, or did not say:
 * no suppression on a guess), `delayed` a deferral, `delivered` a delivery; `relayed` and
 * `expanded` say nothing final and make no event. Without an Action the status class decides.
 */
export function dsnOutcome(
  r: Pick<DsnRecipient, 'action' | 'status'>,
): { kind: DeliveryEventKind; bounce_type?: 'hard' | 'soft' } | undefined {
  const cls = r.status?.[0];
  switch (r.action) {
    case 'failed':
      return { kind: 'bounced', bounce_type: cls === '5' ? 'hard' : 'soft' };
    case 'delayed':
      return { kind: 'deferred' };
    case 'delivered':
      return { kind: 'delivered' };
    case 'relayed':
    case 'expanded':
      return undefined;
    default:
      if (cls === '5') return { kind: 'bounced', bounce_type: 'hard' };
      if (cls === '4') return { kind: 'deferred' };
      return undefined;
  }
}

/**
 * The outbound message and recipient a report answers, as far as its events need them: the ones
 * the signed return path it was delivered to names (core/return-path.ts).
 */
export interface DsnTarget {
  identity_id: string;
  message_id: string;
  provider_message_id?: string;
  /** The sending address: the consumer routes an event by it. */
  sender: string;
  subject?: string;
  /** The recipients the report may speak of: the one its return path names. */
  recipients: readonly string[];
}

/** How much of a report's `Diagnostic-Code` is kept (the remote server's words, untrusted). */
export const MAX_DIAGNOSTIC_CHARS = 512;

/**
 * A remote server's text as data: control characters (line breaks, escapes, bidirectional
 * overrides) become spaces, runs of white space one space, and it is cut to `max` characters
 * (never inside a surrogate pair). Markup is left as it is: it is text, shown as text.
 */
export function untrustedLine(text: string, max = MAX_DIAGNOSTIC_CHARS): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters on purpose
  const flat = text.replace(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, ' ');
  const one = flat.replace(/\s+/g, ' ').trim();
  return [...one].slice(0, max).join('');
}

/**
 * How long a report about a recipient still `queued` waits for its Record. A report that answers a
 * signed return path proves the provider call happened; until Record has written that call's
 * outcome the recipient's delivery is still queued, and the report is retried (as a provider event
 * that overtook its Record is: functions/events/consume.ts). Record comes within the attempt
 * machine's 290 s, and an attempt that died leaves its claim to the sweeper, which makes the
 * message uncertain once the claim is 5 minutes old (it runs every minute): 8 minutes covers both,
 * within the events queue's 20 receives at 30 s.
 */
export const DSN_HOLD_MS = 8 * 60_000;

/** Whether a report must wait: its recipient's delivery is still queued (its Record not yet written). */
export function dsnAwaitsRecord(message: Pick<MessageRecord, 'deliveries'>, recipient: string): boolean {
  const r = recipient.toLowerCase();
  return (message.deliveries ?? []).some((d) => d.address.toLowerCase() === r && d.status === 'queued');
}

/**
 * The delivery events of a report for its message, one per recipient the message was sent to.
 * A recipient is matched by `Original-Recipient` first (the address as sent, where a forward
 * changed the final one), then `Final-Recipient`; a report of an address the message never had
 * makes no event. The event id is a digest of the report itself (`dsnKey`: its Message-ID and
 * text) and the recipient, so the same report received again is a duplicate in the consumer.
 */
export function dsnDeliveryEvents(
  dsn: ParsedDsn,
  target: DsnTarget,
  opts: { dsnKey: string; occurredAt: number },
): { events: DeliveryEvent[]; unknown_recipients: number } {
  const sent = new Set(target.recipients.map((a) => a.toLowerCase()));
  const events: DeliveryEvent[] = [];
  let unknown = 0;
  const seen = new Set<string>();
  for (const r of dsn.recipients) {
    const recipient = [r.original_recipient, r.final_recipient].find((a) => a && sent.has(a));
    if (!recipient) {
      unknown++;
      continue;
    }
    const outcome = dsnOutcome(r);
    if (!outcome || seen.has(recipient)) continue;
    seen.add(recipient);
    const code = r.diagnostic_code
      ? /(?:^|;\s*|\s)([245]\d\d)(?:[\s-]|$)/.exec(r.diagnostic_code)?.[1]
      : undefined;
    const response = r.diagnostic_code
      ? untrustedLine(r.diagnostic_code)
      : r.status
        ? `dsn: ${r.action ?? 'status'} ${r.status}`
        : undefined;
    events.push({
      source: 'dsn',
      event_id: `dsn:${digest(`${opts.dsnKey}\n${recipient}`)}`,
      identity_id: target.identity_id,
      message_id: target.message_id,
      ...(target.provider_message_id ? { provider_message_id: target.provider_message_id } : {}),
      sender: target.sender.toLowerCase(),
      recipient,
      ...(target.subject !== undefined ? { subject: target.subject } : {}),
      kind: outcome.kind,
      ...(outcome.bounce_type ? { bounce_type: outcome.bounce_type } : {}),
      ...(code ? { smtp_code: code } : {}),
      ...(r.status ? { enhanced_code: r.status } : {}),
      ...(response ? { smtp_response: response } : {}),
      occurred_at: opts.occurredAt,
    });
  }
  return { events, unknown_recipients: unknown };
}

/** The key of one report: its own Message-ID (when it has one) and its delivery-status text. */
export function dsnKey(reportMessageId: string | undefined, deliveryStatus: string): string {
  const text = deliveryStatus.replace(/\r\n?/g, '\n').trim();
  return digest(`${reportMessageId ?? ''}\n${text}`);
}

const digest = (s: string) => createHash('sha256').update(s).digest('hex').slice(0, 32);
