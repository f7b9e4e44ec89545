import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type FunctionLength, functionLengths } from '../../bench/function-lengths.ts';
import { FUNCTION_LINES, tsSources } from '../../bench/house-rules.ts';

/**
 * No function longer than a screen (CONTRIBUTING.md › The layers): every function, method, arrow
 * function and accessor in the folders below, read with the TypeScript compiler API
 * (bench/function-lengths.ts: its signature to its closing brace, nested functions included), is at
 * most FUNCTION_LINES long, but the named exceptions, each with its reason. `npm run shape` lists
 * them with their lengths.
 */
const ROOT = resolve(import.meta.dirname, '../..');
const CHECKED = ['functions', 'bin', 'console/src', 'packages/client/src'];

const CONSOLE_PAGE =
  'a console form page, its fields one JSX tree: the next to move onto the shared parts of console/src/parts.tsx';
const CLI_TABLE = "the CLI's commander table: one statement per command, read as a list";
/** `file › name` → why it may be longer. */
const EXCEPTIONS: Readonly<Record<string, string>> = {
  'functions/store/inbound.store.ts › storeInbound':
    'a transaction of the store: an item split out is a conditional write of its own, which CONTRIBUTING.md › Changing a write protocol asks a lost-answer test for',
  'console/src/pages/suppressions.tsx › Suppressions': CONSOLE_PAGE,
  'console/src/pages/templates.tsx › Templates': CONSOLE_PAGE,
  'console/src/pages/keys.tsx › CreateKey': CONSOLE_PAGE,
  'console/src/pages/keys.tsx › Keys': CONSOLE_PAGE,
  'console/src/pages/webhooks.tsx › WebhookPage': CONSOLE_PAGE,
  'console/src/main.tsx › App': "the console's routes: one table of pages, read as a list",
  'bin/cli/program.ts › mailCommands': CLI_TABLE,
  'bin/cli/program.ts › controlCommands': CLI_TABLE,
};

const key = (f: FunctionLength) => `${f.file} › ${f.name}`;

/** The functions over the budget under `paths` of `root`, longest first. */
function overBudget(root: string, paths: readonly string[]): FunctionLength[] {
  return tsSources(root, paths)
    .flatMap((file) => functionLengths(join(root, file), root))
    .filter((f) => f.lines > FUNCTION_LINES)
    .sort((a, b) => b.lines - a.lines);
}

describe(`function length: at most ${FUNCTION_LINES} lines`, () => {
  const over = overBudget(ROOT, CHECKED);

  it('reads every function of the folders it checks, .ts and .tsx', () => {
    const all = tsSources(ROOT, CHECKED).flatMap((file) => functionLengths(join(ROOT, file), ROOT));
    expect(all.length).toBeGreaterThan(1000);
    expect(all.map(key)).toContain('functions/send/submit.ts › submit');
    expect(all.map(key)).toContain('console/src/pages/keys.tsx › Keys');
    expect(all.map(key)).toContain('packages/client/src/batch.ts › sendBatch');
  });

  it('finds no function over the budget but the named exceptions', () => {
    const unexplained = over.filter((f) => !(key(f) in EXCEPTIONS)).map((f) => `${key(f)}: ${f.lines} lines`);
    expect(unexplained, 'split it, or name it in EXCEPTIONS with the reason').toEqual([]);
  });

  it('names as an exception only a function still over the budget', () => {
    const overKeys = new Set(over.map(key));
    expect(Object.keys(EXCEPTIONS).filter((k) => !overKeys.has(k))).toEqual([]);
  });

  it('refuses a planted function one line over the budget, with its file, name and length', () => {
    const root = mkdtempSync(join(tmpdir(), 'pmail-length-'));
    try {
      mkdirSync(join(root, 'src/deep'), { recursive: true });
      const body = (n: number) => Array.from({ length: n - 2 }, (_, i) => `  const v${i} = ${i};`).join('\n');
      writeFileSync(join(root, 'src/ok.ts'), `export function fits() {\n${body(FUNCTION_LINES)}\n}\n`);
      writeFileSync(
        join(root, 'src/deep/long.tsx'),
        `export const Page = () => {\n${body(FUNCTION_LINES + 1)}\n};\n`,
      );
      expect(overBudget(root, ['src']).map((f) => `${key(f)}: ${f.lines}`)).toEqual([
        `src/deep/long.tsx › Page: ${FUNCTION_LINES + 1}`,
      ]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
