import type { ListedAttachment } from '../core/message-body.ts';
import { parserOptions } from './parse.ts';

/**
 * The bytes of a message's attachment, read from its stored MIME by parsing it again with the
 * options ingest parses received mail with (docs/guides/receiving.md › Attachments). `index` is the
 * position in the message's list (`listed`): a received message's list is the parser's own order; a
 * sent message's is the order it was given in, which the MIME may lay out otherwise (inline parts go
 * beside the HTML), so a part is the one listed when its type, size and name agree — the part at
 * `index`, or else the same-numbered one of the parts that agree. Undefined when there is none.
 */
export async function readAttachment(
  raw: Uint8Array,
  index: number,
  listed: readonly ListedAttachment[],
): Promise<Buffer | undefined> {
  const want = listed[index];
  if (!want) return undefined;
  const { simpleParser } = await import('mailparser');
  const mail = await simpleParser(Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength), parserOptions);
  const agrees = (part: { contentType: string; size: number; filename?: string }, a: ListedAttachment) =>
    part.contentType === a.content_type &&
    part.size === a.size &&
    (a.filename === undefined || part.filename?.slice(0, 255) === a.filename);
  const at = mail.attachments[index];
  if (at && agrees(at, want)) return at.content;
  const same = listed
    .slice(0, index)
    .filter((a) => agrees({ ...a, contentType: a.content_type }, want)).length;
  return mail.attachments.filter((p) => agrees(p, want))[same]?.content;
}
