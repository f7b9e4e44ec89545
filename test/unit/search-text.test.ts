import { describe, expect, it } from 'vitest';
import { PmailError } from '../../functions/core/errors.ts';
import {
  documentMayMatch,
  documentTokens,
  excerpt,
  fold,
  HIGHLIGHT_CHARS,
  MAX_INDEXED_TOKENS,
  matchMessage,
  parseSearchQuery,
  SEARCH_SHARDS,
  type SearchFields,
  searchFieldsOf,
  searchShard,
  termHashes,
  wordHash,
  wordsOf,
} from '../../functions/core/search-text.ts';

/** core/search-text.ts: folding, words, a message's tokens, a query's terms, matching and highlights. */
describe('fold and wordsOf', () => {
  it.each([
    ['CAFÉ', 'cafe'],
    ['Ångström', 'angstrom'],
    ['ﬁle', 'file'],
    ['Straße', 'straße'],
    ['İstanbul', 'istanbul'],
  ])('folds %s to %s', (input, folded) => {
    expect(fold(input)).toBe(folded);
  });

  it.each([
    ['ann@brightwell.example', ['ann', 'brightwell', 'example']],
    ['Re: Invoice #42 — café!', ['re', 'invoice', '42', 'cafe']],
    ['日本語 text', ['日本語', 'text']],
    ['   ', []],
    ['e\u0301te\u0301', ['ete']],
  ])('%j has the words %j', (text, words) => {
    expect(wordsOf(text).map((w) => w.word)).toEqual(words);
  });

  it('gives each word the span of the original it came from, in UTF-16 units', () => {
    const text = '😀 Café au lait';
    const [cafe] = wordsOf(text);
    expect(cafe).toEqual({ word: 'cafe', start: 3, end: 7 });
    expect(text.slice(cafe!.start, cafe!.end)).toBe('Café');
  });
});

const fields = (over: Partial<SearchFields> = {}): SearchFields => ({
  subject: '',
  from: '',
  to: '',
  cc: '',
  text: '',
  extracted_text: '',
  attachment: '',
  ...over,
});

describe('documentTokens', () => {
  it('holds the sorted, distinct 3-byte hashes of every word of every field', () => {
    const doc = documentTokens(
      fields({
        subject: 'Invoice invoice',
        from: 'Ann <ann@brightwell.example>',
        attachment: 'a.pdf',
        text: 'Café',
      }),
    );
    const words = ['invoice', 'ann', 'brightwell', 'example', 'a', 'pdf', 'cafe'];
    expect(doc.length).toBe(words.length * 3);
    expect(documentMayMatch(doc, words.map(wordHash))).toBe(true);
    expect(documentMayMatch(doc, [wordHash('missing')])).toBe(false);
    const hashes = Array.from(
      { length: doc.length / 3 },
      (_, i) => (doc[i * 3]! << 16) | (doc[i * 3 + 1]! << 8) | doc[i * 3 + 2]!,
    );
    expect(hashes).toEqual([...hashes].sort((a, b) => a - b));
  });

  it(`indexes the first ${MAX_INDEXED_TOKENS} distinct words, subject first: words past them are not found`, () => {
    const many = Array.from({ length: MAX_INDEXED_TOKENS + 50 }, (_, i) => `w${i}`).join(' ');
    const doc = documentTokens(fields({ subject: 'headline', text: many }));
    expect(
      documentMayMatch(doc, [wordHash('headline'), wordHash('w0'), wordHash(`w${MAX_INDEXED_TOKENS - 2}`)]),
    ).toBe(true);
    expect(documentMayMatch(doc, [wordHash(`w${MAX_INDEXED_TOKENS + 10}`)])).toBe(false);
  });

  it('makes a ~100-word message a document of a few hundred bytes', () => {
    const text = Array.from({ length: 100 }, (_, i) => `word${i % 70}`).join(' ');
    expect(documentTokens(fields({ subject: 'Status update', text })).length).toBeLessThanOrEqual(300);
  });

  it('spreads messages over the shards', () => {
    const shards = new Set(
      Array.from({ length: 200 }, (_, i) => searchShard(`msg_01jd${String(i).padStart(22, '0')}`)),
    );
    expect(shards.size).toBe(SEARCH_SHARDS);
  });
});

describe('parseSearchQuery', () => {
  it.each([
    ['invoice', [['invoice']]],
    ['Invoice  BRIGHTWELL', [['invoice'], ['brightwell']]],
    ['"red apple" pear', [['red', 'apple'], ['pear']]],
    ['brightwell.example', [['brightwell', 'example']]],
    ['"unclosed phrase', [['unclosed', 'phrase']]],
    ['café -- !!', [['cafe']]],
  ])('%j → %j', (q, words) => {
    expect(parseSearchQuery(q).map((t) => t.words)).toEqual(words);
  });

  it.each([
    ['', 'q is 1 to 256'],
    ['x'.repeat(257), 'q is 1 to 256'],
    ['"" !!', 'no word'],
    [Array.from({ length: 17 }, (_, i) => `w${i}`).join(' '), 'more than 16'],
    ['a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q', 'more than 16'],
  ])('refuses %j with invalid_query', (q, message) => {
    try {
      parseSearchQuery(q);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(PmailError);
      expect((e as PmailError).code).toBe('invalid_query');
      expect((e as PmailError).message).toContain(message);
    }
  });

  it('accepts 16 words and 256 characters', () => {
    expect(parseSearchQuery(Array.from({ length: 16 }, (_, i) => `w${i}`).join(' '))).toHaveLength(16);
    expect(parseSearchQuery('x'.repeat(256))).toHaveLength(1);
  });

  it('hashes each distinct word once', () => {
    expect(termHashes(parseSearchQuery('"a b" b a'))).toEqual([wordHash('a'), wordHash('b')]);
  });
});

describe('matchMessage', () => {
  const msg = searchFieldsOf({
    subject: 'Your invoice',
    from: { name: 'Zoë Lee', address: 'zoe@brightwell.example' },
    to: [{ address: 'agent@example.test' }],
    cc: [],
    text: 'Hello,\nthe red apple invoice is attached. A green pear too.',
    extracted_text: 'Hello, the red apple invoice is attached.',
    attachments: [{ filename: 'invoice-42.pdf' }, {}],
  });

  it.each([
    ['invoice', 'subject', ['invoice']],
    ['zoe', 'from', ['Zoë', 'zoe']],
    ['brightwell.example', 'from', ['brightwell.example']],
    ['"red apple"', 'text', ['red apple']],
    ['pear apple', 'text', ['apple', 'pear']],
    ['"invoice 42 pdf"', 'attachment', ['invoice-42.pdf']],
    ['agent', 'to', ['agent']],
  ])('%j matches, highlighted in %s at %j', (q, field, spans) => {
    const h = matchMessage(msg, parseSearchQuery(q))!;
    expect(h.field).toBe(field);
    expect(h.matches.map((m) => h.text.slice(m.start, m.end))).toEqual(spans);
  });

  it.each([['"apple red"'], ['invoice missing'], ['"green apple"'], ['pdf42']])('%j does not match', (q) => {
    expect(matchMessage(msg, parseSearchQuery(q))).toBeUndefined();
  });

  it('shows whitespace as spaces, never markup', () => {
    const h = matchMessage(msg, parseSearchQuery('attached'))!;
    expect(h.text).toBe('Hello, the red apple invoice is attached. A green pear too.');
    const html = matchMessage(fields({ text: '<b>bold</b> &amp; word' }), parseSearchQuery('word'))!;
    expect(html.text).toBe('<b>bold</b> &amp; word');
  });
});

describe('excerpt', () => {
  it(`cuts a long field to ${HIGHLIGHT_CHARS} units around the first match, keeping the spans inside it`, () => {
    const text = `${'lorem '.repeat(100)}needle ${'ipsum '.repeat(100)}needle`;
    const at = text.indexOf('needle');
    const h = excerpt('text', text, [
      { start: at, end: at + 6 },
      { start: text.length - 6, end: text.length },
    ]);
    expect(h.text.length).toBeLessThanOrEqual(HIGHLIGHT_CHARS);
    expect(h.matches).toHaveLength(1);
    expect(h.text.slice(h.matches[0]!.start, h.matches[0]!.end)).toBe('needle');
    expect(h.matches[0]!.start).toBeGreaterThan(0);
  });

  it('never splits a surrogate pair', () => {
    const text = `${'😀'.repeat(150)} needle`;
    const at = text.indexOf('needle');
    const h = excerpt('text', text, [{ start: at, end: at + 6 }]);
    expect(h.text).not.toMatch(/^[\udc00-\udfff]|[\ud800-\udbff]$/);
    expect(h.text.slice(h.matches[0]!.start, h.matches[0]!.end)).toBe('needle');
  });
});
