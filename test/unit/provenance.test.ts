import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The code and the docs point only into the repository: no issue numbers, and no citations of
 * documents a reader of this repository cannot open (a specification's sections, a design file, a
 * provider notes file). A comment says its reason in place or cites a file under docs/.
 */
const ROOT = resolve(import.meta.dirname, '../..');
const SCANNED = ['functions', 'lib', 'bin', 'docs'];
const FORBIDDEN: readonly RegExp[] = [/issue \d/i, /DESIGN §/, /seed 00/i, /provider-outcomes\.md/];

/** Every text file under `dirs` of `root` (repository-relative paths, sorted). */
function filesUnder(root: string, dirs: readonly string[]): string[] {
  return dirs
    .flatMap((dir) =>
      readdirSync(join(root, dir), { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile())
        .map((e) => relative(root, join(e.parentPath, e.name))),
    )
    .sort();
}

/** `file:line: text` for every line of those files that matches a forbidden pattern. */
function provenanceOffences(root: string, dirs: readonly string[]): string[] {
  const offences: string[] = [];
  for (const file of filesUnder(root, dirs)) {
    const text = readFileSync(join(root, file), 'utf8');
    if (text.includes('\u0000')) continue; // binary
    text.split('\n').forEach((line, i) => {
      if (FORBIDDEN.some((p) => p.test(line))) offences.push(`${file}:${i + 1}: ${line.trim()}`);
    });
  }
  return offences;
}

describe('provenance: functions/, lib/, bin/ and docs/ cite only what the repository holds', () => {
  it('reads every folder it checks', () => {
    for (const dir of SCANNED) expect(filesUnder(ROOT, [dir]).length, dir).toBeGreaterThan(0);
  });

  it('names the file and line of each citation it refuses, and passes a clean one', () => {
    const root = mkdtempSync(join(tmpdir(), 'pmail-provenance-'));
    try {
      mkdirSync(join(root, 'src/deep'), { recursive: true });
      writeFileSync(join(root, 'src/a.ts'), '// fine\n// see Issue 7\n');
      writeFileSync(join(root, 'src/deep/b.md'), 'DESIGN § 4\nok\nSeed 003 › X and provider-outcomes.md\n');
      writeFileSync(join(root, 'src/clean.ts'), '// docs/architecture.md › Layers: the reason in place\n');
      expect(provenanceOffences(root, ['src'])).toEqual([
        'src/a.ts:2: // see Issue 7',
        'src/deep/b.md:1: DESIGN § 4',
        'src/deep/b.md:3: Seed 003 › X and provider-outcomes.md',
      ]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('finds no issue number, DESIGN §, seed 00x or provider-outcomes.md', () => {
    const offences = provenanceOffences(ROOT, SCANNED);
    expect(offences, `cite docs/… or say the reason in place:\n${offences.join('\n')}`).toEqual([]);
  });
});
