import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { canonicalAddress } from './recipients.ts';
import { authFromSes, type SenderAuth, senderAuthOf, sesDkimPasses } from './trust.ts';

export type { SenderAuth };

/**
 * The rules of receiving mail (docs/guides/receiving.md), pure: the caps a message is parsed under,
 * the envelope recipient's normalisation, the dedupe key, the automatic-mail classification, the
 * risky attachment types and the thread decision. functions/inbound/ does the reading and writing.
 */

/** The caps a received message is parsed under; over any of them it is kept raw and flagged. */
export interface InboundCaps {
  /** The raw message's size: SES receiving accepts up to 40 MB. */
  maxBytes: number;
  /** MIME parts, the multipart containers included. */
  maxParts: number;
  /** Multipart containers inside one another. */
  maxDepth: number;
  /** The top-level header block. */
  maxHeaderBytes: number;
}

export const INBOUND_CAPS: InboundCaps = {
  maxBytes: 40 * 1024 * 1024,
  maxParts: 500,
  maxDepth: 16,
  maxHeaderBytes: 256 * 1024,
};

/** What the stored record keeps of the parsed body at most (the item stays far below DynamoDB's 400 KB). */
export const MAX_STORED_TEXT_BYTES = 96 * 1024;
export const MAX_STORED_HTML_BYTES = 160 * 1024;
/**
 * How much of a received HTML body is made into text and sanitised (functions/inbound/html.ts):
 * the first MAX_HTML_READ_CHARS characters, and no further than the first element nested deeper
 * than MAX_HTML_NESTING (browsers flatten deeper markup; the HTML parser's cost per element grows
 * with the depth). A fixed cost whatever the body; more than the record keeps of either for all but
 * the most markup-heavy mail, and a body read short is flagged `body_truncated`.
 */
export const MAX_HTML_READ_CHARS = 512 * 1024;
export const MAX_HTML_NESTING = 512;
/** The headers that matter, at most this many, each value cut to MAX_HEADER_VALUE characters. */
export const MAX_KEPT_HEADERS = 40;
export const MAX_HEADER_VALUE = 998;
/** The attachments listed on the record, at most. */
export const MAX_LISTED_ATTACHMENTS = 100;
/** The `message.received` event's snippet. */
export const SNIPPET_CHARS = 140;

export type CapExceeded = 'size' | 'parts' | 'depth' | 'header';

/** The MIME structure as counted before parsing: header block size, parts, nesting depth. */
export interface MimeShape {
  bytes: number;
  headerBytes: number;
  parts: number;
  depth: number;
}

/**
 * Count the MIME structure of a raw message without parsing it: the top header block's size and,
 * following each multipart's boundary, how many parts there are and how deep containers nest.
 * Stops counting once a cap is passed (`caps`), so a hostile message costs one pass at most.
 * `raw` is read as latin1 (one character per byte: header syntax is ASCII).
 */
export function mimeShape(raw: Uint8Array, caps: InboundCaps = INBOUND_CAPS): MimeShape {
  const text = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('latin1');
  const headerEnd = headerBlockEnd(text);
  const shape: MimeShape = { bytes: raw.byteLength, headerBytes: headerEnd, parts: 1, depth: 0 };
  // The open multipart containers, innermost last: their boundary delimiters and depth.
  const open: { boundary: string; depth: number }[] = [];
  const top = boundaryOf(unfoldedHeader(text.slice(0, headerEnd), 'content-type'));
  if (top) {
    open.push({ boundary: top, depth: 1 });
    shape.depth = 1;
  }
  let pos = headerEnd;
  while (open.length > 0 && pos < text.length) {
    const next = text.indexOf('\n', pos);
    const line = text.slice(pos, next < 0 ? text.length : next).replace(/\r$/, '');
    pos = next < 0 ? text.length : next + 1;
    if (!line.startsWith('--')) continue;
    const at = open.findLastIndex((o) => line === `--${o.boundary}` || line === `--${o.boundary}--`);
    if (at < 0) continue;
    const container = open[at];
    open.length = at + 1;
    if (line.endsWith('--') && line === `--${container.boundary}--`) {
      open.pop();
      continue;
    }
    // A new part of `container`: read its headers.
    shape.parts++;
    const end = headerBlockEnd(text, pos);
    const inner = boundaryOf(unfoldedHeader(text.slice(pos, end), 'content-type'));
    pos = end;
    if (inner) {
      open.push({ boundary: inner, depth: container.depth + 1 });
      shape.depth = Math.max(shape.depth, container.depth + 1);
    }
    if (shape.parts > caps.maxParts || shape.depth > caps.maxDepth) break;
  }
  return shape;
}

/** The first cap a message's shape passes, if any (size first: nothing else is read then). */
export function capExceeded(shape: MimeShape, caps: InboundCaps = INBOUND_CAPS): CapExceeded | undefined {
  if (shape.bytes > caps.maxBytes) return 'size';
  if (shape.headerBytes > caps.maxHeaderBytes) return 'header';
  if (shape.parts > caps.maxParts) return 'parts';
  if (shape.depth > caps.maxDepth) return 'depth';
  return undefined;
}

/** Where a header block starting at `from` ends: after its empty line (or the end of the text). */
function headerBlockEnd(text: string, from = 0): number {
  const m = /\r?\n\r?\n/g;
  m.lastIndex = from;
  // A part whose headers are empty starts with the empty line itself.
  if (text.startsWith('\r\n', from)) return from + 2;
  if (text.startsWith('\n', from)) return from + 1;
  const found = m.exec(text);
  return found ? found.index + found[0].length : text.length;
}

/** One header's value from a header block, unfolded; the first occurrence. */
function unfoldedHeader(block: string, name: string): string | undefined {
  const unfolded = block.replace(/\r?\n[ \t]+/g, ' ');
  const re = new RegExp(`^${name}[ \\t]*:(.*)$`, 'im');
  return re.exec(unfolded)?.[1]?.trim();
}

function boundaryOf(contentType: string | undefined): string | undefined {
  if (!contentType || !/^\s*multipart\//i.test(contentType)) return undefined;
  const m = /;\s*boundary\s*=\s*(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  return m?.[1] ?? m?.[2];
}

/** An envelope recipient as routing reads it: the address of the identity and the `+detail`. */
export interface RoutedRecipient {
  /** Lower case, IDNA domain, without the `+detail`: the address looked up. */
  address: string;
  /** What followed the first `+` of the local part, if anything (it may carry a thread token). */
  detail?: string;
}

/**
 * Normalise an envelope recipient (RCPT TO): angle brackets and spaces off, the domain in lower
 * case (IDNA), the `+detail` split off. Undefined for what is no address.
 */
export function normaliseRecipient(rcpt: string): RoutedRecipient | undefined {
  const value = rcpt
    .trim()
    .replace(/^<(.*)>$/, '$1')
    .trim();
  const at = value.lastIndexOf('@');
  if (at <= 0 || at === value.length - 1 || /[\s<>,;]/.test(value)) return undefined;
  const local = value.slice(0, at);
  const plus = local.indexOf('+');
  const base = plus > 0 ? local.slice(0, plus) : local;
  const detail = plus > 0 ? local.slice(plus + 1) : undefined;
  return {
    address: canonicalAddress(`${base}@${value.slice(at + 1)}`),
    ...(detail ? { detail } : {}),
  };
}

/**
 * The trace headers a receiving MTA puts on top of a message: SES receiving, the local MX and any
 * relay on the way add them, so they differ between two deliveries of the same bytes.
 */
const TRACE_HEADER =
  /^(received|received-spf|return-path|x-ses-[a-z0-9-]*|authentication-results|arc-[a-z0-9-]*|delivered-to|x-original-to)[ \t]*:/i;

/**
 * The message as its sender wrote it: the raw bytes after the leading trace headers (one header
 * with its folded lines at a time, stopping at the first header that is not one of them).
 */
export function withoutTraceHeaders(raw: Uint8Array): Uint8Array {
  const text = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('latin1');
  let pos = 0;
  while (pos < text.length && TRACE_HEADER.test(text.slice(pos, pos + 80))) {
    // This header and its continuation lines.
    let next = text.indexOf('\n', pos);
    while (next >= 0 && (text[next + 1] === ' ' || text[next + 1] === '\t'))
      next = text.indexOf('\n', next + 1);
    pos = next < 0 ? text.length : next + 1;
  }
  return raw.subarray(pos);
}

/**
 * One stored inbound message per (message as sent, envelope recipient): SHA-256 of the raw bytes
 * without their leading trace headers, and of the normalised recipient. A queue's redelivery, an
 * SES retry and a client that sends the same bytes again in another SMTP transaction all give the
 * same key; two recipients of one message give two.
 */
export function dedupeKey(raw: Uint8Array, recipient: string): string {
  return createHash('sha256')
    .update(withoutTraceHeaders(raw))
    .update('\n')
    .update(recipient.toLowerCase())
    .digest('hex');
}

/** Why a message counts as automatic mail: a reply to it must not be automatic (core/submit-pipeline.ts, check 10). */
export type AutoReason = 'auto_submitted' | 'precedence' | 'list' | 'autoresponder' | 'null_sender';

/**
 * Automatic mail, from its headers (names in lower case): `Auto-Submitted` other than `no`
 * (RFC 3834), `Precedence: bulk | junk | list | auto_reply`, any `List-*` header (RFC 2369/2919),
 * the autoresponder marks in use (`X-Autoreply`, `X-Autorespond`, `X-Auto-Response-Suppress`), or
 * an empty envelope sender (a bounce or other notification).
 */
export function autoReplyReason(
  headers: ReadonlyMap<string, string>,
  envelopeFrom: string,
): AutoReason | undefined {
  const auto = headers.get('auto-submitted')?.trim().toLowerCase();
  if (auto && !/^no\b/.test(auto)) return 'auto_submitted';
  const precedence = headers.get('precedence')?.trim().toLowerCase();
  if (precedence && /^(bulk|junk|list|auto_reply)\b/.test(precedence)) return 'precedence';
  for (const name of headers.keys()) if (name.startsWith('list-')) return 'list';
  if (['x-autoreply', 'x-autorespond', 'x-auto-response-suppress'].some((h) => headers.has(h)))
    return 'autoresponder';
  const sender = envelopeFrom.trim();
  if (sender === '' || sender === '<>') return 'null_sender';
  return undefined;
}

/**
 * Attachment types flagged `risky`: what runs when opened (executables, installers, scripts,
 * shortcuts), documents that carry macros, and the archives and disk images such files travel in
 * (their contents are not opened here, so the container is flagged).
 */
export const RISKY_EXTENSIONS: Readonly<
  Record<string, 'executable' | 'script' | 'macro_document' | 'archive'>
> = {
  exe: 'executable',
  com: 'executable',
  scr: 'executable',
  pif: 'executable',
  msi: 'executable',
  msp: 'executable',
  msix: 'executable',
  appx: 'executable',
  dll: 'executable',
  cpl: 'executable',
  sys: 'executable',
  jar: 'executable',
  apk: 'executable',
  app: 'executable',
  dmg: 'executable',
  pkg: 'executable',
  deb: 'executable',
  rpm: 'executable',
  bat: 'script',
  cmd: 'script',
  js: 'script',
  jse: 'script',
  mjs: 'script',
  vbs: 'script',
  vbe: 'script',
  wsf: 'script',
  wsh: 'script',
  ps1: 'script',
  psm1: 'script',
  sh: 'script',
  hta: 'script',
  lnk: 'script',
  reg: 'script',
  scf: 'script',
  inf: 'script',
  py: 'script',
  pl: 'script',
  docm: 'macro_document',
  dotm: 'macro_document',
  xlsm: 'macro_document',
  xltm: 'macro_document',
  xlam: 'macro_document',
  xlsb: 'macro_document',
  pptm: 'macro_document',
  potm: 'macro_document',
  ppam: 'macro_document',
  ppsm: 'macro_document',
  sldm: 'macro_document',
  zip: 'archive',
  rar: 'archive',
  '7z': 'archive',
  cab: 'archive',
  ace: 'archive',
  arj: 'archive',
  iso: 'archive',
  img: 'archive',
  vhd: 'archive',
  vhdx: 'archive',
  gz: 'archive',
  tgz: 'archive',
  bz2: 'archive',
  xz: 'archive',
  tar: 'archive',
};

/** Content types of the same kinds, for an attachment whose name says nothing. */
const RISKY_TYPES: readonly [RegExp, 'executable' | 'script' | 'macro_document' | 'archive'][] = [
  [
    /^application\/(x-msdownload|x-dosexec|x-msdos-program|x-executable|vnd\.microsoft\.portable-executable|java-archive|x-msi|vnd\.android\.package-archive)\b/i,
    'executable',
  ],
  [
    /^(application|text)\/(javascript|x-javascript|ecmascript|x-sh|x-shellscript|x-bat|x-python|hta|x-ms-shortcut|vbscript)\b/i,
    'script',
  ],
  [/^application\/vnd\.ms-[a-z]+\.[a-z.]*macroenabled/i, 'macro_document'],
  [
    /^application\/(zip|x-zip-compressed|x-rar-compressed|vnd\.rar|x-7z-compressed|x-iso9660-image|x-cab-compressed|gzip|x-gzip|x-tar|x-bzip2|x-xz)\b/i,
    'archive',
  ],
];

/** Why an attachment is risky (by its name's extension first, then its declared type); undefined if not. */
export function riskyAttachment(
  filename: string | undefined,
  contentType: string | undefined,
): 'executable' | 'script' | 'macro_document' | 'archive' | undefined {
  const ext = /\.([a-z0-9]{1,6})\s*$/i.exec(filename ?? '')?.[1]?.toLowerCase();
  if (ext && Object.hasOwn(RISKY_EXTENSIONS, ext)) return RISKY_EXTENSIONS[ext];
  return RISKY_TYPES.find(([re]) => re.test(contentType ?? ''))?.[1];
}

/** The MAC of a thread token: HMAC-SHA256(PM_HASH_KEY, `thread:{identity}:{thread}`), 6 hex digits (core/submit-pipeline.ts › threadTokenReplyTo). */
function threadMac(hashKey: string, identityId: string, threadId: string): string {
  return createHmac('sha256', hashKey).update(`thread:${identityId}:${threadId}`).digest('hex').slice(0, 6);
}

/**
 * The thread a recipient's `+detail` names, if it is a thread token pmail gave this identity:
 * `t{thread ulid}.{mac}` whose MAC verifies for this identity. A token of another identity, a
 * changed ulid or MAC, or any other detail names nothing. Whether the thread still exists is the
 * caller's read.
 */
export function verifiedThreadToken(
  hashKey: string,
  identityId: string,
  detail: string | undefined,
): string | undefined {
  const m = /^t([0-9a-z]{26})\.([0-9a-f]{6})$/i.exec(detail ?? '');
  if (!m) return undefined;
  const threadId = `thr_${m[1].toLowerCase()}`;
  const expected = Buffer.from(threadMac(hashKey, identityId, threadId));
  const given = Buffer.from(m[2].toLowerCase());
  return expected.length === given.length && timingSafeEqual(expected, given) ? threadId : undefined;
}

/** How many Message-IDs of In-Reply-To and References are looked up, at most. */
export const MAX_THREAD_LOOKUPS = 10;

/**
 * The Message-IDs a reply names, in the order they are tried: In-Reply-To first, then References
 * from the newest (last) back; each once, at most MAX_THREAD_LOOKUPS.
 */
export function replyCandidates(inReplyTo: string | undefined, references: readonly string[]): string[] {
  const ids = [...messageIds(inReplyTo ?? ''), ...[...references].reverse().flatMap(messageIds)];
  return [...new Set(ids)].slice(0, MAX_THREAD_LOOKUPS);
}

/** The `<…>` ids in a header value. */
export function messageIds(value: string): string[] {
  return [...value.matchAll(/<[^<>\s]+>/g)].map((m) => m[0]);
}

export type ThreadedBy = 'token' | 'in_reply_to' | 'new' | 'duplicate';

/**
 * The thread a received message joins: the verified token's thread (if the thread exists), else
 * the thread of the identity's outbound message its In-Reply-To/References name, else a new thread
 * whose id is the message's own.
 */
export function threadDecision(args: { tokenThread?: string; repliedThread?: string; messageUlid: string }): {
  threadId: string;
  by: ThreadedBy;
} {
  if (args.tokenThread) return { threadId: args.tokenThread, by: 'token' };
  if (args.repliedThread) return { threadId: args.repliedThread, by: 'in_reply_to' };
  return { threadId: `thr_${args.messageUlid}`, by: 'new' };
}

/** The verdicts SES gives a received message, as stored (absent: SES sent none, e.g. locally). */
export interface InboundVerdicts {
  spf?: string;
  dkim?: string;
  dmarc?: string;
  spam?: string;
  virus?: string;
}

/** Flags a received message's verdicts give it: a virus FAIL quarantines, a spam FAIL marks it. */
export function verdictFlags(v: InboundVerdicts): string[] {
  return [...(v.virus === 'FAIL' ? ['quarantined'] : []), ...(v.spam === 'FAIL' ? ['spam'] : [])];
}

/**
 * How well a received message proves its From by SES's verdicts (docs/guides/receiving.md › Who
 * sent it): `authenticated` when SES's DMARC verdict is PASS, or its DKIM verdict is PASS for a
 * signature of the From's domain (or a parent of it) as SES's own Authentication-Results names it;
 * `failed` when DMARC failed; `unverified` otherwise. core/trust.ts holds the rule.
 */
export function senderAuth(
  v: InboundVerdicts,
  fromAddress: string | undefined,
  authenticationResults: string | undefined,
): SenderAuth {
  return senderAuthOf(authFromSes(v, fromAddress, authenticationResults));
}

export { sesDkimPasses };

/** How long a received Message-ID is remembered for its duplicates (docs/guides/receiving.md › Duplicates). */
export const MESSAGE_ID_WINDOW_MS = 30 * 24 * 3600 * 1000;

const AUTH_RANK: Readonly<Record<SenderAuth, number>> = { failed: 0, unverified: 1, authenticated: 2 };

/** Why a copy with an earlier message's Message-ID is kept beside it. */
export type PossibleDuplicateReason = 'other_sender' | 'authentication_differs';

/**
 * A received copy whose Message-ID an earlier message of the identity has (within
 * MESSAGE_ID_WINDOW_MS): a duplicate of it (not stored again) when it has the same canonical From
 * and is authenticated no worse, except that a copy that proves its sender never disappears behind
 * one that did not; otherwise a possible duplicate, kept and flagged, for the reason given. So a
 * copy forged by someone who learnt the Message-ID (any other recipient) cannot hide the genuine one.
 */
export function laterCopy(
  first: { from: string; auth: SenderAuth },
  later: { from: string; auth: SenderAuth },
): { type: 'duplicate' } | { type: 'possible_duplicate'; reason: PossibleDuplicateReason } {
  if (canonicalAddress(first.from) !== canonicalAddress(later.from))
    return { type: 'possible_duplicate', reason: 'other_sender' };
  const worse = AUTH_RANK[later.auth] < AUTH_RANK[first.auth];
  const provesWhatFirstDidNot = later.auth === 'authenticated' && first.auth !== 'authenticated';
  return worse || provesWhatFirstDidNot
    ? { type: 'possible_duplicate', reason: 'authentication_differs' }
    : { type: 'duplicate' };
}

/** A short plain-text snippet: whitespace collapsed, cut at a code point, `max` (SNIPPET_CHARS) at most. */
export function snippetOf(text: string | undefined, max = SNIPPET_CHARS): string {
  const s = (text ?? '').replace(/\s+/g, ' ').trim();
  if (s.length <= max) return s;
  const cut = s.slice(0, max);
  return /[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut;
}

/** Cut a string to at most `maxBytes` of UTF-8, at a code point; `cut` tells whether anything went. */
export function cutUtf8(s: string, maxBytes: number): { value: string; cut: boolean } {
  if (Buffer.byteLength(s, 'utf8') <= maxBytes) return { value: s, cut: false };
  const buf = Buffer.from(s, 'utf8');
  // The first byte left out must start a character: step back over continuation bytes.
  let end = maxBytes;
  while (end > 0 && (buf[end] & 0xc0) === 0x80) end--;
  return { value: buf.subarray(0, end).toString('utf8'), cut: true };
}

/** The headers kept on the record (names in lower case), beside the ones with fields of their own. */
export const KEPT_HEADERS: ReadonlySet<string> = new Set([
  'date',
  'message-id',
  'in-reply-to',
  'references',
  'reply-to',
  'sender',
  'auto-submitted',
  'precedence',
  'list-id',
  'list-unsubscribe',
  'list-unsubscribe-post',
  'return-path',
  'authentication-results',
  'x-pmail-hop',
  'x-mailer',
  'content-type',
]);

/**
 * The reply parser reads at most this much of the text (the new text of a reply sits above or just
 * below the quote): a bound on its cost (its regular expressions are slow on long lines) and on the
 * record, which keeps the extracted text beside MAX_STORED_TEXT_BYTES and MAX_STORED_HTML_BYTES.
 */
export const MAX_EXTRACT_INPUT_BYTES = 16 * 1024;
/** Lines longer than this are no attribution or signature line: the parser sees a short stand-in. */
export const MAX_EXTRACT_LINE_CHARS = 500;

/** Types a browser runs or renders as a page: served as bytes, like a risky attachment. */
const ACTIVE_TYPES = /^(text\/html|application\/xhtml\+xml|image\/svg\+xml|text\/xml|application\/xml)$/i;
const MIME_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/i;

/**
 * The Content-Type an attachment is downloaded with: its declared type, or
 * `application/octet-stream` when it is risky, a type a browser would run or render (HTML, XHTML,
 * SVG, XML), or no well-formed type. The download is always `Content-Disposition: attachment`.
 */
export function servedAttachmentType(contentType: string, risky: boolean): string {
  const type = contentType.trim().toLowerCase();
  return risky || ACTIVE_TYPES.test(type) || !MIME_TYPE.test(type) ? 'application/octet-stream' : type;
}

/**
 * The Content-Disposition of a download (RFC 6266): always `attachment`, the name as an ASCII
 * fallback (anything else, quotes and backslashes replaced) and in full as `filename*` (RFC 8187).
 */
export function attachmentDisposition(filename: string): string {
  const name = filename.replace(/[\r\n]/g, ' ').slice(0, 255) || 'attachment';
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  const encoded = encodeURIComponent(name).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}
