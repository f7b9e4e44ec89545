import { invalidSearchQuery } from './errors.ts';
import type { Mailbox } from './model.ts';

/**
 * Full-text search over an identity's mail (docs/design/search.md › Full text): how text becomes
 * words, a message its search document's tokens, a `q` its terms, and a candidate a verified match
 * with its highlight. Pure.
 *
 * Words are folded (NFKD, combining marks dropped, lower case) and are runs of letters and digits,
 * so `CAFÉ` finds `café` and `ann@brightwell.example` is the words ann, brightwell, example.
 */

/** How many partitions hold an identity's search documents: a query reads them in parallel. */
export const SEARCH_SHARDS = 8;
/** A message's distinct words indexed at most, in field order: words past them are not found. */
export const MAX_INDEXED_TOKENS = 1000;
/** `q` is 1 to MAX_QUERY_CHARS characters, with at most MAX_QUERY_WORDS words in all. */
export const MAX_QUERY_CHARS = 256;
export const MAX_QUERY_WORDS = 16;
/** Candidate messages one search request reads at most: past them the page ends with a cursor. */
export const MAX_SEARCH_READS = 200;
/** A highlight's excerpt is at most this many UTF-16 code units. */
export const HIGHLIGHT_CHARS = 200;
/** Identities one tenant-wide search reads at most (each of their shards in parallel). */
export const MAX_TENANT_SEARCH_IDENTITIES = 25;

/** Folded text: compatibility-decomposed, combining marks dropped, lower case. */
export const fold = (s: string): string => s.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();

/** A folded word and the span of the original text it came from (UTF-16 offsets). */
export interface Word {
  word: string;
  start: number;
  end: number;
}

const RAW_WORD = /[\p{L}\p{N}\p{M}]+/gu;
const FOLDED_WORD = /[\p{L}\p{N}]+/gu;

/** The words of `text`, in order, each with the span of the original it was folded from. */
export function wordsOf(text: string): Word[] {
  const out: Word[] = [];
  for (const m of text.matchAll(RAW_WORD)) {
    const start = m.index;
    const end = start + m[0].length;
    for (const w of fold(m[0]).matchAll(FOLDED_WORD)) out.push({ word: w[0], start, end });
  }
  return out;
}

/** 32-bit FNV-1a of the UTF-8 bytes of `s`. */
function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(s)) {
    h ^= byte;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** A folded word's 24-bit hash, as a search document stores it (3 bytes). */
export const wordHash = (word: string): number => {
  const h = fnv1a(word);
  return ((h >>> 24) ^ h) & 0xffffff;
};

/** The shard of a message's search document: a hash of its id. */
export const searchShard = (messageId: string): number => fnv1a(messageId) % SEARCH_SHARDS;

/** The fields a message is searched in, in the order a highlight prefers them. */
export const SEARCH_FIELDS = ['subject', 'from', 'to', 'cc', 'text', 'extracted_text', 'attachment'] as const;
export type SearchField = (typeof SEARCH_FIELDS)[number];
export type SearchFields = Record<SearchField, string>;

/** The order a message's words are indexed in (the first MAX_INDEXED_TOKENS distinct ones). */
const TOKEN_ORDER: readonly SearchField[] = [
  'subject',
  'from',
  'to',
  'cc',
  'attachment',
  'extracted_text',
  'text',
];

const mailboxText = (m: Mailbox): string => (m.name ? `${m.name} <${m.address}>` : m.address);

/** A message's searchable fields from its participants, subject and body (null: none). */
export function searchFieldsOf(m: {
  subject: string;
  from: Mailbox;
  to: readonly Mailbox[];
  cc: readonly Mailbox[];
  text: string | null;
  extracted_text: string | null;
  attachments: readonly { filename?: string }[];
}): SearchFields {
  return {
    subject: m.subject,
    from: mailboxText(m.from),
    to: m.to.map(mailboxText).join(', '),
    cc: m.cc.map(mailboxText).join(', '),
    text: m.text ?? '',
    extracted_text: m.extracted_text ?? '',
    attachment: m.attachments.flatMap((a) => (a.filename ? [a.filename] : [])).join(', '),
  };
}

/**
 * A message's search document tokens: the hashes of its first MAX_INDEXED_TOKENS distinct words
 * (subject, participants, attachment names, extracted text, full text), sorted, 3 bytes each.
 */
export function documentTokens(f: SearchFields): Uint8Array {
  const words = new Set<string>();
  outer: for (const field of TOKEN_ORDER) {
    for (const w of wordsOf(f[field])) {
      if (words.size >= MAX_INDEXED_TOKENS) break outer;
      words.add(w.word);
    }
  }
  const hashes = [...new Set([...words].map(wordHash))].sort((a, b) => a - b);
  const out = new Uint8Array(hashes.length * 3);
  hashes.forEach((h, i) => {
    out[i * 3] = h >>> 16;
    out[i * 3 + 1] = (h >>> 8) & 0xff;
    out[i * 3 + 2] = h & 0xff;
  });
  return out;
}

/** Whether a document's sorted 3-byte hashes hold `hash` (a binary search). */
function holds(doc: Uint8Array, hash: number): boolean {
  let lo = 0;
  let hi = doc.length / 3 - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const h = (doc[mid * 3] << 16) | (doc[mid * 3 + 1] << 8) | doc[mid * 3 + 2];
    if (h === hash) return true;
    if (h < hash) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

/** One term of a query: a word, or a phrase (its words adjacent and in order). */
export interface SearchTerm {
  words: string[];
}

const CHUNK = /"([^"]*)"?|[^\s"]+/g;

/**
 * The terms of `q`: its words and "quoted phrases", all of which must match; a chunk with
 * punctuation inside (`brightwell.example`) is the phrase of its words. 400 invalid_query when q is
 * empty, longer than MAX_QUERY_CHARS, has no word or more than MAX_QUERY_WORDS.
 */
export function parseSearchQuery(q: string): SearchTerm[] {
  if (q.length === 0 || q.length > MAX_QUERY_CHARS)
    throw invalidSearchQuery(`q is 1 to ${MAX_QUERY_CHARS} characters.`);
  const terms: SearchTerm[] = [];
  for (const m of q.matchAll(CHUNK)) {
    const words = wordsOf(m[1] ?? m[0]).map((w) => w.word);
    if (words.length > 0) terms.push({ words });
  }
  const count = terms.reduce((n, t) => n + t.words.length, 0);
  if (count === 0) throw invalidSearchQuery('q has no word to search for.');
  if (count > MAX_QUERY_WORDS) throw invalidSearchQuery(`q has more than ${MAX_QUERY_WORDS} words.`);
  return terms;
}

/** The distinct word hashes every matching document holds. */
export const termHashes = (terms: readonly SearchTerm[]): number[] => [
  ...new Set(terms.flatMap((t) => t.words.map(wordHash))),
];

/** Whether a document may match: it holds every hash (a collision can pass: candidates are verified). */
export const documentMayMatch = (doc: Uint8Array, hashes: readonly number[]): boolean =>
  hashes.every((h) => holds(doc, h));

/** A span of a field's text (UTF-16 offsets, `end` exclusive). */
export interface Span {
  start: number;
  end: number;
}

/** The spans of `field` where `term` occurs: its words adjacent and in order. */
function occurrences(words: readonly Word[], term: SearchTerm): Span[] {
  const out: Span[] = [];
  const n = term.words.length;
  for (let i = 0; i + n <= words.length; i++) {
    let k = 0;
    while (k < n && words[i + k].word === term.words[k]) k++;
    if (k === n) out.push({ start: words[i].start, end: words[i + n - 1].end });
  }
  return out;
}

/** A result's highlight: a plain-text excerpt of the first field that matched, and where inside it. */
export interface Highlight {
  field: SearchField;
  text: string;
  matches: Span[];
}

/**
 * Whether the message matches every term (each in any field) and, when it does, its highlight:
 * the first field (SEARCH_FIELDS order) where a term occurs, an excerpt of at most HIGHLIGHT_CHARS
 * around its first occurrence, and every occurrence inside the excerpt (offsets into the excerpt).
 */
export function matchMessage(f: SearchFields, terms: readonly SearchTerm[]): Highlight | undefined {
  const spans = new Map<SearchField, Span[]>();
  const found = new Set<number>();
  for (const field of SEARCH_FIELDS) {
    if (!f[field]) continue;
    const words = wordsOf(f[field]);
    const here = terms.flatMap((t, i) => {
      const o = occurrences(words, t);
      if (o.length) found.add(i);
      return o;
    });
    if (here.length)
      spans.set(
        field,
        here.sort((a, b) => a.start - b.start),
      );
  }
  if (found.size < terms.length) return undefined;
  const [field, at] = [...spans][0];
  return excerpt(field, f[field], at);
}

/** The excerpt of `text` around its first span, with the spans it holds; whitespace shown as spaces. */
export function excerpt(field: SearchField, text: string, spans: readonly Span[]): Highlight {
  let start = 0;
  if (text.length > HIGHLIGHT_CHARS) {
    start = Math.max(0, Math.min(spans[0].start - 40, text.length - HIGHLIGHT_CHARS));
    // Start at a word: past the first space after the cut, when it comes before the match.
    const space = start > 0 ? text.indexOf(' ', start - 1) : -1;
    if (space >= 0 && space < spans[0].start) start = space + 1;
    if (isLowSurrogate(text.charCodeAt(start))) start++;
  }
  let end = Math.min(text.length, start + HIGHLIGHT_CHARS);
  if (end < text.length && isLowSurrogate(text.charCodeAt(end))) end--;
  return {
    field,
    text: text.slice(start, end).replace(/\s/g, ' '),
    matches: spans
      .filter((s) => s.start >= start && s.end <= end)
      .map((s) => ({ start: s.start - start, end: s.end - start })),
  };
}

const isLowSurrogate = (c: number) => c >= 0xdc00 && c <= 0xdfff;
