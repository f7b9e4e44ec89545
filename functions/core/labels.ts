import { type FieldError, invalidLabel, labelAddedAndRemoved, tooManyLabels } from './errors.ts';
import { MAX_LABEL_CHARS, MAX_LABELS } from './limits.ts';

/**
 * Labels as state on a message or a thread (docs/guides/receiving.md › Labels): the rules of a
 * change. Pure: store/labels.store.ts writes the result, functions/labels/change-labels.ts decides.
 *
 * - A label a change adds is 1–64 characters of letters, digits and `. _ : / -`, starting with a
 *   letter or digit, compared exactly (case-sensitive): `needs-reply`, `crm:lead/42`.
 * - At most MAX_LABELS labels per message or thread, after the change.
 * - Labels a send set (1–64 characters of anything) are kept as sent: they count, show and can be
 *   removed, but a change never adds a label outside the alphabet.
 * - A change adds before it removes nothing it adds: a label in both lists is refused.
 */
export const LABEL_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,63}$/;
export { MAX_LABELS };

/** One change of labels, as a request gives it. */
export interface LabelChange {
  add: readonly string[];
  remove: readonly string[];
}

/** What a change does to one set of labels: the labels after it, and what it really added and removed. */
export interface LabelOutcome {
  labels: string[];
  added: string[];
  removed: string[];
}

/** The change's own refusals: labels outside the alphabet, a label both added and removed, too many named. */
export function checkLabelChange(change: LabelChange): void {
  const errors: FieldError[] = [];
  change.add.forEach((l, i) => {
    if (!LABEL_PATTERN.test(l)) errors.push({ path: `add[${i}]`, message: labelRule });
  });
  change.remove.forEach((l, i) => {
    if (l.length === 0 || l.length > MAX_LABEL_CHARS) {
      errors.push({ path: `remove[${i}]`, message: `1 to ${MAX_LABEL_CHARS} characters` });
    }
  });
  if (errors.length) throw invalidLabel(errors);
  const both = change.add.filter((l) => change.remove.includes(l));
  if (both.length) {
    throw labelAddedAndRemoved(both);
  }
}

const labelRule = `1 to ${MAX_LABEL_CHARS} of A-Z a-z 0-9 . _ : / -, starting with a letter or digit`;

/**
 * The labels after `change` on `current` (their order kept, new ones after them in the change's
 * order): adding a label there already and removing one not there change nothing. Past
 * MAX_LABELS: 409 too_many_labels.
 */
export function applyLabelChange(current: readonly string[], change: LabelChange): LabelOutcome {
  const removed = current.filter((l) => change.remove.includes(l));
  const kept = current.filter((l) => !change.remove.includes(l));
  const added = [...new Set(change.add)].filter((l) => !kept.includes(l));
  const labels = [...kept, ...added];
  if (added.length && labels.length > MAX_LABELS) throw tooManyLabels(MAX_LABELS, labels.length);
  return { labels, added, removed };
}

/** Whether the outcome changes anything (an unchanged set is answered without a write). */
export const changesLabels = (o: LabelOutcome): boolean => o.added.length > 0 || o.removed.length > 0;
