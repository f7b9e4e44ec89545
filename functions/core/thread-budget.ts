/**
 * A thread read in one call under a budget of characters (docs/guides/receiving.md › Reading a
 * thread under a budget), pure. The thread's messages, oldest first, each have a whole text (`text`)
 * and a shorter one (`extracted_text`: a received message's new text without quoted history and
 * signature; a sent message's text). The budget `max_chars` bounds the sum of the characters
 * (Unicode code points) of the texts the view returns:
 *
 *   1. every message whole, if that fits;
 *   2. else the fewest oldest messages trimmed to their extracted text, oldest first, so the newest
 *      stay whole (the newest is trimmed last, once every older one is);
 *   3. else the fewest oldest messages left out (`omitted`), each of the rest whole or trimmed as in 2;
 *   4. the newest alone, trimmed, still over: its extracted text cut to `max_chars` (`cut`).
 *
 * Among the views that fit, the one that leaves out the fewest messages, then trims the fewest. With
 * `prefer: 'extracted'` every message starts trimmed (step 2 done), and the budget only leaves out
 * or cuts. A message without text costs nothing and is never left out for its own sake.
 */

export const THREAD_MAX_CHARS_DEFAULT = 20_000;
export const THREAD_MAX_CHARS_MIN = 200;
export const THREAD_MAX_CHARS_MAX = 500_000;

export type TextForm = 'whole' | 'extracted' | 'cut';

export interface BudgetInput {
  text: string | null;
  extracted_text: string | null;
}

export interface BudgetedThread {
  /** One per message, oldest first; `null` for a message left out. */
  views: ({ text: string | null; form: TextForm } | null)[];
  /** Characters of every returned text together, at most `max_chars`. */
  used_chars: number;
  /** The oldest messages left out. */
  omitted: number;
  /** Messages shown as their extracted text (the newest, cut, counted too). */
  trimmed: number;
  /** The newest message's extracted text was cut to fit. */
  cut: boolean;
}

/** Characters as the budget counts them: Unicode code points. */
export const charCount = (s: string | null): number => (s === null ? 0 : [...s].length);

const shorter = (m: BudgetInput) => m.extracted_text ?? m.text;

export function budgetThread(
  messages: readonly BudgetInput[],
  maxChars: number,
  prefer: 'whole' | 'extracted' = 'whole',
): BudgetedThread {
  const n = messages.length;
  const whole = messages.map((m) => charCount(m.text));
  const trim = messages.map((m) => charCount(shorter(m)));
  // wholeFrom[i]: the whole texts of messages i… together; trimPrefix[i]: the trimmed ones of messages …i-1.
  const wholeFrom = Array<number>(n + 1).fill(0);
  for (let i = n - 1; i >= 0; i--) wholeFrom[i] = wholeFrom[i + 1] + whole[i];
  const trimPrefix = Array<number>(n + 1).fill(0);
  for (let i = 0; i < n; i++) trimPrefix[i + 1] = trimPrefix[i] + trim[i];
  for (let d = 0; d < n; d++) {
    const kept = n - d;
    for (let t = prefer === 'extracted' ? kept : 0; t <= kept; t++) {
      const cost = trimPrefix[d + t] - trimPrefix[d] + wholeFrom[d + t];
      if (cost <= maxChars) return viewOf(messages, d, t, cost);
    }
  }
  if (n === 0) return { views: [], used_chars: 0, omitted: 0, trimmed: 0, cut: false };
  const newest = [...(shorter(messages[n - 1]) ?? '')].slice(0, maxChars).join('');
  return {
    views: [...Array(n - 1).fill(null), { text: newest, form: 'cut' }],
    used_chars: charCount(newest),
    omitted: n - 1,
    trimmed: 1,
    cut: true,
  };
}

function viewOf(messages: readonly BudgetInput[], d: number, t: number, cost: number): BudgetedThread {
  return {
    views: messages.map((m, i) =>
      i < d
        ? null
        : i < d + t
          ? { text: shorter(m), form: 'extracted' as const }
          : { text: m.text, form: 'whole' as const },
    ),
    used_chars: cost,
    omitted: d,
    trimmed: t,
    cut: false,
  };
}
