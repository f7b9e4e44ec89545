import { describe, expect, it } from 'vitest';
import { MAX_EXTRACT_INPUT_BYTES } from '../../functions/core/inbound.ts';
import { isDeviceLine, quotedHistoryStart } from '../../functions/core/reply-text.ts';
import { extractNewText } from '../../functions/inbound/extract.ts';
import { htmlText, readableHtml } from '../../functions/inbound/html.ts';
import { CLIENT_SHAPES } from '../fixtures/replies/client-shapes.ts';
import { REPLY_SHAPES } from '../fixtures/replies/shapes.ts';

describe('extract.ts › extractNewText: the new text of a reply', () => {
  it.each(REPLY_SHAPES.map((s) => [s.name, s] as const))('%s', (_, shape) => {
    expect(extractNewText(shape.text)).toBe(shape.expected);
  });

  // Real clients' layouts, HTML-only ones read as ingest reads them (the text of their HTML).
  it.each(CLIENT_SHAPES.map((s) => [s.name, s] as const))('%s', (_, shape) => {
    const text = shape.text ?? htmlText(readableHtml(shape.html ?? '').value);
    expect(extractNewText(text)).toBe(shape.expected);
  });

  it('keeps a long line whole, and reads no more than its input bound', () => {
    const paragraph = 'word '.repeat(400).trim();
    const text = `Hi,\n${paragraph}\n\nOn Thu, Dec 3, 2026 at 10:00 AM Agent <a@b.test> wrote:\n> ${paragraph}\n`;
    expect(extractNewText(text)).toBe(`Hi,\n${paragraph}`);
    const huge = `${'x'.repeat(100)}\n`.repeat(1000);
    expect(Buffer.byteLength(extractNewText(huge))).toBeLessThanOrEqual(MAX_EXTRACT_INPUT_BYTES);
  });

  it('answers the empty string for a text that is all quote', () => {
    expect(extractNewText('> only\n> quoted\n')).toBe('');
  });
});

describe('core/reply-text.ts › quotedHistoryStart and isDeviceLine', () => {
  it.each([
    ['a header block below new text', ['Yes.', '', 'From: A', 'Sent: Monday', 'To: B', 'Subject: C'], 1],
    [
      'the rule above the block goes with it',
      ['Yes.', '____________', 'From: A', 'Date: Monday', 'Subject: C'],
      1,
    ],
    ['one From: line is new text', ['Yes.', 'From: the warehouse', 'Thanks'], undefined],
    [
      'a block with no sender is new text',
      ['Yes.', 'Date: Monday', 'Time: 10:00', 'Place: Leeds'],
      undefined,
    ],
    [
      'a block above any new text is left to the parser',
      ['From: A', 'Sent: Monday', 'To: B', 'Below.'],
      undefined,
    ],
    [
      'an attribution with an address and a verb',
      ['Ok.', 'On Mon, 3 Dec 2026, A <a@b.example> wrote:', '> x'],
      1,
    ],
    [
      'an attribution wrapped over two lines',
      ['Ok.', 'On Mon, 3 Dec 2026 at 10:00 A <', 'a@b.example> wrote:', '> x'],
      1,
    ],
    [
      'an attribution with an address and a year, no verb',
      ['Да.', 'чт, 3 дек. 2026 г. в 10:00, A <a@b.example>:', '> x'],
      1,
    ],
    [
      'a sentence saying what was written is new text',
      ['On Monday I wrote to you:', 'nothing came back.'],
      undefined,
    ],
    [
      'a quoted attribution is the parser’s',
      ['Ok.', '> On Mon, 3 Dec 2026, A <a@b.example> wrote:'],
      undefined,
    ],
  ] as const)('%s', (_, lines, start) => {
    expect(quotedHistoryStart(lines)).toBe(start);
  });

  it.each([
    ['Sent from my iPhone', true],
    ['Отправлено с iPhone', true],
    ['Get Outlook for iOS<https://aka.ms/o0ukef>', true],
    ['Sent from my phone in a hurry, so the short answer: yes', false],
    ['Sent from my laptop this time: the signed contract is attached.', false],
  ] as const)('%s is a device line: %s', (line, device) => {
    expect(isDeviceLine(line)).toBe(device);
  });

  it('looks at each line with at most the eight after it: a text of label lines and colons stays linear', () => {
    const hostile = `New.\n${'From: a\n'.repeat(3000)}${'x: '.repeat(150)}:\n`.repeat(2);
    const lines = hostile.split('\n');
    expect(quotedHistoryStart(lines)).toBeUndefined();
    expect(extractNewText(hostile).startsWith('New.')).toBe(true);
  });
});
