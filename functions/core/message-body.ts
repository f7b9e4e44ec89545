import { snippetOf } from './inbound.ts';
import type { InboundAttachment, MessageRecord } from './model.ts';
import { redactPayload } from './template-payload.ts';

/**
 * A message's body, whatever its direction and wherever it is stored (docs/guides/receiving.md ›
 * One shape for both directions): a received message keeps its text, sanitised HTML, extracted
 * text and attachment list on its own record (`inbound`, written once at ingest); a sent message
 * keeps them in a body item written once at submit (`SentBody`, store/message-bodies.store.ts),
 * apart from the message item that the claim, Record and every delivery event rewrite. `bodyOf` is
 * the one rule that turns either into the fields every Message view, thread, search and client
 * reads.
 */

/** An attachment as a message lists it (its bytes stay in the stored MIME). */
export type ListedAttachment = InboundAttachment;

/** A sent message's body as stored once at submit: what the composition sent, cut to fit an item. */
export interface SentBody {
  /** The text part as sent (signature, disclosure and footers included), cut to MAX_STORED_TEXT_BYTES. */
  text?: string;
  /** The HTML part as sent, sanitised like received HTML, cut to MAX_STORED_HTML_BYTES; the exact HTML stays in the MIME. */
  html?: string;
  /** The text or the HTML was cut to fit; the stored MIME has all of it. */
  body_truncated?: boolean;
  attachments: ListedAttachment[];
}

/** Why a message shows no body although it had one. */
export type BodyWithheld = 'payload_redacted';

/** A message's body fields, as every view reads them. */
export interface MessageBody {
  text: string | null;
  html: string | null;
  /** What the sender wrote: a received message's text without quoted history and signature; a sent message's text. */
  extracted_text: string | null;
  snippet: string | null;
  attachments: ListedAttachment[];
  body_truncated: boolean;
  /** The body exists but is not shown, and why (`text` and the rest are then null and empty). */
  withheld: BodyWithheld | null;
}

/** How long a Message's snippet is (a thread summary's is core/inbound.ts › SNIPPET_CHARS). */
export const MESSAGE_SNIPPET_CHARS = 200;

const EMPTY: MessageBody = {
  text: null,
  html: null,
  extracted_text: null,
  snippet: null,
  attachments: [],
  body_truncated: false,
  withheld: null,
};

/**
 * The body of `m`: a received message's from its record; a sent one's from `sent` (its body item,
 * or the same fields read back from its MIME when it has none). A transactional template's message
 * whose payload is redacted shows none (`withheld: payload_redacted`): a sign-in link or a code
 * does not come back in a thread, a search or an agent's context once the message is final.
 */
export function bodyOf(m: MessageRecord, sent?: SentBody): MessageBody {
  if (m.direction === 'inbound') {
    const i = m.inbound;
    if (!i) return EMPTY;
    return {
      text: i.text ?? null,
      html: i.html ?? null,
      extracted_text: i.extracted_text ?? null,
      snippet: i.text === undefined ? null : snippetOf(i.text, MESSAGE_SNIPPET_CHARS),
      attachments: i.attachments ?? [],
      body_truncated: i.body_truncated ?? false,
      withheld: null,
    };
  }
  if (bodyRedacted(m)) return { ...EMPTY, withheld: 'payload_redacted' };
  if (!sent) return EMPTY;
  return {
    text: sent.text ?? null,
    html: sent.html ?? null,
    extracted_text: sent.text ?? null,
    snippet: sent.text === undefined ? null : snippetOf(sent.text, MESSAGE_SNIPPET_CHARS),
    attachments: sent.attachments,
    body_truncated: sent.body_truncated ?? false,
    withheld: null,
  };
}

/** The message's template payload is spent (core/template-payload.ts): its body is withheld. */
export const bodyRedacted = (m: MessageRecord): boolean => redactPayload(m).payload_redacted_at !== undefined;

/**
 * Whether a sent message's body is stored in a body item at submit. A transactional template's is
 * not: its rendered text (a sign-in link, a code) would outlive the redaction of its variables; until
 * the message is final its body is read back from the MIME, after that it is withheld.
 */
export const storesSentBody = (m: Pick<MessageRecord, 'direction' | 'template'>): boolean =>
  m.direction === 'outbound' && m.template?.category !== 'transactional';

/** Whether the body of `m` is read from a body item (else it is on the record, or withheld). */
export const readsSentBody = (m: MessageRecord): boolean => m.direction === 'outbound' && !bodyRedacted(m);
