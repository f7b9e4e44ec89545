import { parserOptions } from './parse.ts';

/**
 * The bytes of a received message's attachment, read from its stored raw message by parsing it
 * again with the options ingest parsed it with, so `index` is the position in the list ingest
 * stored (docs/guides/receiving.md › Attachments). Undefined when the message has no such
 * attachment, or the part found is not the one listed (its type or size differ).
 */
export async function readAttachment(
  raw: Uint8Array,
  index: number,
  listed: { content_type: string; size: number },
): Promise<Buffer | undefined> {
  const { simpleParser } = await import('mailparser');
  const mail = await simpleParser(Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength), parserOptions);
  const part = mail.attachments[index];
  if (!part || part.contentType !== listed.content_type || part.size !== listed.size) return undefined;
  return part.content;
}
