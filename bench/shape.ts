/**
 * The numbers that say how long the way through the code is (CONTRIBUTING.md › The shape, counted):
 * the submit use case's length, the functions over the budget, citations of documents outside the
 * repository, refusals built inline, rules written more than once, repeated blocks in the console.
 *
 *   npm run shape                     # this checkout
 *   npm run shape -- --root DIR       # another checkout (e.g. a `git worktree add` of an older commit)
 *
 * Function lengths are read with the TypeScript compiler API (bench/function-lengths.ts); the
 * rest are line patterns, printed with the pattern so a count can be checked by hand.
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import ts from 'typescript';
import { type FunctionLength, functionLengths } from './function-lengths.ts';
import {
  FUNCTION_LINES,
  filesUnder,
  ISSUE_LABELS,
  OUTSIDE_CITATIONS,
  PROSE,
  REQUIREMENT_IDS,
  tsSources,
} from './house-rules.ts';

/** Generated from openapi.yaml: its text is counted there. */
const GENERATED = 'packages/client/src/schema.ts';
const TIME_ZONE_DEFAULT = /time_?zone\s*(?:\?\?|\|\|)\s*['"]UTC['"]/gi;
const COUNTER_EXPIRY =
  /\b48\s*\*\s*(?:3600_?000|3_600_000|60\s*\*\s*60\s*\*\s*1000|HOUR(?:_MS)?)\b|172_?800_?000/g;
/** A repeated block: this many consecutive non-trivial lines found again elsewhere. */
const BLOCK_LINES = 6;

const argv = process.argv.slice(2);
const rootAt = argv.indexOf('--root');
const ROOT = resolve(rootAt >= 0 ? argv[rootAt + 1] : process.cwd());
const present = (paths: readonly string[]) => paths.filter((p) => existsSync(join(ROOT, p)));
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');
const lineCount = (file: string) => read(file).split('\n').length - (read(file).endsWith('\n') ? 1 : 0);

const lengths = (paths: readonly string[]): FunctionLength[] =>
  tsSources(ROOT, present(paths)).flatMap((f) => functionLengths(join(ROOT, f), ROOT));

/** The longest function of that name in those folders. */
function lengthOf(name: string, paths: readonly string[]): FunctionLength | undefined {
  return lengths(paths)
    .filter((f) => f.name === name)
    .sort((a, b) => b.lines - a.lines)[0];
}

/** The submit use case's files: send/submit.ts, or the phase files it is split into. */
const submitFiles = () =>
  tsSources(ROOT, present(['functions/send'])).filter(
    (f) => basename(f).startsWith('submit') || f.startsWith('functions/send/submit/'),
  );

/** `file:line: text` of every line matching one of the patterns. */
function matches(patterns: readonly RegExp[], paths: readonly string[]): string[] {
  const out: string[] = [];
  for (const file of filesUnder(ROOT, present(paths))) {
    if (file === GENERATED || file === 'bench/house-rules.ts' || file.endsWith('provenance.test.ts'))
      continue;
    const text = read(file);
    if (text.includes('\u0000')) continue;
    text.split('\n').forEach((line, i) => {
      if (patterns.some((p) => p.test(line))) out.push(`${file}:${i + 1}: ${line.trim().slice(0, 120)}`);
    });
  }
  return out;
}

/** Every `new PmailError(code, …)`: the file and the code (undefined when not a literal). */
function pmailErrors(): { file: string; code: string | undefined }[] {
  const found: { file: string; code: string | undefined }[] = [];
  for (const file of tsSources(ROOT, present(['functions', 'bin', 'lib']))) {
    const source = ts.createSourceFile(file, read(file), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      if (ts.isNewExpression(node) && node.expression.getText(source) === 'PmailError') {
        const first = node.arguments?.[0];
        found.push({ file, code: first && ts.isStringLiteralLike(first) ? first.text : undefined });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

/** Occurrences of a regular expression in the TypeScript under functions/, bin/ and lib/. */
function written(pattern: RegExp): string[] {
  return tsSources(ROOT, present(['functions', 'bin', 'lib'])).flatMap((file) =>
    read(file)
      .split('\n')
      .flatMap((line, i) => [...line.matchAll(pattern)].map(() => `${file}:${i + 1}: ${line.trim()}`)),
  );
}

/**
 * Blocks of BLOCK_LINES consecutive non-trivial lines (trimmed; lines of only brackets, tags' ends
 * or imports left out) that occur in two or more places of console/src; each maximal run of such
 * windows in a file is one occurrence.
 */
function repeatedBlocks(): { occurrences: number; distinct: number } {
  const trivial = (l: string) => l === '' || /^[\])}>;,/]*$/.test(l) || l.startsWith('import ');
  const files = filesUnder(ROOT, present(['console/src'])).filter((f) => /\.tsx?$/.test(f));
  const windows = new Map<string, number>();
  const perFile = files.map((file) => {
    const lines = read(file)
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => !trivial(l));
    const keys = lines
      .slice(0, Math.max(0, lines.length - BLOCK_LINES + 1))
      .map((_, i) => lines.slice(i, i + BLOCK_LINES).join('\n'));
    for (const k of keys) windows.set(k, (windows.get(k) ?? 0) + 1);
    return keys;
  });
  let occurrences = 0;
  const firsts = new Set<string>();
  for (const keys of perFile) {
    keys.forEach((k, i) => {
      if ((windows.get(k) ?? 0) < 2) return;
      if (i > 0 && (windows.get(keys[i - 1]) ?? 0) >= 2) return;
      occurrences += 1;
      firsts.add(k);
    });
  }
  return { occurrences, distinct: firsts.size };
}

function report(): void {
  const row = (label: string, value: string | number) => console.log(`${label.padEnd(52)} ${value}`);
  const show = (lines: string[], limit = 40) => {
    for (const l of lines.slice(0, limit)) console.log(`    ${l}`);
    if (lines.length > limit) console.log(`    … ${lines.length - limit} more`);
  };
  console.log(`shape of ${ROOT}\n`);

  const submit = lengthOf('submit', ['functions/send']);
  const decide = lengthOf('decideSubmit', ['functions/core']);
  const session = lengthOf('runSession', ['functions/transports']);
  row('submit() lines', submit ? `${submit.lines} (${submit.file})` : 'not found');
  row('decideSubmit lines', decide ? `${decide.lines} (${decide.file})` : 'not found');
  row('runSession lines', session ? `${session.lines} (${session.file})` : 'not found');
  const phases = submitFiles();
  row('submit use case files, lines', `${phases.reduce((n, f) => n + lineCount(f), 0)} in ${phases.length}`);
  show(phases.map((f) => `${String(lineCount(f)).padStart(5)}  ${f}`));

  const over = (paths: string[]) =>
    lengths(paths)
      .filter((f) => f.lines > FUNCTION_LINES)
      .sort((a, b) => b.lines - a.lines);
  const overFunctions = over(['functions']);
  row(`functions over ${FUNCTION_LINES} lines in functions/`, overFunctions.length);
  show(overFunctions.map((f) => `${String(f.lines).padStart(5)}  ${f.file} › ${f.name}`));
  const overElsewhere = over(['bin', 'console/src', 'packages/client/src']);
  row(`… in bin/, console/src, packages/client/src`, overElsewhere.length);
  show(overElsewhere.map((f) => `${String(f.lines).padStart(5)}  ${f.file} › ${f.name}`));

  const outside = matches(OUTSIDE_CITATIONS, PROSE);
  row('lines citing documents outside the repository', outside.length);
  show(outside);
  const ids = matches(REQUIREMENT_IDS, PROSE);
  row('lines naming requirement ids (FR-…, a letter and a number)', ids.length);
  show(ids);
  const issues = matches(ISSUE_LABELS, PROSE);
  row('lines naming an issue number', issues.length);
  show(issues);

  const errors = pmailErrors();
  const inline = errors.filter((e) => e.file !== 'functions/core/errors.ts');
  row('new PmailError outside functions/core/errors.ts', inline.length);
  const filesOf = new Map<string, Set<string>>();
  for (const e of errors.filter((x) => x.code))
    filesOf.set(e.code!, (filesOf.get(e.code!) ?? new Set()).add(e.file));
  const spread = [...filesOf].filter(([, files]) => files.size >= 2).sort((a, b) => b[1].size - a[1].size);
  row('error codes built in two or more files', spread.length);
  show(spread.map(([code, files]) => `${code}: ${files.size} files`));

  const tz = written(TIME_ZONE_DEFAULT);
  row("tenant time-zone default written (timezone ?? 'UTC')", tz.length);
  show(tz);
  const expiry = written(COUNTER_EXPIRY);
  row('48-hour counter expiry written', expiry.length);
  show(expiry);

  const blocks = repeatedBlocks();
  row(
    `repeated ${BLOCK_LINES}-line blocks in console/src`,
    `${blocks.occurrences} (${blocks.distinct} distinct)`,
  );
}

report();
