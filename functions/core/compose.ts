import { type FieldError, invalidContent } from './errors.ts';
import {
  BASE64_PATTERN,
  MAX_ATTACHMENTS,
  MAX_LABEL_CHARS,
  MAX_LABELS,
  MAX_METADATA_KEY_CHARS,
  MAX_METADATA_KEYS,
  MAX_METADATA_VALUE_CHARS,
  MAX_SUBJECT_CHARS,
} from './limits.ts';
import type { Mailbox } from './model.ts';
import type { Recipient } from './recipients.ts';
import { angleId, forwardSubject, replySubject, trimReferences, utf8Length } from './reply.ts';

/**
 * Composition: the message pmail writes, as a plan. Pure: the caller (the submit path)
 * supplies identity, thread and policy data, ids and time; functions/send/mime.ts turns the plan into
 * MIME bytes with nodemailer's composer. The plan never holds Bcc: BCC recipients live in the
 * message record and its deliveries only.
 */
export interface AttachmentInput {
  filename: string;
  content_type: string;
  content_base64: string;
  disposition?: 'attachment' | 'inline';
  content_id?: string;
}

/** The four ways to send: a new message, a reply, a reply to all, a forward. */
export type Operation = 'send' | 'reply' | 'reply_all' | 'forward';

export interface ComposePlan {
  operation: Operation;
  messageId: string;
  date: Date;
  from: Mailbox;
  to: Mailbox[];
  cc: Mailbox[];
  /** The thread-token Reply-To, when the sending domain has reply_token = 'subaddress'. */
  replyTo?: Mailbox;
  /** `<…>` msg-ids; written as the In-Reply-To and References headers. */
  inReplyTo?: string;
  references?: string[];
  subject: string;
  text?: string;
  html?: string;
  /** Every other header, service-set and custom, by the name it is sent under. */
  headers: Record<string, string>;
  attachments: AttachmentInput[];
}

/** The message being forwarded, already read and parsed by the caller. */
export interface ForwardedMessage {
  from: Mailbox;
  date: Date | number;
  subject: string;
  to: Mailbox[];
  cc: Mailbox[];
  text?: string;
  html?: string;
}

export interface ComposeInput {
  rfcMessageId: string;
  /** Epoch ms; the Date header. */
  now: number;
  from: Mailbox;
  recipients: Recipient[];
  subject: string;
  text?: string;
  html?: string;
  attachments?: AttachmentInput[];
  /** X-Pmail-Hop: 1 for a new send, else 1 + the hop of the message answered or forwarded. */
  hop: number;
  /** Default 'send'. reply/reply_all prefix "Re: ", forward "Fwd: " when absent. */
  operation?: Operation;
  replyTo?: Mailbox;
  inReplyTo?: string;
  references?: string[];
  /** Already through validateCustomHeaders (headers.ts). */
  customHeaders?: Record<string, string>;
  signature?: { text?: string; html?: string };
  /** The identity's ai_disclosure. */
  disclosure?: { mode: 'footer' | 'header' | 'none'; text: string };
  /** kind: marketing: the HTTPS one-click URL and an optional mailto address. */
  marketing?: { url: string; mailto?: string };
  /** kind: auto_reply: Auto-Submitted: auto-replied. */
  autoReply?: boolean;
  /** operation forward: the original message. */
  forward?: ForwardedMessage;
  /** operation forward: the original's attachments to attach again (include_attachments). */
  forwardAttachments?: AttachmentInput[];
}

export const SIGNATURE_TEXT_SEPARATOR = '\n\n-- \n';
export const SIGNATURE_HTML_SEPARATOR = '<br><br>-- <br>';
export const FORWARD_MARKER = '---------- Forwarded message ---------';

/** The text and html parts in the order composePlan names: the request's, the forward, signature, footers. */
function composeBody(input: ComposeInput, operation: Operation): { text?: string; html?: string } {
  // The request's text and html.
  let text = input.text ?? (input.html !== undefined ? htmlToText(input.html) : undefined);
  let html = input.html;
  const appendText = (suffix: string) => {
    text = (text ?? '') + suffix;
  };
  const appendHtmlPart = (fragment: string) => {
    if (html !== undefined) html = appendHtml(html, fragment);
  };

  // Forward: the transfer note, then the original, directly after the user's text.
  if (operation === 'forward' && input.forward) {
    const f = input.forward;
    const note = forwardNoteLines(f);
    const originalText = f.text ?? (f.html !== undefined ? htmlToText(f.html) : '');
    appendText(`${text ? '\n\n' : ''}${note.join('\n')}\n\n${originalText}`);
    const quoted =
      f.html !== undefined ? sanitiseForwardedHtml(f.html) : escapeHtml(originalText).replace(/\n/g, '<br>');
    appendHtmlPart(
      `<br><br><div>${note.map(escapeHtml).join('<br>')}</div><br><blockquote>${quoted}</blockquote>`,
    );
  }

  // The signature (for a forward, after the transfer note).
  const sig = input.signature;
  const sigText = sig?.text ?? (sig?.html !== undefined ? htmlToText(sig.html) : undefined);
  if (sigText) appendText(SIGNATURE_TEXT_SEPARATOR + sigText);
  const sigHtml =
    sig?.html ?? (sig?.text !== undefined ? escapeHtml(sig.text).replace(/\n/g, '<br>') : undefined);
  if (sigHtml) appendHtmlPart(SIGNATURE_HTML_SEPARATOR + sigHtml);

  // The AI disclosure.
  if (input.disclosure?.mode === 'footer' && input.disclosure.text) {
    appendText(`\n\n${input.disclosure.text}`);
    appendHtmlPart(`<p>${escapeHtml(input.disclosure.text)}</p>`);
  }

  // Marketing: the visible footer, per part, unless that part already shows the URL.
  if (input.marketing) {
    const url = headerSafe(input.marketing.url);
    if (!(text ?? '').includes(url)) appendText(`\n\nUnsubscribe: ${url}`);
    if (html !== undefined && !html.includes(url) && !html.includes(escapeHtml(url))) {
      appendHtmlPart(`<p><a href="${escapeHtml(url)}">Unsubscribe</a></p>`);
    }
  }
  return { text, html };
}

/**
 * Build the plan. Body order (signature, disclosure, unsubscribe): the request's
 * text and html (text derived from html when missing; no html part when html is missing); for a
 * forward the transfer note directly after the user's text; the signature; the AI disclosure footer;
 * the unsubscribe footer. A forward's signature goes after the transfer note; footers stay
 * last so they read as footers of the whole message.
 */
export function composePlan(input: ComposeInput): ComposePlan {
  const operation = input.operation ?? 'send';
  const pick = (field: Recipient['field']) =>
    input.recipients.filter((r) => r.field === field).map(({ address, name }) => ({ address, name }));
  const { text, html } = composeBody(input, operation);

  const { headers: service, inReplyTo, references } = serviceHeaderParts(input);
  const subject =
    operation === 'reply' || operation === 'reply_all'
      ? replySubject(input.subject)
      : operation === 'forward'
        ? forwardSubject(input.subject)
        : input.subject;

  return {
    operation,
    messageId: input.rfcMessageId,
    date: new Date(input.now),
    from: { address: input.from.address, name: displayName(input.from.name) },
    to: pick('to'),
    cc: pick('cc'),
    ...(input.replyTo
      ? { replyTo: { address: input.replyTo.address, name: displayName(input.replyTo.name) } }
      : {}),
    ...(inReplyTo ? { inReplyTo } : {}),
    ...(references ? { references } : {}),
    subject,
    text,
    html,
    // The service's own headers win over a custom one of the same name (validation refuses those anyway).
    headers: { ...(input.customHeaders ?? {}), ...service },
    attachments: [
      ...(input.attachments ?? []),
      ...(operation === 'forward' ? (input.forwardAttachments ?? []) : []),
    ],
  };
}

type ServiceHeaderInput = Pick<
  ComposeInput,
  'hop' | 'inReplyTo' | 'references' | 'autoReply' | 'disclosure' | 'marketing'
>;

/**
 * The headers the service sets (core/headers.ts has the rules for custom headers): X-Pmail-Hop, In-Reply-To,
 * References (trimmed to 2,048 bytes), Auto-Submitted, X-AI-Generated, List-Unsubscribe(-Post).
 */
export function serviceHeaders(input: ServiceHeaderInput): Record<string, string> {
  const { headers, inReplyTo, references } = serviceHeaderParts(input);
  return {
    ...headers,
    ...(inReplyTo ? { 'In-Reply-To': inReplyTo } : {}),
    ...(references ? { References: references.join(' ') } : {}),
  };
}

/** In-Reply-To and References apart: the MIME builder writes them from their own fields. */
function serviceHeaderParts(input: ServiceHeaderInput): {
  headers: Record<string, string>;
  inReplyTo?: string;
  references?: string[];
} {
  const headers: Record<string, string> = { 'X-Pmail-Hop': String(input.hop) };
  if (input.autoReply) headers['Auto-Submitted'] = 'auto-replied';
  if (input.disclosure?.mode === 'header') headers['X-AI-Generated'] = 'true';
  if (input.marketing) {
    const { url, mailto } = input.marketing;
    headers['List-Unsubscribe'] = `<${headerSafe(url)}>${mailto ? `, <mailto:${headerSafe(mailto)}>` : ''}`;
    headers['List-Unsubscribe-Post'] = 'List-Unsubscribe=One-Click';
  }
  const references = trimReferences((input.references ?? []).map((r) => angleId(headerSafe(r))));
  return {
    headers,
    ...(input.inReplyTo ? { inReplyTo: angleId(headerSafe(input.inReplyTo)) } : {}),
    ...(references.length > 0 ? { references } : {}),
  };
}

/**
 * What the service's own headers weigh against the custom-header limits (≤ 20 non-X- headers, 16 KiB
 * in all): pass it to validateCustomHeaders at check 11, before composing.
 */
export function serviceHeaderCount(input: ServiceHeaderInput): { serviceNonX: number; serviceBytes: number } {
  const entries = Object.entries(serviceHeaders(input));
  return {
    serviceNonX: entries.filter(([name]) => !/^x-/i.test(name)).length,
    serviceBytes: entries.reduce((n, [k, v]) => n + utf8Length(k) + utf8Length(v), 0),
  };
}

/** Forward: the lines of the transfer note (no trailing blank line). */
function forwardNoteLines(f: ForwardedMessage): string[] {
  const from = f.from.name ? `${oneLine(f.from.name)} <${f.from.address}>` : f.from.address;
  const lines = [
    FORWARD_MARKER,
    `From: ${from}`,
    `Date: ${rfc2822Date(new Date(f.date))}`,
    `Subject: ${oneLine(f.subject)}`,
    `To: ${f.to.map((m) => m.address).join(', ')}`,
  ];
  if (f.cc.length > 0) lines.push(`Cc: ${f.cc.map((m) => m.address).join(', ')}`);
  return lines;
}

/** "Mon, 14 Sep 2026 08:12:00 +0000" (RFC 5322 § 3.3, in UTC). */
export function rfc2822Date(d: Date): string {
  return d.toUTCString().replace(/GMT$/, '+0000');
}

function oneLine(s: string): string {
  return s.replace(/[\r\n]+/g, ' ').trim();
}

/** No CR, LF or surrounding space in a value that goes into a header. */
function headerSafe(s: string): string {
  return s.replace(/[\r\n]+/g, '').trim();
}

/** Insert a fragment at the end of the HTML body: before </body> (or </html>) when present. */
export function appendHtml(html: string, fragment: string): string {
  const close = html.search(/<\/body\s*>(?![\s\S]*<\/body\s*>)/i);
  const at = close >= 0 ? close : html.search(/<\/html\s*>(?![\s\S]*<\/html\s*>)/i);
  return at >= 0 ? html.slice(0, at) + fragment + html.slice(at) : html + fragment;
}

export function escapeHtml(s: string): string {
  return s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/**
 * A minimal clean-up of a forwarded message's HTML before it is quoted: the body's content only, no
 * <script>/<style>/<head>, no event-handler attributes, no javascript: URLs. Not a full sanitiser:
 * the inbound path brings one (an allowlist sanitiser run on every inbound HTML body); this only
 * keeps the obviously active parts out of mail we send under the identity's name.
 */
export function sanitiseForwardedHtml(html: string): string {
  const body = /<body[^>]*>([\s\S]*?)(?:<\/body\s*>|$)/i.exec(html);
  return (
    (body ? body[1] : html)
      .replace(/<(script|style|head|title)\b[\s\S]*?<\/\1\s*>/gi, '')
      .replace(/<\/?(script|style|head|html|body|meta|link|base|title|!doctype)\b[^>]*>/gi, '')
      // Attributes are edited inside tags only, so text such as "onions = 3" is left alone.
      .replace(/<[a-z][^>]*>/gi, (tag) =>
        tag
          .replace(/\s+on[a-z]+\s*=\s*("[^"]*"|'[^']*'|[^\s>]+)/gi, '')
          .replace(
            /(\s(?:href|src|action|formaction|xlink:href|background|poster)\s*=\s*)("\s*(?:javascript|vbscript):[^"]*"|'\s*(?:javascript|vbscript):[^']*'|(?:javascript|vbscript):[^\s>]*)/gi,
            '$1"#"',
          ),
      )
  );
}

/** Display name = identities.display_name, ≤ 78 characters, no CR/LF. */
export function displayName(name: string | undefined): string | undefined {
  const n = name
    ?.replace(/[\r\n]+/g, ' ')
    .trim()
    .slice(0, 78);
  return n || undefined;
}

/** `<{message ulid}@{from domain}>` — the Message-ID pmail composes. */
export function rfcMessageIdFor(messageUlid: string, fromAddress: string): string {
  return `<${messageUlid}@${fromAddress.slice(fromAddress.lastIndexOf('@') + 1)}>`;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/** A plain-text rendering of HTML for the text part: block ends become new lines, tags go. */
export function htmlToText(html: string): string {
  return html
    .replace(/<(script|style|head)[\s\S]*?<\/\1>/gi, '')
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/(p|div|h[1-6]|li|tr|blockquote)>/gi, '\n')
    .replace(/<li[^>]*>/gi, '- ')
    .replace(/<[^>]+>/g, '')
    .replace(/&(#\d+|#x[0-9a-f]+|[a-z]+);/gi, (m, e: string) => {
      if (e[0] === '#') {
        const code =
          e[1] === 'x' || e[1] === 'X' ? Number.parseInt(e.slice(2), 16) : Number.parseInt(e.slice(1), 10);
        return Number.isFinite(code) ? String.fromCodePoint(code) : m;
      }
      return Object.hasOwn(ENTITIES, e.toLowerCase()) ? ENTITIES[e.toLowerCase()] : m;
    })
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

// ---- Check 12: content limits ----

export interface ContentInput {
  text?: string;
  html?: string;
  subject?: string;
  attachments?: readonly AttachmentInput[];
  labels?: readonly string[];
  metadata?: Record<string, string>;
}

/**
 * Check 12: text or html; subject ≤ 998 characters; ≤ 32 attachments, valid base64, inline
 * parts with content_id; ≤ 20 labels of 1–64 characters; metadata ≤ 20 keys, keys ≤ 64 and values
 * ≤ 512 characters. Every failure is listed in one 400 invalid_request. Lengths are string lengths, as
 * the request schema counts them.
 */
export function checkContent(input: ContentInput): void {
  const errors: FieldError[] = [];
  if (input.text === undefined && input.html === undefined) {
    errors.push({ path: 'text', message: 'text or html is required' });
  }
  if ((input.subject ?? '').length > MAX_SUBJECT_CHARS) {
    errors.push({ path: 'subject', message: `at most ${MAX_SUBJECT_CHARS} characters` });
  }
  const attachments = input.attachments ?? [];
  if (attachments.length > MAX_ATTACHMENTS) {
    errors.push({ path: 'attachments', message: `at most ${MAX_ATTACHMENTS} attachments` });
  }
  attachments.forEach((a, i) => {
    const b64 = a.content_base64.replace(/\s+/g, '');
    if (b64.length % 4 !== 0 || !BASE64_PATTERN.test(b64)) {
      errors.push({ path: `attachments[${i}].content_base64`, message: 'not valid base64' });
    }
    if (a.disposition === 'inline' && !a.content_id) {
      errors.push({ path: `attachments[${i}].content_id`, message: 'an inline attachment needs content_id' });
    }
  });
  const labels = input.labels ?? [];
  if (labels.length > MAX_LABELS) errors.push({ path: 'labels', message: `at most ${MAX_LABELS} labels` });
  labels.forEach((l, i) => {
    if (l.length === 0 || l.length > MAX_LABEL_CHARS) {
      errors.push({ path: `labels[${i}]`, message: `1 to ${MAX_LABEL_CHARS} characters` });
    }
  });
  const metadata = Object.entries(input.metadata ?? {});
  if (metadata.length > MAX_METADATA_KEYS) {
    errors.push({ path: 'metadata', message: `at most ${MAX_METADATA_KEYS} keys` });
  }
  for (const [k, v] of metadata) {
    if (k.length > MAX_METADATA_KEY_CHARS) {
      errors.push({
        path: `metadata.${k}`,
        message: `keys have at most ${MAX_METADATA_KEY_CHARS} characters`,
      });
    } else if (typeof v !== 'string' || v.length > MAX_METADATA_VALUE_CHARS) {
      errors.push({
        path: `metadata.${k}`,
        message: `values are strings of at most ${MAX_METADATA_VALUE_CHARS} characters`,
      });
    }
  }
  if (errors.length > 0) {
    throw invalidContent(errors);
  }
}
