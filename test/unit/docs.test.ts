import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ERRORS_DOC, errorsMarkdown } from '../../bin/docs-errors.ts';
import type { ApiEvent, ApiResult } from '../../functions/api/http.ts';
import type { RouteGroup } from '../../functions/api/routes.ts';
import { startHttpServer } from '../../functions/local/http-server.ts';
import { silentLogger } from '../../functions/log.ts';

/**
 * The docs hold what they promise: the deploy guide's shell blocks set every variable before they
 * use it, every relative link and anchor of README.md and docs/ resolves (remark-validate-links,
 * offline), the error reference is the one `npm run docs:errors` writes, and `npm start`'s HTTP
 * server answers the API reference at /docs.
 */
const ROOT = resolve(import.meta.dirname, '../..');

/** The shell blocks of a markdown text, in order. */
function shellBlocks(md: string): string[] {
  return [...md.matchAll(/^```(?:sh|bash|shell)\s*\n([\s\S]*?)^```/gm)].map((m) => m[1]);
}

/**
 * Each `$NAME` / `${NAME}` used before it is assigned (`NAME=`, `export NAME=`, `read [-r] NAME`,
 * `for NAME in`), in the order the blocks are read. Comments and single-quoted text do not count:
 * the shell does not expand them. Variables the shell or the user's environment always sets are
 * allowed.
 */
function unsetVariables(md: string): { name: string; line: string }[] {
  const given = new Set([
    'HOME',
    'PATH',
    'PWD',
    'USER',
    'AWS_REGION',
    'AWS_PROFILE',
    '?',
    '@',
    '#',
    '0',
    '1',
  ]);
  const assigned = new Set<string>();
  const out: { name: string; line: string }[] = [];
  for (const block of shellBlocks(md)) {
    const code = block
      .split('\n')
      .map((l) => l.replace(/(^|\s)#.*$/, ''))
      .join('\n')
      .replace(/'[^']*'/g, "''");
    for (const line of code.split('\n')) {
      // `read NAME` and `for NAME in` set NAME for the rest of the line; `NAME=…` only after its
      // line (`X=$(… $X …)` uses X before it sets it).
      const events: { at: number; use?: string; set?: string }[] = [
        ...[...line.matchAll(/\$\{?([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => ({ at: m.index, use: m[1] })),
        ...[
          ...line.matchAll(/\bread\s+(?:-\w+\s+)*([A-Za-z_][A-Za-z0-9_]*)/g),
          ...line.matchAll(/\bfor\s+([A-Za-z_][A-Za-z0-9_]*)\s+in\b/g),
        ].map((m) => ({ at: m.index, set: m[1] })),
      ].sort((x, y) => x.at - y.at);
      for (const e of events) {
        if (e.set) assigned.add(e.set);
        else if (e.use && !assigned.has(e.use) && !given.has(e.use))
          out.push({ name: e.use, line: line.trim() });
      }
      for (const m of line.matchAll(/(?:^|[\s;&|(])(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)=/g))
        assigned.add(m[1]);
    }
  }
  return out;
}

describe('docs/deploying.md', () => {
  const md = readFileSync(join(ROOT, 'docs/deploying.md'), 'utf8');

  it('assigns every $NAME of its shell blocks before a block uses it', () => {
    expect(shellBlocks(md).length).toBeGreaterThan(5);
    expect(unsetVariables(md)).toEqual([]);
  });

  it('the check itself finds a variable used before it is set, and ignores comments and quotes', () => {
    const doc = [
      '```sh',
      'curl "$API/health"   # $IGNORED in a comment',
      "echo '$QUOTED'",
      'export API=$(aws cloudformation describe-stacks)',
      'KEY=$(echo "$API" | jq -r .key)',
      'for D in a b; do echo "$D $KEY"; done',
      'read -r CODE; echo "$CODE $LATER"',
      "jq -n --arg t x '{a:$t,",
      "  b:$MULTILINE_QUOTED}'",
      '```',
      '```bash',
      'LATER=1',
      '```',
    ].join('\n');
    expect(unsetVariables(doc).map((u) => u.name)).toEqual(['API', 'LATER']);
  });
});

describe('links of README.md and docs/', () => {
  it('every relative link and #anchor resolves (npm run lint:docs)', () => {
    const cli = join(ROOT, 'node_modules/remark-cli/cli.js');
    const run = spawnSync(
      process.execPath,
      [cli, '--frail', '--quiet', '--no-stdout', '--no-color', 'README.md', 'docs'],
      {
        cwd: ROOT,
        encoding: 'utf8',
      },
    );
    expect(run.stderr).not.toMatch(/warning|error/);
    expect(run.status).toBe(0);
  });

  it('the link check fails on a missing file and on a missing heading', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pmail-links-'));
    try {
      writeFileSync(join(dir, 'a.md'), '# A\n\n[ok](#a) [gone](missing.md) [no heading](#nowhere)\n');
      const run = spawnSync(
        process.execPath,
        [
          join(ROOT, 'node_modules/remark-cli/cli.js'),
          '--frail',
          '--quiet',
          '--no-stdout',
          '--no-color',
          '--use',
          `${join(ROOT, 'node_modules/remark-validate-links/index.js')}=repository:false`,
          'a.md',
        ],
        { cwd: dir, encoding: 'utf8' },
      );
      expect(run.status).not.toBe(0);
      expect(run.stderr).toContain('missing.md');
      expect(run.stderr).toContain('#nowhere');
      expect(run.stderr).not.toContain('`#a`');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('docs/reference/errors.md', () => {
  const doc = readFileSync(ERRORS_DOC, 'utf8');

  it('lists every error code of functions/core/errors.ts', () => {
    const source = readFileSync(join(ROOT, 'functions/core/errors.ts'), 'utf8');
    const union = source.slice(
      source.indexOf('export type ErrorCode'),
      source.indexOf(';', source.indexOf('export type ErrorCode')),
    );
    const codes = [...union.matchAll(/\|\s*'([a-z_]+)'/g)].map((m) => m[1]);
    expect(codes.length).toBeGreaterThan(40);
    const missing = codes.filter((c) => !doc.includes(`| \`${c}\` |`));
    expect(missing).toEqual([]);
  });

  it('is what npm run docs:errors writes (run it after changing the error table)', () => {
    expect(doc).toBe(errorsMarkdown());
  });
});

describe('GET /docs on the local HTTP server', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pmail-docs-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const noGroups = {} as Record<RouteGroup, (e: ApiEvent) => Promise<ApiResult>>;

  it('answers the built API reference as HTML', async () => {
    const file = join(dir, 'api.html');
    writeFileSync(file, '<!doctype html><html><body><redoc>pmail API</redoc></body></html>');
    const http = await startHttpServer(noGroups, { port: 0, log: silentLogger, docs: { file } });
    try {
      for (const path of ['/docs', '/docs/']) {
        const res = await fetch(`${http.url}${path}`);
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toMatch(/^text\/html/);
        expect(await res.text()).toContain('<redoc>pmail API</redoc>');
      }
    } finally {
      await http.close();
    }
  });

  it('answers a page naming npm run docs:api when the reference is not built', async () => {
    const file = join(dir, 'none', 'api.html');
    const http = await startHttpServer(noGroups, {
      port: 0,
      log: silentLogger,
      docs: { file, build: false },
    });
    try {
      const res = await fetch(`${http.url}/docs`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await res.text()).toContain('npm run docs:api');
    } finally {
      await http.close();
    }
  });
});
