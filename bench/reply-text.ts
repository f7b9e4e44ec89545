import EmailReplyParser from 'email-reply-parser';
import planer from 'planer';
import { extractNewText } from '../functions/inbound/extract.ts';
import { htmlText, readableHtml } from '../functions/inbound/html.ts';
import { CLIENT_SHAPES, LATER_CLIENT_SHAPES } from '../test/fixtures/replies/client-shapes.ts';
import { REPLY_SHAPES } from '../test/fixtures/replies/shapes.ts';

/**
 * How many replies each reply parser gets exactly right: the new text, without quoted history and
 * signature, equal to the shape's expected text (whitespace at the ends trimmed) — no quoted history
 * kept, no new text cut. Two sets, both written for pmail: test/fixtures/replies/shapes.ts (the
 * common clients) and test/fixtures/replies/client-shapes.ts (Outlook's header blocks, attribution
 * lines in other languages, Hotmail and Windows Mail HTML, device lines beside prose). HTML-only
 * shapes are read as ingest reads them: the text of their HTML (functions/inbound/html.ts).
 * `npm run bench:reply-text`; the numbers are in docs/guides/receiving.md › The new text. planer (a
 * port of Mailgun's talon) is a devDependency for this comparison only.
 */
const parsers: Record<string, (text: string) => string> = {
  'email-reply-parser': (t) => new EmailReplyParser().read(t).getVisibleText(),
  planer: (t) => planer.extractFrom(t, 'text/plain'),
  'pmail (extract.ts)': extractNewText,
};

const textOf = (s: { text?: string; html?: string }) => s.text ?? htmlText(readableHtml(s.html ?? '').value);

for (const [set, shapes] of [
  ['common clients (shapes.ts)', REPLY_SHAPES],
  ['real clients’ layouts (client-shapes.ts)', CLIENT_SHAPES],
  ['the same layouts, written after the rules (client-shapes.ts › LATER_CLIENT_SHAPES)', LATER_CLIENT_SHAPES],
] as const) {
  console.log(`\n${set}: ${shapes.length} replies`);
  for (const [name, parse] of Object.entries(parsers)) {
    const missed = shapes.filter((s) => {
      try {
        return parse(textOf(s)).trim() !== s.expected;
      } catch {
        return true;
      }
    });
    const right = shapes.length - missed.length;
    console.log(
      `  ${name}: ${right}/${shapes.length} exactly right (${((100 * right) / shapes.length).toFixed(1)} %)`,
    );
    for (const s of missed) console.log(`    missed: ${s.name}`);
  }
}
