import type { AddressObject, HeaderValue, ParsedMail } from 'mailparser';
import {
  type CapExceeded,
  capExceeded,
  INBOUND_CAPS,
  type InboundCaps,
  KEPT_HEADERS,
  MAX_HEADER_VALUE,
  MAX_KEPT_HEADERS,
  MAX_STORED_HTML_BYTES,
  MAX_STORED_TEXT_BYTES,
  messageIds,
  mimeShape,
} from '../core/inbound.ts';
import type { InboundAttachment, Mailbox } from '../core/model.ts';
import { extractNewText } from './extract.ts';
import { htmlText, readableHtml, sanitise } from './html.ts';
import { listedAttachments, stored, storedText } from './stored.ts';

/**
 * A received message as ingest stores it. Parsed with mailparser under the caps of core/inbound.ts:
 * over a cap (or when the parser fails) only the header block is parsed, and the message is kept
 * raw with the flag its `parse` names; a message quarantined by SES's virus verdict is read the same
 * way, its body never parsed.
 */
export interface ParsedInbound {
  parse: 'parsed' | 'oversize' | 'unparsed' | 'quarantined';
  cap?: CapExceeded;
  /** mailparser's result, for DSN routing (headers only when `parse` is not `parsed`). */
  mail: ParsedMail;
  /** Header names in lower case → the first value as written (unfolded). */
  headerMap: Map<string, string>;
  kept: { name: string; value: string }[];
  from?: Mailbox;
  to: Mailbox[];
  cc: Mailbox[];
  replyTo: Mailbox[];
  subject: string;
  rfcMessageId?: string;
  inReplyTo?: string;
  references: string[];
  text?: string;
  /** What the sender wrote, without quoted history and signature (functions/inbound/extract.ts). */
  extractedText?: string;
  html?: string;
  bodyTruncated: boolean;
  attachments: InboundAttachment[];
  /** `multipart/report; report-type=delivery-status` (RFC 3464). */
  isDsn: boolean;
}

export async function parseInbound(
  raw: Uint8Array,
  opts: { quarantined?: boolean; caps?: InboundCaps } = {},
): Promise<ParsedInbound> {
  const caps = opts.caps ?? INBOUND_CAPS;
  const shape = mimeShape(raw, caps);
  const cap = capExceeded(shape, caps);
  const { simpleParser } = await import('mailparser');
  const headersOnly = async (parse: ParsedInbound['parse']) => {
    const mail = await simpleParser(headerBlock(raw, caps.maxHeaderBytes), parserOptions);
    return shaped(mail, parse, cap, false);
  };
  if (opts.quarantined) return headersOnly('quarantined');
  if (cap) return headersOnly('oversize');
  try {
    const mail = await simpleParser(Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength), parserOptions);
    return shaped(mail, 'parsed', undefined, true);
  } catch {
    return headersOnly('unparsed');
  }
}

export const parserOptions = {
  skipImageLinks: true,
  skipTextLinks: true,
  skipTextToHtml: true,
  // Text is derived from the HTML here (`bodies`), from a bounded part of it: mailparser's own
  // conversion reads all of it, with word wrapping, in time quadratic in a long run of inline elements.
  skipHtmlToText: true,
} as const;

/** The top header block, at most `max` bytes (cut at a line), with the empty line that ends it. */
function headerBlock(raw: Uint8Array, max: number): Buffer {
  const buf = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
  const text = buf.subarray(0, Math.min(buf.length, max + 4)).toString('latin1');
  const end = /\r?\n\r?\n/.exec(text);
  let block = end ? text.slice(0, end.index) : text.slice(0, max);
  if (block.length > max) block = block.slice(0, block.lastIndexOf('\n', max));
  return Buffer.from(`${block.replace(/\r?\n$/, '')}\r\n\r\n`, 'latin1');
}

function shaped(
  mail: ParsedMail,
  parse: ParsedInbound['parse'],
  cap: CapExceeded | undefined,
  withBody: boolean,
): ParsedInbound {
  const headerMap = new Map<string, string>();
  const kept: { name: string; value: string }[] = [];
  for (const { key, line } of mail.headerLines ?? []) {
    const value = line
      .slice(line.indexOf(':') + 1)
      .replace(/\r?\n[ \t]+/g, ' ')
      .trim();
    if (!headerMap.has(key)) headerMap.set(key, value);
    if (KEPT_HEADERS.has(key) && kept.length < MAX_KEPT_HEADERS)
      kept.push({ name: key, value: value.slice(0, MAX_HEADER_VALUE) });
  }
  const contentType = mail.headers.get('content-type') as
    | { value?: string; params?: Record<string, string> }
    | undefined;
  const isDsn =
    contentType?.value?.toLowerCase() === 'multipart/report' &&
    contentType.params?.['report-type']?.toLowerCase() === 'delivery-status';
  const { text, html } = withBody ? bodies(mail) : {};
  const from = mailboxes(mail.from)[0];
  return {
    parse,
    ...(cap ? { cap } : {}),
    mail,
    headerMap,
    kept,
    ...(from ? { from } : {}),
    to: mailboxes(mail.to),
    cc: mailboxes(mail.cc),
    replyTo: mailboxes(mail.replyTo),
    subject: (mail.subject ?? '').replace(/[\r\n]+/g, ' ').slice(0, MAX_HEADER_VALUE),
    ...(mail.messageId ? { rfcMessageId: messageIds(mail.messageId)[0] ?? mail.messageId } : {}),
    ...(mail.inReplyTo ? { inReplyTo: mail.inReplyTo } : {}),
    references: referencesOf(mail.references),
    ...(text ? { text: text.value, extractedText: extractNewText(text.value) } : {}),
    ...(html ? { html: html.value } : {}),
    bodyTruncated: !!(text?.cut || html?.cut),
    attachments: withBody ? listedAttachments(mail.attachments) : [],
    isDsn,
  };
}

function referencesOf(refs: string | string[] | undefined): string[] {
  if (!refs) return [];
  return (Array.isArray(refs) ? refs : [refs]).flatMap((r) => messageIds(r));
}

function mailboxes(value: AddressObject | AddressObject[] | HeaderValue | undefined): Mailbox[] {
  if (!value || typeof value !== 'object') return [];
  const objects = (Array.isArray(value) ? value : [value]) as AddressObject[];
  const out: Mailbox[] = [];
  const walk = (list: AddressObject['value']) => {
    for (const a of list ?? []) {
      if (a.group) walk(a.group);
      else if (a.address) out.push({ address: a.address, ...(a.name ? { name: a.name } : {}) });
    }
  };
  for (const o of objects) walk(o.value);
  return out.slice(0, 100);
}

/**
 * The text and the sanitised HTML as the record keeps them, each cut to fit it. HTML is read only
 * as far as `readableHtml` reads it (`cut` when it stopped short); the text is the message's own
 * text parts, or, when they say nothing, the text of the HTML.
 */
function bodies(mail: ParsedMail): { text?: ReturnType<typeof stored>; html?: ReturnType<typeof stored> } {
  const source = typeof mail.html === 'string' && mail.html ? readableHtml(mail.html) : undefined;
  const text = mail.text?.trim()
    ? storedText(mail.text)
    : source
      ? stored(htmlText(source.value), MAX_STORED_TEXT_BYTES, source.cut)
      : undefined;
  return {
    ...(text?.value ? { text } : {}),
    ...(source ? { html: stored(sanitise(source.value), MAX_STORED_HTML_BYTES, source.cut) } : {}),
  };
}
