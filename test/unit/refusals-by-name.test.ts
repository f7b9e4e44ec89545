import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ERRORS } from '../../functions/api/http.ts';

/**
 * Every refusal is built by a named factory in functions/core/errors.ts (docs/architecture.md ›
 * Layers, error codes), so each text is written once and a code is built in one file. Outside
 * errors.ts, this fails on:
 *   - `new PmailError(…)` or a class extending PmailError;
 *   - a code of the error table (ERRORS in functions/api/http.ts) handed to a call or a `new`, or
 *     given as an object's `code`: a refusal built by hand under another name;
 *   - `invalidRequest(errors, text)`: a refusal's text written outside errors.ts (`invalidRequest(errors)`
 *     alone, the fields a schema refused under the one generic text, is the named refusal).
 * Reading a code (`err.code === 'thread_busy'`, a `case`) is not building one.
 */
const ROOT = resolve(import.meta.dirname, '../..');
const ERRORS_FILE = 'functions/core/errors.ts';

const CODES = new Set(Object.keys(ERRORS));

/** Calls whose argument shares a code's spelling but names something else, and why. */
const OTHER_VOCABULARIES: Record<string, string> = {
  closeWith: "a stream's close reason (core/stream.ts › STREAM_CLOSE), not an error code",
};

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true })
    .map(String)
    .filter((f) => /\.(ts|tsx|mts|mjs)$/.test(f) && !f.endsWith('.d.ts'))
    .map((f) => join(dir, f));
}

const FILES = ['functions', 'bin', 'console/src'].flatMap(sources).filter((f) => f !== ERRORS_FILE);

const isCodeLiteral = (n: ts.Node): n is ts.StringLiteralLike =>
  ts.isStringLiteralLike(n) && CODES.has(n.text);

/** Why this node builds a refusal outside errors.ts, or undefined. */
function buildsRefusal(n: ts.Node): string | undefined {
  if (ts.isNewExpression(n) && n.expression.getText() === 'PmailError') return 'new PmailError';
  if (ts.isHeritageClause(n) && n.types.some((t) => t.expression.getText() === 'PmailError')) {
    return 'extends PmailError';
  }
  if (ts.isCallExpression(n) && n.expression.getText() === 'invalidRequest' && n.arguments.length > 1) {
    return 'invalidRequest with a text of its own';
  }
  if (!isCodeLiteral(n)) return undefined;
  const p = n.parent;
  if ((ts.isCallExpression(p) || ts.isNewExpression(p)) && p.arguments?.includes(n as ts.Expression)) {
    if (Object.hasOwn(OTHER_VOCABULARIES, p.expression.getText())) return undefined;
    return `code '${n.text}' handed to a call`;
  }
  if (ts.isPropertyAssignment(p) && p.initializer === n && p.name.getText() === 'code') {
    return `code '${n.text}' as an object's code`;
  }
  return undefined;
}

/** `file:line why` for each refusal the source builds by hand. */
function inlineRefusals(file: string, source: string): string[] {
  const kind = file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true, kind);
  const found: string[] = [];
  const visit = (n: ts.Node): void => {
    const why = buildsRefusal(n);
    if (why) found.push(`${file}:${sf.getLineAndCharacterOfPosition(n.getStart()).line + 1} ${why}`);
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return found;
}

describe('refusals by name', () => {
  it('no refusal is built outside functions/core/errors.ts', () => {
    const found = FILES.flatMap((f) => inlineRefusals(f, readFileSync(join(ROOT, f), 'utf8')));
    expect(found).toEqual([]);
  });

  it('catches a refusal built inline, and leaves a code that is only read alone', () => {
    const source = [
      "import { PmailError } from '../core/errors.ts';",
      "if (!m) throw new PmailError('message_not_found', 'No message.');",
      "const e = refuse('thread_busy', 'Busy.');",
      "const body = { code: 'rate_limited', message: 'Slow down.' };",
      'class Mine extends PmailError {}',
      "throw invalidRequest(errors, 'The list is bad.');",
      'throw invalidRequest(zodErrors(parsed.error));',
      "if (err.code === 'thread_busy') retry();",
      "switch (err.code) { case 'daily_cap_reached': break; }",
      "const key = 'message_not_found';",
      "await closeWith(wake, c, 'key_revoked', undefined);",
    ].join('\n');
    expect(inlineRefusals('functions/api/x.ts', source)).toEqual([
      'functions/api/x.ts:2 new PmailError',
      "functions/api/x.ts:2 code 'message_not_found' handed to a call",
      "functions/api/x.ts:3 code 'thread_busy' handed to a call",
      "functions/api/x.ts:4 code 'rate_limited' as an object's code",
      'functions/api/x.ts:5 extends PmailError',
      'functions/api/x.ts:6 invalidRequest with a text of its own',
    ]);
  });

  it('covers the console and bin/ as well as functions/', () => {
    expect(FILES.some((f) => f.startsWith('console/src/'))).toBe(true);
    expect(FILES.some((f) => f.startsWith('bin/'))).toBe(true);
  });
});
