import type { SentBody } from '../core/message-body.ts';
import { parseInbound } from '../inbound/parse.ts';

/**
 * A sent message's body read back from its stored MIME, for a message whose body item is missing
 * (its writer stopped after the commit; a transactional template's message, whose body is not
 * stored; a message stored before sent bodies were): parsed like received mail, under the same caps.
 */
export async function sentBodyFromMime(raw: Uint8Array): Promise<SentBody> {
  const parsed = await parseInbound(raw);
  return {
    // The MIME's text part ends with the line break its encoding adds; the composed text had none.
    ...(parsed.text !== undefined ? { text: parsed.text.replace(/\r?\n$/, '') } : {}),
    ...(parsed.html !== undefined ? { html: parsed.html } : {}),
    ...(parsed.bodyTruncated ? { body_truncated: true } : {}),
    attachments: parsed.attachments,
  };
}
