import { MAX_SUBJECT_CHARS } from './limits.ts';
import type { Mailbox } from './model.ts';

/**
 * Recipients and threading: who a reply goes to, the
 * subject prefixes and the References chain. Pure: the caller reads the message replied to, the
 * identity's addresses and the contacts, and passes them in.
 */

/** Consecutive automatic replies allowed in a thread, unless policy says otherwise (a loop between two auto-responders stops here). */
export const DEFAULT_MAX_AUTOMATIC_EXCHANGES = 2;

/** The parts of the message M being answered that the rules below read. */
export interface RepliedMessage {
  from: Mailbox;
  /** M's Reply-To header, in header order; empty or absent when M had none. */
  replyTo?: readonly Mailbox[];
  to: readonly Mailbox[];
  cc: readonly Mailbox[];
  /** Never read: listed so a caller can pass a whole message and see that bcc is ignored. */
  bcc?: readonly Mailbox[];
}

// "Re:" in any case, with optional space before the colon and an optional counter ("Re[2]:", "RE (3):").
const REPLY_PREFIX = /^\s*re\s*(?:\[\d{1,4}\]|\(\d{1,4}\))?\s*:/i;
// "Fwd:" or "Fw:" in any case, same tolerance.
const FORWARD_PREFIX = /^\s*fwd?\s*(?:\[\d{1,4}\]|\(\d{1,4}\))?\s*:/i;

/**
 * "Re: " + subject, unless the subject already starts with a reply prefix ("Re:", "RE:", "re :",
 * "Re[2]:"). Deliberately simple: localised prefixes (AW:, SV:, …) are not recognised, so they get a
 * "Re: " in front; nothing is ever stripped. Idempotent, so applying it twice changes nothing.
 */
export function replySubject(subject: string): string {
  return prefixOnce(subject, REPLY_PREFIX, 'Re:');
}

/** "Fwd: " + subject, unless it already starts with "Fwd:" or "Fw:" (any case). Idempotent. */
export function forwardSubject(subject: string): string {
  return prefixOnce(subject, FORWARD_PREFIX, 'Fwd:');
}

function prefixOnce(subject: string, present: RegExp, prefix: string): string {
  const s = subject.replace(/[\r\n]+/g, ' ').trim();
  const out = present.test(s) ? s : s ? `${prefix} ${s}` : prefix;
  return truncateChars(out, MAX_SUBJECT_CHARS);
}

/** Cut at a code-point boundary, never inside a surrogate pair. */
function truncateChars(s: string, max: number): string {
  if (s.length <= max) return s;
  const cut = s.slice(0, max);
  return /[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut;
}

export interface ReplyTargetContext {
  /** The sender of M is a known_sender of this identity. */
  knownSender: boolean;
  /** Addresses in contacts with outbound_count > 0 (compared case-insensitively). */
  contactsWithOutbound: Iterable<string>;
}

/**
 * The reply target. If M has a Reply-To and either the sender is known, or
 * the (first) Reply-To address shares the organisational domain of From, or it is a contact we have
 * written to, the target is the first Reply-To; otherwise M's From. A Reply-To from a stranger on an
 * unrelated domain is the classic redirection trick, so it is not followed blindly.
 */
export function replyTarget(m: RepliedMessage, ctx: ReplyTargetContext): Mailbox {
  const replyTo = m.replyTo?.[0];
  if (!replyTo) return m.from;
  const follow =
    ctx.knownSender ||
    organisationalDomain(domainPart(replyTo.address)) === organisationalDomain(domainPart(m.from.address)) ||
    new Set([...ctx.contactsWithOutbound].map((a) => a.toLowerCase())).has(replyTo.address.toLowerCase());
  return follow ? replyTo : m.from;
}

// Second-level labels that act as public suffixes under a two-letter country code (co.uk, com.au, ac.jp…).
const PUBLIC_SECOND_LEVEL = new Set(['co', 'com', 'org', 'net', 'ac', 'gov', 'edu']);

/**
 * An approximation of the organisational domain (RFC 7489 § 3.2) without the Public Suffix List: the
 * last two labels, or the last three when the TLD has two letters and the second-level label is one
 * of co/com/org/net/ac/gov/edu (mail.example.co.uk → example.co.uk). It errs towards "different
 * organisation" for suffixes it does not know (a.example.k12.us), which only means a reply goes to From.
 */
export function organisationalDomain(domain: string): string {
  const labels = domain.toLowerCase().replace(/\.$/, '').split('.').filter(Boolean);
  if (labels.length <= 2) return labels.join('.');
  const tld = labels[labels.length - 1];
  const second = labels[labels.length - 2];
  const keep = /^[a-z]{2}$/.test(tld) && PUBLIC_SECOND_LEVEL.has(second) ? 3 : 2;
  return labels.slice(-keep).join('.');
}

function domainPart(address: string): string {
  return address.slice(address.lastIndexOf('@') + 1);
}

/**
 * An address as the identity-address test compares it: lower case, and without a "+detail" part, so
 * our own thread-token Reply-To (bookings+t03k.9f2mq7xa@…) in M's To counts as our address.
 */
function ownKey(address: string): string {
  const at = address.lastIndexOf('@');
  const local = address.slice(0, at);
  const plus = local.indexOf('+');
  return `${plus > 0 ? local.slice(0, plus) : local}@${address.slice(at + 1)}`.toLowerCase();
}

/**
 * Reply-all: to = the reply target then M's To, cc = M's Cc; every
 * address of this identity (any status, any case, with or without a +detail) is removed, duplicates
 * are removed case-insensitively (the first occurrence wins, To before Cc), and M's Bcc is never read,
 * so a BCC copy's recipients are never revealed.
 */
export function replyAllRecipients(
  m: RepliedMessage,
  opts: { identityAddresses: Iterable<string>; target: Mailbox },
): { to: Mailbox[]; cc: Mailbox[] } {
  const own = new Set([...opts.identityAddresses].map(ownKey));
  const seen = new Set<string>();
  const keep = (list: readonly Mailbox[]) =>
    list.filter((mb) => {
      const key = mb.address.toLowerCase();
      if (own.has(ownKey(mb.address)) || seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  const to = keep([opts.target, ...m.to]);
  const cc = keep(m.cc);
  return { to, cc };
}

/**
 * The recipients of a plain reply (docs/guides/sending.md › Reply, reply-all and forward): to an inbound M, the reply target; to an
 * outbound M (following up on our own message), M's To and Cc again. Bcc is never used.
 */
export function replyRecipients(
  m: RepliedMessage,
  opts: { direction: 'inbound' | 'outbound'; target: Mailbox },
): { to: Mailbox[]; cc: Mailbox[] } {
  return opts.direction === 'inbound' ? { to: [opts.target], cc: [] } : { to: [...m.to], cc: [...m.cc] };
}

/** The References header value limit. */
export const MAX_REFERENCES_BYTES = 2048;

/** A msg-id in its header form, `<…>`. */
export function angleId(id: string): string {
  const t = id.trim();
  return `${t.startsWith('<') ? '' : '<'}${t}${t.endsWith('>') ? '' : '>'}`;
}

/**
 * References of a reply or forward (RFC 5322 § 3.6.4): the parent's References (or, when it has
 * none, its In-Reply-To) followed by the parent's Message-ID; a repeated id keeps its last position;
 * then trimmed to 2,048 bytes.
 */
export function threadReferences(
  parentRefs: readonly string[],
  parentMessageId: string,
  parentInReplyTo?: string,
): string[] {
  const chain = parentRefs.length > 0 ? [...parentRefs] : parentInReplyTo ? [parentInReplyTo] : [];
  chain.push(parentMessageId);
  const ids = chain.map(angleId);
  const deduped = ids.filter((id, i) => ids.lastIndexOf(id) === i);
  return trimReferences(deduped);
}

/**
 * If the header value (ids joined by one space) exceeds maxBytes, drop entries after the first,
 * oldest first, until it fits. The first id (the thread's root) is always kept.
 */
export function trimReferences(refs: readonly string[], maxBytes = MAX_REFERENCES_BYTES): string[] {
  const out = [...refs];
  let bytes = utf8Length(out.join(' '));
  while (bytes > maxBytes && out.length > 1) {
    const [dropped] = out.splice(1, 1);
    bytes -= utf8Length(dropped) + 1;
  }
  return out;
}

const encoder = new TextEncoder();
export function utf8Length(s: string): number {
  return encoder.encode(s).length;
}
