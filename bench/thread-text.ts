import {
  budgetThread,
  THREAD_MAX_CHARS_DEFAULT,
  THREAD_MAX_CHARS_MAX,
} from '../functions/core/thread-budget.ts';
import { extractNewText } from '../functions/inbound/extract.ts';

/**
 * What reading a 20-message conversation costs an agent, with and without the thread's text budget
 * (docs/guides/receiving.md › Reading a thread under a budget): ten sends of the agent, each answered
 * by a customer whose mail client quotes the whole conversation below the answer (Gmail's
 * attribution and `>` lines) and signs it. The received texts go through the ingest's extraction
 * (functions/inbound/extract.ts), the thread through core/thread-budget.ts as `GET …/threads/{id}`
 * and MCP `get_thread` run it. Characters are exact; tokens are estimated at 4 characters a token
 * (English prose with most tokenizers), so compare them as ratios. `npm run bench:thread-text`.
 */
const PAIRS = 10;
const SIGNATURE = '\n\n--\nMaria Lopez\nHead of Purchasing, Example Trading Ltd.\n+44 20 7946 0000\n';

const agentText = (i: number) =>
  `Hello Maria,\n\nThank you for your message. About point ${i + 1}: we can confirm the delivery window, the price of the ` +
  `replacement parts and the terms we discussed. The driver calls half an hour ahead, and the parcel needs a ` +
  `signature. Please tell us if anything in the order needs changing before we book it.\n\nBest regards,\nThe Example Shop team`;
const customerNew = (i: number) =>
  `Hi,\n\nThanks. For step ${i + 1} that works for us, but could the delivery come before noon? Our loading bay ` +
  `closes at one o'clock on weekdays, and the warehouse is shut on Fridays.`;

function conversation(): { text: string; extracted_text: string }[] {
  const messages: { text: string; extracted_text: string }[] = [];
  let history = '';
  for (let i = 0; i < PAIRS; i++) {
    const sent = agentText(i);
    messages.push({ text: sent, extracted_text: sent });
    history = `${sent}\n\n${history}`;
    const quoted = history
      .trimEnd()
      .split('\n')
      .map((l) => (l ? `> ${l}` : '>'))
      .join('\n');
    const text = `${customerNew(i)}${SIGNATURE}\nOn Mon, Dec ${i + 1}, 2026 at 9:${10 + i} AM Example Shop <agent@mail.pmail.test> wrote:\n\n${quoted}\n`;
    messages.push({ text, extracted_text: extractNewText(text) });
    history = `${customerNew(i)}\n\n${history}`;
  }
  return messages;
}

const messages = conversation();
const tokens = (chars: number) => Math.round(chars / 4);
const row = (label: string, chars: number, note: string) =>
  console.log(
    `${label.padEnd(44)} ${String(chars).padStart(8)} chars  ~${String(tokens(chars)).padStart(6)} tokens  ${note}`,
  );

const right = messages.filter(
  (m, i) => i % 2 === 0 || m.extracted_text.trim() === customerNew((i - 1) / 2),
).length;
console.log(
  `a ${messages.length}-message thread: ${PAIRS} sends, each answered with the whole conversation quoted (new text extracted exactly: ${right - PAIRS}/${PAIRS})`,
);
const everything = budgetThread(messages, THREAD_MAX_CHARS_MAX);
row('without a budget (every message whole)', everything.used_chars, `${everything.omitted} left out`);
for (const maxChars of [THREAD_MAX_CHARS_DEFAULT, 8_000, 4_000]) {
  const b = budgetThread(messages, maxChars);
  row(
    `max_chars ${maxChars}${maxChars === THREAD_MAX_CHARS_DEFAULT ? ' (the default)' : ''}`,
    b.used_chars,
    `${b.trimmed} trimmed to their new text, ${b.omitted} left out (${((100 * b.used_chars) / everything.used_chars).toFixed(1)} % of whole)`,
  );
}
const extracted = budgetThread(messages, THREAD_MAX_CHARS_MAX, 'extracted');
row(
  'text=extracted (every message its new text)',
  extracted.used_chars,
  `${extracted.omitted} left out (${((100 * extracted.used_chars) / everything.used_chars).toFixed(1)} % of whole)`,
);
