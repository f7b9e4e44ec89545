import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The code, the tests and the docs point only into the repository: no issue numbers, and no
 * citations of documents a reader of this repository cannot open (a specification's sections, a
 * design file, a provider notes file, toolchain or style notes). A comment or a test title says its
 * reason in place or cites a file under docs/.
 */
const ROOT = resolve(import.meta.dirname, '../..');
const SCANNED = [
  'functions',
  'lib',
  'bin',
  'docs',
  'openapi.yaml',
  'bench',
  'console/src',
  'packages/client/src',
  'packages/client/README.md',
  '.ci',
  'test',
];
/** This file: its patterns and fixtures are the forbidden strings themselves. */
const SELF = relative(ROOT, import.meta.filename);
const FORBIDDEN: readonly RegExp[] = [
  /\bissues? #?\d/i,
  /DESIGN ?§/,
  /DESIGN\.md/,
  /TOOLCHAIN\.md/,
  /STYLE\.md/,
  /\bseed 00\d/i,
  /\bseed['’]s\b/i,
  /provider-outcomes\.md/,
];

/** Every file under `paths` of `root` (each a folder or a file; repository-relative, sorted). */
function filesUnder(root: string, paths: readonly string[]): string[] {
  return paths
    .flatMap((path) =>
      statSync(join(root, path)).isFile()
        ? [path]
        : readdirSync(join(root, path), { recursive: true, withFileTypes: true })
            .filter((e) => e.isFile())
            .map((e) => relative(root, join(e.parentPath, e.name))),
    )
    .filter((file) => !file.split('/').includes('node_modules'))
    .sort();
}

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

describe('provenance: the code, the tests and the docs cite only what the repository holds', () => {
  it('reads every folder and file it checks', () => {
    for (const path of SCANNED) expect(filesUnder(ROOT, [path]).length, path).toBeGreaterThan(0);
  });

  it('skips only itself, a file that exists', () => {
    expect(filesUnder(ROOT, [SELF]).length).toBeGreaterThan(0);
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
      expect(provenanceOffences(root, ['src', 'top.yaml'], ['src/later', 'src/e.ts'])).toEqual([
        'src/a.ts:2: // see Issue 7',
        'src/a.ts:3: // issues #12 and 14',
        'src/deep/b.md:1: DESIGN § 4',
        'src/deep/b.md:3: Seed 003 › X and provider-outcomes.md',
        'src/deep/c.md:1: TOOLCHAIN.md',
        'src/deep/c.md:2: STYLE.md › X',
        'src/deep/c.md:3: DESIGN.md',
        'src/deep/c.md:4: the seed’s rule',
        'top.yaml:1: description: see DESIGN §3',
      ]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('finds no issue number, DESIGN §, DESIGN.md, TOOLCHAIN.md, STYLE.md, seed 00x, seed’s or provider-outcomes.md', () => {
    const offences = provenanceOffences(ROOT, SCANNED, [SELF]);
    expect(offences, `cite docs/… or say the reason in place:\n${offences.join('\n')}`).toEqual([]);
  });
});
