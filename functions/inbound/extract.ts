import EmailReplyParser from 'email-reply-parser';
import { cutUtf8, MAX_EXTRACT_INPUT_BYTES, MAX_EXTRACT_LINE_CHARS } from '../core/inbound.ts';
import { isDeviceLine, quotedHistoryStart } from '../core/reply-text.ts';

/**
 * What the sender of a received message wrote (docs/guides/receiving.md › The new text): the text
 * without the quoted history and the signature. Two passes: core/reply-text.ts cuts the text where
 * a header block (Outlook's and its kin, in any language, starred or under a rule, with or without
 * an address) or an attribution line email-reply-parser does not know begins; email-reply-parser
 * then removes `>` quotes, the attribution lines it knows and the signature (`-- `, "Sent from
 * my …"), and a device line in another language left at the end goes too (core/reply-text.ts ›
 * isDeviceLine). bench/reply-text.ts measures it on the reply shapes of test/fixtures/replies/.
 *
 * The passes read the first MAX_EXTRACT_INPUT_BYTES of the text, and each line longer than
 * MAX_EXTRACT_LINE_CHARS as a short stand-in put back afterwards (the parser's regular expressions
 * take quadratic time on a long line; such a line is never an attribution, a header or a signature
 * marker). An empty result (the whole text was quoted) gives the empty string.
 */
export function extractNewText(text: string): string {
  const input = cutUtf8(text, MAX_EXTRACT_INPUT_BYTES).value;
  const long: string[] = [];
  const lines = input.split(/\r?\n/).map((line) => {
    if (line.length <= MAX_EXTRACT_LINE_CHARS) return line;
    long.push(line);
    // A quoted long line stays quoted.
    return `${line.startsWith('>') ? '> ' : ''}\ue000${long.length - 1}\ue000`;
  });
  const cut = quotedHistoryStart(lines);
  const kept = cut === undefined ? lines : lines.slice(0, cut);
  const parsed = new EmailReplyParser().read(kept.join('\n')).getVisibleText();
  const visible = withoutDeviceLine(parsed.split('\n')).join('\n').trim();
  return visible.replace(/(?:> )?\ue000(\d+)\ue000/g, (stand, i: string) => long[Number(i)] ?? stand);
}

/** The new text without the device line a client put at its end. */
function withoutDeviceLine(lines: string[]): string[] {
  let end = lines.length;
  while (end > 0 && lines[end - 1].trim() === '') end--;
  return end > 0 && isDeviceLine(lines[end - 1]) ? lines.slice(0, end - 1) : lines.slice(0, end);
}
