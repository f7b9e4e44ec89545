import { useEffect, useState } from 'preact/hooks';

/**
 * Full-text search in the console (docs/guides/console.md › Search): the box that sends `q` with a
 * list's call, and a hit's highlight. A highlight's text is mail from outside: it is split into
 * text nodes at the API's offsets, the matched parts wrapped in <mark>, and never parsed as HTML.
 */
export interface Highlight {
  field: string;
  text: string;
  /** Offsets in UTF-16 code units inside `text`, as a JavaScript string indexes it. */
  matches: { start: number; end: number }[];
}

/** The parts of `text` in order, each marked or not; matches out of range or overlapping an earlier one are left unmarked. */
export function highlightParts(h: Highlight): { text: string; marked: boolean }[] {
  const parts: { text: string; marked: boolean }[] = [];
  let at = 0;
  const ordered = [...h.matches].sort((a, b) => a.start - b.start);
  for (const { start, end } of ordered) {
    if (
      !Number.isInteger(start) ||
      !Number.isInteger(end) ||
      start < at ||
      end <= start ||
      end > h.text.length
    ) {
      continue;
    }
    if (start > at) parts.push({ text: h.text.slice(at, start), marked: false });
    parts.push({ text: h.text.slice(start, end), marked: true });
    at = end;
  }
  if (at < h.text.length) parts.push({ text: h.text.slice(at), marked: false });
  return parts;
}

/** A hit's highlight: the field it was found in, then its text with the matched parts marked. */
export function HighlightText({ highlight }: { highlight?: Highlight | null }) {
  if (!highlight) return null;
  return (
    <div class="hint highlight">
      <span class="field">{highlight.field}:</span>{' '}
      {highlightParts(highlight).map((p, i) => (p.marked ? <mark key={i}>{p.text}</mark> : p.text))}
    </div>
  );
}

/**
 * The search box of a list page: its words go to the list call as `q` when submitted (Enter or
 * **Search**); **Clear** empties it.
 */
export function SearchBox({ q, onSearch }: { q: string; onSearch: (q: string) => void }) {
  const [draft, setDraft] = useState(q);
  useEffect(() => setDraft(q), [q]);
  return (
    <search>
      <form
        class="inline search"
        onSubmit={(e) => {
          e.preventDefault();
          onSearch(draft.trim());
        }}
      >
        <label>
          Search
          <input
            type="search"
            value={draft}
            maxLength={500}
            placeholder={'words or "a phrase"'}
            onInput={(e) => setDraft((e.target as HTMLInputElement).value)}
          />
        </label>
        <button type="submit">Search</button>
        {q ? (
          <button type="button" class="secondary" onClick={() => onSearch('')}>
            Clear
          </button>
        ) : null}
      </form>
    </search>
  );
}
