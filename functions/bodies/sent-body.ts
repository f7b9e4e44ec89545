import type { SentBody } from '../core/message-body.ts';
import { listedAttachments, storedText } from '../inbound/stored.ts';

/**
 * A sent message's body as its body item keeps it, from what the composition sent
 * (core/compose.ts › composePlan: the text and HTML parts with signature, disclosure and footers,
 * the attachments): the text cut, the HTML sanitised and cut like a received message's
 * (functions/inbound/html.ts › storedHtml, loaded with the first body that has HTML), the
 * attachments listed in the order they were given.
 */
export async function sentBodyOf(sent: {
  text?: string;
  html?: string;
  attachments: readonly {
    filename: string;
    content_type: string;
    content_base64: string;
    disposition?: 'attachment' | 'inline';
    content_id?: string;
  }[];
}): Promise<SentBody> {
  const text = sent.text !== undefined ? storedText(sent.text) : undefined;
  const html =
    sent.html !== undefined ? (await import('../inbound/html.ts')).storedHtml(sent.html) : undefined;
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
