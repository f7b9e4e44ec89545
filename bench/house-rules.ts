/**
 * The house rules of CONTRIBUTING.md › House rules, as patterns and limits: what `npm run shape`
 * counts and what test/unit/provenance.test.ts and test/unit/function-length.test.ts refuse.
 */
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/** The longest a function may be, in lines (its signature to its closing brace). */
export const FUNCTION_LINES = 60;

/** Where comments, test titles and docs are read for citations (folders and files of the repository). */
export const PROSE = [
  'functions',
  'lib',
  'bin',
  'docs',
  'openapi.yaml',
  'statemachines',
  'deploy',
  'README.md',
  'CONTRIBUTING.md',
  'bench',
  'console/src',
  'packages/client/src',
  'packages/client/README.md',
  '.ci',
  'test',
] as const;

/** Citations of documents a reader of the repository cannot open: a specification, its seeds, its design file. */
export const OUTSIDE_CITATIONS: readonly RegExp[] = [
  /\bDESIGN\b/,
  /TOOLCHAIN\.md/,
  /STYLE\.md/,
  /provider-outcomes\.md/,
  /\bseed 00\d/i,
  /\bseed['’]s\b/i,
  /\bseed step\b/i,
  /\(seed:/i,
  /\bseeds\//,
  /\.\.\/shared\b/,
  /(?<![\w/.-])design ›/i,
];

/**
 * Requirement ids of a specification no document in the repository defines: `FR-OUT-5`, `C4`,
 * `A10`. The control-character sets C0 and C1 are names, not ids; a percent- or Q-encoded byte
 * (`%C3`, `=E9`) is not an id either.
 */
export const REQUIREMENT_IDS: readonly RegExp[] = [
  /\bN?FR-[A-Z]{2,5}(?:-\d+)?\b/,
  /(?<![\w%=-])(?:[ADEGO]\d{1,2}|C(?:[2-9]|\d\d))(?![\w%=-])/,
];

/** Issue numbers: the tracker is not part of the repository. */
export const ISSUE_LABELS: readonly RegExp[] = [/\bissues? #?\d/i];

/** Every file under `paths` of `root` (each a folder or a file; repository-relative, sorted). */
export function filesUnder(root: string, paths: readonly string[]): string[] {
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

/** The TypeScript sources (not declarations) under `paths` of `root`. */
export const tsSources = (root: string, paths: readonly string[]): string[] =>
  filesUnder(root, paths).filter((f) => /\.tsx?$/.test(f) && !f.endsWith('.d.ts'));
