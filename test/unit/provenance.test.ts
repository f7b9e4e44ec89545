import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  filesUnder,
  ISSUE_LABELS,
  OUTSIDE_CITATIONS,
  PROSE,
  REQUIREMENT_IDS,
} from '../../bench/house-rules.ts';

/**
 * The code, the tests and the docs point only into the repository: no issue numbers, and no
 * citations of documents a reader of this repository cannot open (a specification's sections, a
 * design file, a provider notes file, toolchain or style notes, a requirement id such as FR-OUT-5).
 * A comment or a test title says its reason in place or cites a file under docs/. The patterns are
 * bench/house-rules.ts's, which `npm run shape` counts.
 */
const ROOT = resolve(import.meta.dirname, '../..');
const SCANNED = PROSE;
/** This file and the patterns' own: their fixtures and patterns are the forbidden strings themselves. */
const SELF = relative(ROOT, import.meta.filename);
const PATTERNS = 'bench/house-rules.ts';
const FORBIDDEN: readonly RegExp[] = [...OUTSIDE_CITATIONS, ...REQUIREMENT_IDS, ...ISSUE_LABELS];

const skipped = (file: string, skip: readonly string[]) =>
  skip.some((s) => file === s || file.startsWith(`${s}/`));

/** `file:line: text` for every line of those files (but `skip`) that matches a forbidden pattern. */
function provenanceOffences(root: string, paths: readonly string[], skip: readonly string[] = []): string[] {
  const offences: string[] = [];
  for (const file of filesUnder(root, paths)) {
    if (skipped(file, skip)) continue;
    const text = readFileSync(join(root, file), 'utf8');
    if (text.includes('\u0000')) continue; // binary
    text.split('\n').forEach((line, i) => {
      if (FORBIDDEN.some((p) => p.test(line))) offences.push(`${file}:${i + 1}: ${line.trim()}`);
    });
  }
  return offences;
}

/** How many steps docs/architecture.md › The submit path numbers (its top-level list). */
function submitSteps(root: string): number {
  const doc = readFileSync(join(root, 'docs/architecture.md'), 'utf8');
  const start = doc.indexOf('## The submit path');
  const section = doc.slice(start, doc.indexOf('\n## ', start + 1));
  return section.split('\n').filter((l) => /^\d+\. \*\*/.test(l)).length;
}

/**
 * `file:line: text` for every line that names a step of the submit path beyond the ones
 * docs/architecture.md numbers, or a send check as a "policy step" (the checks are "check N").
 */
function numberingOffences(root: string, paths: readonly string[], steps: number): string[] {
  const offences: string[] = [];
  for (const file of filesUnder(root, paths)) {
    const text = readFileSync(join(root, file), 'utf8');
    if (text.includes('\u0000')) continue;
    text.split('\n').forEach((line, i) => {
      const named = [...line.matchAll(/submit path[^.;]{0,12}?\bsteps? (\d+)/gi)].map((m) => Number(m[1]));
      if (named.some((n) => n > steps) || /\bpolicy steps? \d/i.test(line))
        offences.push(`${file}:${i + 1}: ${line.trim()}`);
    });
  }
  return offences;
}

describe('provenance: the code, the tests and the docs cite only what the repository holds', () => {
  it('reads every folder and file it checks', () => {
    for (const path of SCANNED) expect(filesUnder(ROOT, [path]).length, path).toBeGreaterThan(0);
  });

  it('skips only itself and its patterns, files that exist', () => {
    for (const file of [SELF, PATTERNS]) expect(filesUnder(ROOT, [file]), file).toEqual([file]);
  });

  it('names the file and line of each citation it refuses, and passes a clean one', () => {
    const root = mkdtempSync(join(tmpdir(), 'pmail-provenance-'));
    try {
      mkdirSync(join(root, 'src/deep'), { recursive: true });
      mkdirSync(join(root, 'src/later'), { recursive: true });
      writeFileSync(join(root, 'src/a.ts'), '// fine\n// see Issue 7\n// issues #12 and 14\n');
      writeFileSync(join(root, 'src/deep/b.md'), 'DESIGN § 4\nok\nSeed 003 › X and provider-outcomes.md\n');
      writeFileSync(join(root, 'src/deep/c.md'), 'TOOLCHAIN.md\nSTYLE.md › X\nDESIGN.md\nthe seed’s rule\n');
      writeFileSync(join(root, 'src/clean.ts'), '// docs/architecture.md › Layers: the reason in place\n');
      writeFileSync(join(root, 'src/names.ts'), 'seedRefusalOf(x); const seed = 20_310_115; seed_code;\n');
      writeFileSync(join(root, 'src/later/d.ts'), '// seed 002\n');
      writeFileSync(join(root, 'src/e.ts'), '// issue 9\n');
      writeFileSync(join(root, 'top.yaml'), 'description: see DESIGN §3\n');
      writeFileSync(
        join(root, 'src/outside.ts'),
        [
          '// the recipients (design › Recipients)',
          '// counts as a duplicate (seed step 2)',
          '// refreshed (seed: BeginTransport)',
          '// read ../shared/seeds/003.md',
          '// waits only (DESIGN 6)',
          '// see docs/design/ordering.md › Feeds',
        ].join('\n'),
      );
      writeFileSync(
        join(root, 'src/ids.ts'),
        [
          '// takes the thread lock (C4)',
          '/** FR-OUT-5: the From */',
          '// reply-all removes them (A10); NFR-PERF-2',
          '/** D6: automatic replies */',
          '// control characters (C0, DEL, C1), S3, UTF-8, I1 to I4, %C3%9C and =E9',
          "const FIRST_DATE = 'x'; // A-17",
        ].join('\n'),
      );
      expect(provenanceOffences(root, ['src', 'top.yaml'], ['src/later', 'src/e.ts'])).toEqual([
        'src/a.ts:2: // see Issue 7',
        'src/a.ts:3: // issues #12 and 14',
        'src/deep/b.md:1: DESIGN § 4',
        'src/deep/b.md:3: Seed 003 › X and provider-outcomes.md',
        'src/deep/c.md:1: TOOLCHAIN.md',
        'src/deep/c.md:2: STYLE.md › X',
        'src/deep/c.md:3: DESIGN.md',
        'src/deep/c.md:4: the seed’s rule',
        'src/ids.ts:1: // takes the thread lock (C4)',
        'src/ids.ts:2: /** FR-OUT-5: the From */',
        'src/ids.ts:3: // reply-all removes them (A10); NFR-PERF-2',
        'src/ids.ts:4: /** D6: automatic replies */',
        'src/outside.ts:1: // the recipients (design › Recipients)',
        'src/outside.ts:2: // counts as a duplicate (seed step 2)',
        'src/outside.ts:3: // refreshed (seed: BeginTransport)',
        'src/outside.ts:4: // read ../shared/seeds/003.md',
        'src/outside.ts:5: // waits only (DESIGN 6)',
        'top.yaml:1: description: see DESIGN §3',
      ]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('finds no issue number, DESIGN, TOOLCHAIN.md, STYLE.md, seed 00x, seed’s, seed step, design ›, ../shared, provider-outcomes.md or requirement id', () => {
    const offences = provenanceOffences(ROOT, SCANNED, [SELF, PATTERNS]);
    expect(offences, `cite docs/… or say the reason in place:\n${offences.join('\n')}`).toEqual([]);
  });
  it('numbers the submit path as docs/architecture.md does, and names a send check "check N"', () => {
    const steps = submitSteps(ROOT);
    expect(steps).toBeGreaterThanOrEqual(5);
    const root = mkdtempSync(join(tmpdir(), 'pmail-numbering-'));
    try {
      mkdirSync(join(root, 'src'));
      writeFileSync(
        join(root, 'src/a.ts'),
        [
          '// docs/architecture.md › The submit path, step 4',
          `// docs/architecture.md › The submit path, step ${steps + 1}`,
          '/** Step 5 (policy step 16) */',
          '// check 16, the recipient filters',
        ].join('\n'),
      );
      expect(numberingOffences(root, ['src'], steps)).toEqual([
        `src/a.ts:2: // docs/architecture.md › The submit path, step ${steps + 1}`,
        'src/a.ts:3: /** Step 5 (policy step 16) */',
      ]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
    const offences = numberingOffences(ROOT, SCANNED, steps).filter((o) => !o.startsWith(`${SELF}:`));
    expect(offences, 'use the step numbers of docs/architecture.md › The submit path').toEqual([]);
  });
});
