import { cutUtf8, MAX_LISTED_ATTACHMENTS, MAX_STORED_TEXT_BYTES, riskyAttachment } from '../core/inbound.ts';
import type { InboundAttachment } from '../core/model.ts';

/**
 * How a message's record keeps its body, received or sent (functions/inbound/parse.ts at ingest,
 * functions/bodies/sent-body.ts at submit): each body cut to fit, the attachments listed. Free of
 * the parsers, so the submit path loads it with every send.
 */

export type Cut = { value: string; cut: boolean };

/** `value` cut to `max` bytes of UTF-8; `cut` also when its source was cut already. */
export const stored = (value: string, max: number, cut: boolean): Cut => {
  const c = cutUtf8(value, max);
  return { value: c.value, cut: c.cut || cut };
};

/** A text body as a record keeps it: cut to MAX_STORED_TEXT_BYTES. */
export const storedText = (text: string): Cut => stored(text, MAX_STORED_TEXT_BYTES, false);

/** A message's attachments as its record lists them: name, type, size, inline id, risk; the first MAX_LISTED_ATTACHMENTS. */
export function listedAttachments(
  parts: readonly {
    filename?: string;
    contentType: string;
    size: number;
    contentDisposition?: string;
    cid?: string;
  }[],
): InboundAttachment[] {
  return parts.slice(0, MAX_LISTED_ATTACHMENTS).map((a) => {
    const risky = riskyAttachment(a.filename, a.contentType);
    return {
      ...(a.filename ? { filename: a.filename.slice(0, 255) } : {}),
      content_type: a.contentType,
      size: a.size,
      ...(a.contentDisposition === 'inline' && a.cid ? { content_id: a.cid } : {}),
      ...(risky ? { risky } : {}),
    };
  });
}
