import EmailReplyParser from 'email-reply-parser';
import { cutUtf8, MAX_EXTRACT_INPUT_BYTES, MAX_EXTRACT_LINE_CHARS } from '../core/inbound.ts';

/**
 * What the sender of a received message wrote (docs/guides/receiving.md › The new text): the text
 * without the quoted history (`>` lines, "On … wrote:" in the languages the parser knows, Outlook's
 * header blocks) and the signature (`-- `, "Sent from my …"), by email-reply-parser, which got every
 * shape of test/fixtures/replies/shapes.ts right (bench/reply-text.ts compares it with planer).
 *
 * The parser reads the first MAX_EXTRACT_INPUT_BYTES of the text, and each line longer than
 * MAX_EXTRACT_LINE_CHARS as a short stand-in put back afterwards (its regular expressions take
 * quadratic time on a long line; such a line is never an attribution or a signature marker).
 * An empty result (the whole text was quoted) gives the empty string.
 */
export function extractNewText(text: string): string {
  const input = cutUtf8(text, MAX_EXTRACT_INPUT_BYTES).value;
  const long: string[] = [];
  const shortened = input
    .split('\n')
    .map((line) => {
      if (line.length <= MAX_EXTRACT_LINE_CHARS) return line;
      long.push(line);
      // A quoted long line stays quoted.
      return `${line.startsWith('>') ? '> ' : ''}\ue000${long.length - 1}\ue000`;
    })
    .join('\n');
  const visible = new EmailReplyParser().read(shortened).getVisibleText().trim();
  return visible.replace(/(?:> )?\ue000(\d+)\ue000/g, (stand, i: string) => long[Number(i)] ?? stand);
}
