import EmailReplyParser from 'email-reply-parser';
import planer from 'planer';
import { extractNewText } from '../functions/inbound/extract.ts';
import { REPLY_SHAPES } from '../test/fixtures/replies/shapes.ts';

/**
 * How many reply shapes of test/fixtures/replies/shapes.ts each reply parser gets right: the new
 * text, without quoted history and signature, equal to the shape's expected text (whitespace at the
 * ends trimmed). `npm run bench:reply-text`; the numbers are in docs/guides/receiving.md › The new text.
 * planer (a port of Mailgun's talon) is a devDependency for this comparison only.
 */
const parsers: Record<string, (text: string) => string> = {
  'email-reply-parser': (t) => new EmailReplyParser().read(t).getVisibleText(),
  planer: (t) => planer.extractFrom(t, 'text/plain'),
  'pmail (email-reply-parser, bounded input)': extractNewText,
};

for (const [name, parse] of Object.entries(parsers)) {
  const missed = REPLY_SHAPES.filter((s) => {
    try {
      return parse(s.text).trim() !== s.expected;
    } catch {
      return true;
    }
  });
  console.log(`${name}: ${REPLY_SHAPES.length - missed.length}/${REPLY_SHAPES.length}`);
  for (const s of missed) console.log(`  missed: ${s.name}`);
}
