import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Signed links for attachments too large to send (`large_attachments: "link"`), in the token
 * format below:
 *
 *   token   = base64url(payload ‖ HMAC-SHA256(link key {kid}, payload)[0..16])   (no padding)
 *   payload = "l1:{kid}:att:{tenant_id}:{identity_id}:{message_id}:{attachment_id}:{expires_unix_s}"
 *
 * The MAC is the first 16 bytes (128 bits) of the HMAC, keyed with the UTF-8 bytes of the link
 * key's `secret`. The kid names the key that signed, so a rotation keeps older links verifying
 * while the older key stays in `config.linkKeys` (the first key signs, every listed key verifies).
 * Pure: node:crypto's HMAC is deterministic; time comes in as an argument.
 */

export interface LinkKey {
  kid: string;
  secret: string;
}

export interface AttachmentRef {
  tenantId: string;
  identityId: string;
  messageId: string;
  attachmentId: string;
}

export interface LinkClaims extends AttachmentRef {
  kid: string;
  expiresUnixS: number;
}

export type LinkRefusal = 'malformed' | 'unknown_kid' | 'bad_mac' | 'expired';

export type LinkVerdict = ({ ok: true } & LinkClaims) | { ok: false; reason: LinkRefusal };

const VERSION = 'l1';
const KIND = 'att';
const MAC_BYTES = 16;
/** Ids and kids go between `:` separators and into blob keys: keep them to a safe alphabet. */
const FIELD = /^[A-Za-z0-9_-]{1,64}$/;
const EXPIRES = /^[0-9]{1,12}$/;
const BASE64URL = /^[A-Za-z0-9_-]+$/;
/** A real token is ~200 characters; anything far longer is not one of ours. */
const MAX_TOKEN_CHARS = 1024;

export function linkPayload(kid: string, claims: AttachmentRef & { expiresUnixS: number }): string {
  return [
    VERSION,
    kid,
    KIND,
    claims.tenantId,
    claims.identityId,
    claims.messageId,
    claims.attachmentId,
    String(claims.expiresUnixS),
  ].join(':');
}

const mac = (secret: string, payload: Uint8Array) =>
  createHmac('sha256', secret).update(payload).digest().subarray(0, MAC_BYTES);

/** Sign a link with `key` (the current link key: `config.linkKeys[0]`). */
export function signLink(key: LinkKey, claims: AttachmentRef & { expiresUnixS: number }): string {
  for (const [name, value] of Object.entries({ kid: key.kid, ...claims })) {
    const ok = name === 'expiresUnixS' ? EXPIRES.test(String(value)) : FIELD.test(String(value));
    if (!ok) throw new Error(`signLink: ${name} is not a valid link field`);
  }
  const payload = Buffer.from(linkPayload(key.kid, claims), 'utf8');
  return Buffer.concat([payload, mac(key.secret, payload)]).toString('base64url');
}

/**
 * Verify a token against the key list at `nowUnixS`. The MAC is compared in constant time
 * (`timingSafeEqual`) before any claim is trusted; a link is expired from its expiry second on
 * (`now >= expires`). The reason is for logs and tests only: callers answer every refusal alike.
 */
export function verifyLink(keys: readonly LinkKey[], token: string, nowUnixS: number): LinkVerdict {
  const refuse = (reason: LinkRefusal): LinkVerdict => ({ ok: false, reason });
  if (token.length > MAX_TOKEN_CHARS || !BASE64URL.test(token)) return refuse('malformed');
  const bytes = Buffer.from(token, 'base64url');
  // Buffer's decoder is lenient: only the canonical unpadded encoding of the bytes is a token.
  if (bytes.toString('base64url') !== token || bytes.length <= MAC_BYTES) return refuse('malformed');
  const payload = bytes.subarray(0, bytes.length - MAC_BYTES);
  const given = bytes.subarray(bytes.length - MAC_BYTES);

  const parts = payload.toString('utf8').split(':');
  if (parts.length !== 8 || parts[0] !== VERSION || parts[2] !== KIND) return refuse('malformed');
  const [, kid, , tenantId, identityId, messageId, attachmentId, expires] = parts;
  if (!FIELD.test(kid)) return refuse('malformed');
  const key = keys.find((k) => k.kid === kid);
  if (!key) return refuse('unknown_kid');
  if (!timingSafeEqual(mac(key.secret, payload), given)) return refuse('bad_mac');

  if (![tenantId, identityId, messageId, attachmentId].every((f) => FIELD.test(f)) || !EXPIRES.test(expires))
    return refuse('malformed');
  const expiresUnixS = Number(expires);
  if (nowUnixS >= expiresUnixS) return refuse('expired');
  return { ok: true, kid, tenantId, identityId, messageId, attachmentId, expiresUnixS };
}

/** Where a linked attachment's bytes are stored. */
export function attachmentLinkKey(
  tenantId: string,
  identityId: string,
  messageId: string,
  attachmentId: string,
): string {
  return `t/${tenantId}/i/${identityId}/out/${messageId}/a/${attachmentId}`;
}

/** The public URL of a token: `{apiBaseUrl}/v1/links/{token}` (https://{PM_API_HOST} in AWS). */
export function linkUrl(apiBaseUrl: string, token: string): string {
  return `${apiBaseUrl.replace(/\/+$/, '')}/v1/links/${token}`;
}

/** RFC 3339 UTC, whole seconds: `2025-07-08T09:30:00Z`. */
export function rfc3339FromUnixS(unixS: number): string {
  return new Date(unixS * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * Everything the submit path needs for one linked attachment: the blob key to store the bytes at
 * (with `linkBlobMetadata(filename, content_type)`), the URL, the expiry (now + `linkTtlHours`, in
 * whole seconds) and the text and HTML lines that replace the attachment in the body.
 */
export function attachmentLink(
  config: { linkKeys: readonly LinkKey[]; apiBaseUrl: string; linkTtlHours: number },
  ref: AttachmentRef,
  nowMs: number,
  file: { filename: string; size: number },
): {
  key: string;
  token: string;
  url: string;
  expiresUnixS: number;
  expiresAt: string;
  text: string;
  html: string;
} {
  const signing = config.linkKeys[0];
  if (!signing) throw new Error('attachmentLink: no link key is configured');
  const expiresUnixS = Math.floor(nowMs / 1000) + Math.round(config.linkTtlHours * 3600);
  const token = signLink(signing, { ...ref, expiresUnixS });
  const url = linkUrl(config.apiBaseUrl, token);
  const expiresAt = rfc3339FromUnixS(expiresUnixS);
  return {
    key: attachmentLinkKey(ref.tenantId, ref.identityId, ref.messageId, ref.attachmentId),
    token,
    url,
    expiresUnixS,
    expiresAt,
    text: linkText(file.filename, file.size, url, expiresAt),
    html: linkHtml(file.filename, file.size, url, expiresAt),
  };
}

// ---------------------------------------------------------------------------------------------
// Planning: which attachments become links.

export interface LinkCandidate {
  filename: string;
  content_type: string;
  /** Decoded size in bytes. */
  size: number;
  /** Already replaced by a link in an earlier round. */
  linked?: boolean;
}

/** Bytes a body line of one link adds, in the text part and the HTML part together (an upper bound). */
export const LINK_LINE_BYTES_ESTIMATE = 1_024;
/** Bytes of a MIME part's boundary line and headers (Content-Type, -Disposition, -Transfer-Encoding). */
export const PART_HEADER_BYTES_ESTIMATE = 200;

/**
 * Bytes an attachment of `size` bytes takes in the MIME as base64 with 76-character lines and CRLF:
 * every 57 bytes become 76 characters + CRLF = 78 bytes.
 */
export function base64MimeBytes(size: number): number {
  const chars = 4 * Math.ceil(size / 3);
  return chars + 2 * Math.ceil(chars / 76);
}

/**
 * Attachments are replaced by links, largest first, until the
 * message fits. Returns the indices (into `attachments`) of the attachments to link now, largest
 * first (ties in request order), skipping those already `linked`.
 *
 * It estimates rather than composes: linking an attachment saves its base64 part
 * (`base64MimeBytes` + `PART_HEADER_BYTES_ESTIMATE`) and costs a link line in the body
 * (`LINK_LINE_BYTES_ESTIMATE`). The caller composes, measures, and asks again with the new
 * `overBy` and the `linked` flags set, until `overBy <= 0` (fits) or this returns `[]` while still
 * over (nothing left to link → 413 `message_too_large`). Because each round takes the largest
 * remaining attachments, the rounds together still link largest first.
 */
export function planLinks(attachments: readonly LinkCandidate[], opts: { overBy: number }): number[] {
  if (opts.overBy <= 0) return [];
  const order = attachments
    .map((a, i) => ({ a, i }))
    .filter(({ a }) => !a.linked)
    .sort((x, y) => y.a.size - x.a.size || x.i - y.i);
  const picked: number[] = [];
  let saved = 0;
  for (const { a, i } of order) {
    if (saved >= opts.overBy) break;
    picked.push(i);
    saved += base64MimeBytes(a.size) + PART_HEADER_BYTES_ESTIMATE - LINK_LINE_BYTES_ESTIMATE;
  }
  return picked;
}

// ---------------------------------------------------------------------------------------------
// Body text.

const UNITS = ['kB', 'MB', 'GB', 'TB'];

/**
 * A size for people, in decimal (SI) units as file managers and mail clients show them: `512 B`,
 * `4.2 MB`, `38 kB` — one decimal below 10 units, whole numbers from 10 on.
 */
export function humanSize(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  let value = bytes;
  let unit = -1;
  let shown = '';
  do {
    value /= 1000;
    unit += 1;
    shown = value < 9.95 ? value.toFixed(1) : String(Math.round(value));
  } while (Number(shown) >= 1000 && unit < UNITS.length - 1);
  return `${shown} ${UNITS[unit]}`;
}

/** Control characters (C0, DEL, C1) never go into a body line or a header. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the class names the characters to remove
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

/** The text-part line: `{filename} ({size}): {url} (available until {expiry, RFC 3339})`. */
export function linkText(filename: string, size: number, url: string, expiresAt: string): string {
  return `${filename.replace(CONTROL, '')} (${humanSize(size)}): ${url} (available until ${expiresAt})`;
}

const escapeHtml = (s: string) =>
  s.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
  );

/** The HTML-part fragment: the same facts, with the filename as the link. */
export function linkHtml(filename: string, size: number, url: string, expiresAt: string): string {
  return (
    `<a href="${escapeHtml(url)}">${escapeHtml(filename.replace(CONTROL, ''))}</a>` +
    ` (${humanSize(size)}, available until ${expiresAt})`
  );
}

// ---------------------------------------------------------------------------------------------
// Serving.

/**
 * The blob metadata a linked attachment is stored with: `filename` percent-encoded
 * (encodeURIComponent), because S3 user metadata must be US-ASCII, and `content_type` as sent.
 */
export function linkBlobMetadata(filename: string, contentType: string): Record<string, string> {
  return { filename: encodeURIComponent(filename), content_type: contentType };
}

/** The filename back from `linkBlobMetadata` (a value that does not decode is used as it is). */
export function filenameFromMetadata(metadata: Record<string, string>): string | undefined {
  const stored = metadata.filename;
  if (stored === undefined) return undefined;
  try {
    return decodeURIComponent(stored);
  } catch {
    return stored;
  }
}

/**
 * Types served as stored; anything else (HTML, SVG, XHTML, XML, JavaScript, unknown) is served as
 * `application/octet-stream` so no browser renders it (design Security › Serving attachments).
 */
const SAFE_TYPES = new Set([
  'application/pdf',
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
  'text/plain',
  'text/csv',
  'application/zip',
]);

export function servedContentType(stored: string | undefined): string {
  const type = (stored ?? '').split(';')[0].trim().toLowerCase();
  if (SAFE_TYPES.has(type) || type.startsWith('application/vnd.openxmlformats-officedocument.')) return type;
  return 'application/octet-stream';
}

/** RFC 5987 attr-char is ALPHA / DIGIT / "!#$&+-.^_`|~"; encodeURIComponent also leaves *'() bare. */
const encodeRfc5987 = (s: string) =>
  encodeURIComponent(s).replace(/[*'()]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/**
 * `attachment; filename="<ASCII fallback>"; filename*=UTF-8''<percent-encoded name>` (RFC 6266,
 * RFC 5987). Control characters (CR, LF included) and path separators go; the fallback also loses
 * quotes, backslashes, `%` and anything outside printable ASCII, each becoming `_`.
 */
export function contentDisposition(filename: string | undefined): string {
  const name = (filename ?? '').replace(CONTROL, '').replace(/[/\\]/g, '_').trim() || 'attachment';
  const fallback = name.replace(/[^\x20-\x7e]|["\\%]/gu, '_');
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encodeRfc5987(name)}`;
}
