import { describe, expect, it } from 'vitest';
import { MAX_EXTRACT_INPUT_BYTES } from '../../functions/core/inbound.ts';
import { extractNewText } from '../../functions/inbound/extract.ts';
import { REPLY_SHAPES } from '../fixtures/replies/shapes.ts';

describe('extract.ts › extractNewText: the new text of a reply', () => {
  it.each(REPLY_SHAPES.map((s) => [s.name, s] as const))('%s', (_, shape) => {
    expect(extractNewText(shape.text)).toBe(shape.expected);
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
