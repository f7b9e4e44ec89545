import type { SentBody } from '../core/message-body.ts';
import { listedAttachments, parseInbound, storedHtml, storedText } from '../inbound/parse.ts';

/**
 * A sent message's body as its body item keeps it, from what the composition sent
 * (core/compose.ts › composePlan: the text and HTML parts with signature, disclosure and footers,
 * the attachments): the text cut, the HTML sanitised and cut like a received message's
 * (functions/inbound/parse.ts), the attachments listed in the order the MIME carries them.
 */
export function sentBodyOf(sent: {
  text?: string;
  html?: string;
  attachments: readonly {
    filename: string;
    content_type: string;
    content_base64: string;
    disposition?: 'attachment' | 'inline';
    content_id?: string;
  }[];
}): SentBody {
  const text = sent.text !== undefined ? storedText(sent.text) : undefined;
  const html = sent.html !== undefined ? storedHtml(sent.html) : undefined;
  return {
    ...(text ? { text: text.value } : {}),
    ...(html ? { html: html.value } : {}),
    ...(text?.cut || html?.cut ? { body_truncated: true } : {}),
    attachments: listedAttachments(
      sent.attachments.map((a) => ({
        filename: a.filename,
        contentType: a.content_type,
        size: base64Size(a.content_base64),
        contentDisposition: a.disposition ?? 'attachment',
        cid: a.content_id,
      })),
    ),
  };
}

/** The decoded size of standard base64 (whitespace ignored), without decoding it. */
function base64Size(b64: string): number {
  const s = b64.replace(/\s+/g, '');
  const pad = s.endsWith('==') ? 2 : s.endsWith('=') ? 1 : 0;
  return Math.floor((s.length * 3) / 4) - pad;
}

/**
 * The same fields read back from a sent message's stored MIME, for a message whose body item is
 * missing (its writer stopped after the commit, or a transactional template's message, whose body is
 * not stored): parsed like received mail, under the same caps.
 */
export async function sentBodyFromMime(raw: Uint8Array): Promise<SentBody> {
  const parsed = await parseInbound(raw);
  return {
    ...(parsed.text !== undefined ? { text: parsed.text } : {}),
    ...(parsed.html !== undefined ? { html: parsed.html } : {}),
    ...(parsed.bodyTruncated ? { body_truncated: true } : {}),
    attachments: parsed.attachments,
  };
}
