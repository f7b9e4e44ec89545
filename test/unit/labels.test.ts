import { describe, expect, it } from 'vitest';
import { PmailError } from '../../functions/core/errors.ts';
import {
  applyLabelChange,
  checkLabelChange,
  LABEL_PATTERN,
  MAX_LABELS,
} from '../../functions/core/labels.ts';

/** core/labels.ts: the label alphabet, and what a change does to a set of labels. */
describe('LABEL_PATTERN', () => {
  it.each([
    ['needs-reply', true],
    ['crm:lead/42', true],
    ['A.b_c', true],
    ['x'.repeat(64), true],
    ['x'.repeat(65), false],
    ['', false],
    ['-leading', false],
    ['has space', false],
    ['émoji', false],
    ['a,b', false],
  ])('%s → %s', (label, ok) => {
    expect(LABEL_PATTERN.test(label)).toBe(ok);
  });
});

const code = (f: () => unknown) => {
  try {
    f();
    return undefined;
  } catch (e) {
    return e instanceof PmailError ? e.code : 'thrown';
  }
};

describe('checkLabelChange', () => {
  it.each([
    [{ add: ['ok'], remove: [] }, undefined],
    [{ add: ['bad label'], remove: [] }, 'invalid_label'],
    [{ add: [], remove: ['Any Send Label!'] }, undefined],
    [{ add: [], remove: [''] }, 'invalid_label'],
    [{ add: ['x'], remove: ['x'] }, 'invalid_request'],
  ])('%j → %s', (change, expected) => {
    expect(code(() => checkLabelChange(change))).toBe(expected);
  });
});

describe('applyLabelChange', () => {
  it.each([
    [[], { add: ['a', 'b', 'a'], remove: [] }, { labels: ['a', 'b'], added: ['a', 'b'], removed: [] }],
    [['a'], { add: ['a'], remove: [] }, { labels: ['a'], added: [], removed: [] }],
    [['a', 'b'], { add: [], remove: ['a', 'z'] }, { labels: ['b'], added: [], removed: ['a'] }],
    [
      ['Sent Label', 'b'],
      { add: ['c'], remove: ['Sent Label'] },
      { labels: ['b', 'c'], added: ['c'], removed: ['Sent Label'] },
    ],
  ])('%j with %j → %j', (current, change, outcome) => {
    expect(applyLabelChange(current, change)).toEqual(outcome);
  });

  it('refuses a change past MAX_LABELS, but not one that removes as many as it adds, nor a removal', () => {
    const full = Array.from({ length: MAX_LABELS }, (_, i) => `l${i}`);
    expect(code(() => applyLabelChange(full, { add: ['x'], remove: [] }))).toBe('too_many_labels');
    expect(applyLabelChange(full, { add: ['x'], remove: ['l0'] }).labels).toHaveLength(MAX_LABELS);
    const over = [...full, 'extra'];
    expect(applyLabelChange(over, { add: [], remove: ['extra'] }).labels).toHaveLength(MAX_LABELS);
  });
});
