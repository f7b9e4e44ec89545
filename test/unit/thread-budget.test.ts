import { describe, expect, it } from 'vitest';
import { type BudgetInput, budgetThread, charCount } from '../../functions/core/thread-budget.ts';

/**
 * core/thread-budget.ts as a table: each message is written `whole/extracted` in characters, oldest
 * first; each view `w` (whole), `e` (extracted), `c` (cut) or `-` (left out).
 */
const msg = (whole: number, extracted = whole): BudgetInput => ({
  text: whole ? 'w'.repeat(whole) : null,
  extracted_text: whole ? 'e'.repeat(extracted) : null,
});
const forms = (r: ReturnType<typeof budgetThread>) =>
  r.views
    .map((v) => (v === null ? '-' : v.form === 'whole' ? 'w' : v.form === 'extracted' ? 'e' : 'c'))
    .join('');

describe('core/thread-budget.ts › budgetThread', () => {
  it.each([
    // name, messages, max_chars, prefer, views, used, omitted, trimmed, cut
    ['everything whole fits', [msg(100, 10), msg(100, 10), msg(50)], 250, 'whole', 'www', 250, 0, 0, false],
    [
      'one over: the oldest trimmed first',
      [msg(100, 10), msg(100, 10), msg(50)],
      249,
      'whole',
      'eww',
      160,
      0,
      1,
      false,
    ],
    [
      'two trimmed, the newest stays whole',
      [msg(100, 10), msg(100, 10), msg(50)],
      100,
      'whole',
      'eew',
      70,
      0,
      2,
      false,
    ],
    [
      'the newest trimmed last, once every older one is',
      [msg(100, 10), msg(100, 10), msg(50, 5)],
      30,
      'whole',
      'eee',
      25,
      0,
      3,
      false,
    ],
    [
      'then the oldest left out',
      [msg(100, 40), msg(100, 40), msg(50, 5)],
      60,
      'whole',
      '-ee',
      45,
      1,
      2,
      false,
    ],
    [
      'left out first, then as few trimmed as fit',
      [msg(100, 90), msg(20, 10), msg(50, 5)],
      70,
      'whole',
      '-ww',
      70,
      1,
      0,
      false,
    ],
    [
      'only the newest, trimmed',
      [msg(100, 90), msg(100, 90), msg(50, 40)],
      45,
      'whole',
      '--e',
      40,
      2,
      1,
      false,
    ],
    [
      'the newest alone over: its extracted text cut',
      [msg(100, 90), msg(500, 300)],
      200,
      'whole',
      '-c',
      200,
      1,
      1,
      true,
    ],
    [
      'prefer extracted: every message trimmed from the start',
      [msg(100, 10), msg(100, 10), msg(50, 5)],
      1000,
      'extracted',
      'eee',
      25,
      0,
      3,
      false,
    ],
    [
      'prefer extracted, then left out',
      [msg(100, 60), msg(100, 60), msg(50, 5)],
      70,
      'extracted',
      '-ee',
      65,
      1,
      2,
      false,
    ],
    [
      'a message without text costs nothing',
      [msg(0), msg(100, 10), msg(0)],
      100,
      'whole',
      'www',
      100,
      0,
      0,
      false,
    ],
    ['no messages', [], 200, 'whole', '', 0, 0, 0, false],
  ] as const)('%s', (_, messages, max, prefer, views, used, omitted, trimmed, cut) => {
    const r = budgetThread(messages, max, prefer);
    expect(forms(r)).toBe(views);
    expect(r).toMatchObject({ used_chars: used, omitted, trimmed, cut });
    expect(r.used_chars).toBeLessThanOrEqual(max);
    const returned = r.views.reduce((n, v) => n + charCount(v?.text ?? null), 0);
    expect(returned).toBe(r.used_chars);
  });

  it('counts characters as code points, and cuts at one', () => {
    expect(charCount('😀é')).toBe(2);
    const r = budgetThread([{ text: '😀'.repeat(300), extracted_text: '😀'.repeat(250) }], 200);
    expect(r.views[0]).toEqual({ text: '😀'.repeat(200), form: 'cut' });
    expect(r.used_chars).toBe(200);
  });

  it('returns the texts the forms name: whole text or extracted text', () => {
    const r = budgetThread(
      [
        { text: 'old whole', extracted_text: 'old' },
        { text: 'new whole', extracted_text: 'new' },
      ],
      12,
    );
    expect(r.views).toEqual([
      { text: 'old', form: 'extracted' },
      { text: 'new whole', form: 'whole' },
    ]);
  });

  it('never exceeds the budget, and leaves out only the oldest, whatever the thread', () => {
    let seed = 7;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let run = 0; run < 300; run++) {
      const messages = Array.from({ length: 1 + rand(20) }, () => {
        const whole = rand(400);
        return msg(whole, whole ? rand(whole) + 1 : 0);
      });
      const max = 200 + rand(3000);
      const r = budgetThread(messages, max);
      expect(r.used_chars).toBeLessThanOrEqual(max);
      const shown = forms(r);
      expect(shown).toMatch(/^-*[ec]*w*$/);
      expect(shown.at(-1)).not.toBe('-');
    }
  });
});
