/**
 * `npm run bench:bundles` (also the first part of `npm run bench`) — cold starts: every
 * Lambda entry (`functions/**\/*.handler.ts`, found, not listed) bundled with lib/defaults.ts ›
 * BUNDLE_BUILD, as the functions are (esbuild, ESM, node22, minified, nothing external), then:
 *   - the bundle's size, and the packages that weigh most in it (esbuild's metafile);
 *   - its module-load time in a fresh Node process (the median of BENCH_LOAD_RUNS, default 5): the
 *     part of a cold start the code controls (the runtime's own init and the network are not here).
 * The API functions carry a goal (API_LOAD_BUDGET_MS, API_BUNDLE_BUDGET_BYTES below); each row's verdict says which
 * one a function is over.
 * Nothing is asserted: the numbers are this machine's, not Lambda's.
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { build, type Metafile } from 'esbuild';
import { BUNDLE_BUILD, REPO_ROOT } from '../lib/defaults.ts';
import { machineLine } from './env.ts';
import { loadTime } from './load-time.ts';

/**
 * The goal for an API function's module load on a machine like this one (2 cores): a request that
 * meets a cold container waits this long before pmail's code runs. At 512 MB Lambda gives roughly a
 * third of a vCPU, so expect about 2–3× this on AWS.
 */
export const API_LOAD_BUDGET_MS = 150;
/**
 * The goal for an API function's bundle (minified, without the source map). Size weighs less than
 * load time (code loaded on first use, such as the template engine, is parsed, not run, at start),
 * but every byte is read and parsed on a cold start.
 */
export const API_BUNDLE_BUDGET_BYTES = 1_500_000;

/**
 * Entries that `require` a module only the Lambda runtime provides (the one-off custom resource that
 * drives SES v1's receipt rule set takes the runtime's `@aws-sdk/client-ses`): bundled and sized here,
 * not loaded.
 */
const RUNTIME_PROVIDED = new Set(['functions/inbound/receipt-rule-set.handler.ts']);

const RUNS = Number(process.env.BENCH_LOAD_RUNS ?? 5) || 5;

function handlerEntries(dir = join(REPO_ROOT, 'functions')): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return handlerEntries(p);
    return e.name.endsWith('.handler.ts') ? [p] : [];
  });
}

/** The packages (or `functions/`) that make up a bundle, largest first. */
function weights(meta: Metafile, outFile: string): [string, number][] {
  const out = Object.entries(meta.outputs).find(([p]) => p.endsWith(outFile))?.[1];
  const by = new Map<string, number>();
  for (const [input, { bytesInOutput }] of Object.entries(out?.inputs ?? {})) {
    const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input);
    const key = m ? m[1] : input.split('/')[0];
    by.set(key, (by.get(key) ?? 0) + bytesInOutput);
  }
  return [...by.entries()].sort((a, b) => b[1] - a[1]);
}

/** An API function's verdict against both goals: PASS, or which of them it is over. */
function verdict(ms: number, size: number): string {
  const over = [
    ...(size > API_BUNDLE_BUDGET_BYTES ? ['size'] : []),
    ...(ms > API_LOAD_BUDGET_MS ? ['load'] : []),
  ];
  return over.length ? `OVER (${over.join(', ')})` : 'PASS';
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const kb = (n: number) => `${(n / 1024).toFixed(0)} KB`;

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'pmail-bundles-'));
  try {
    process.stdout.write(
      `\nLambda bundles (${machineLine()}; load time: median of ${RUNS} fresh processes)\n\n`,
    );
    const rows: string[][] = [['entry', 'size', 'load ms', 'goal', 'heaviest parts']];
    for (const entry of handlerEntries().sort()) {
      const name = relative(REPO_ROOT, entry)
        .replace(/\.handler\.ts$/, '')
        .replace(/\//g, '_');
      const outfile = join(dir, `${name}.mjs`);
      const result = await build({
        ...BUNDLE_BUILD,
        entryPoints: [entry],
        outfile,
        metafile: true,
        logLevel: 'error',
      });
      const size = statSync(outfile).size;
      const loads = !RUNTIME_PROVIDED.has(relative(REPO_ROOT, entry));
      const ms = loads ? median(Array.from({ length: RUNS }, () => loadTime(outfile))) : Number.NaN;
      const api = entry.includes('/functions/api/');
      const budget = api ? verdict(ms, size) : '';
      const heaviest = weights(result.metafile, `${name}.mjs`)
        .slice(0, 4)
        .map(([k, v]) => `${k} ${kb(v)}`)
        .join(', ');
      rows.push([
        relative(REPO_ROOT, entry),
        kb(size),
        loads ? ms.toFixed(0) : 'runtime SDK',
        budget,
        heaviest,
      ]);
    }
    const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
    for (const r of rows) process.stdout.write(`${r.map((c, i) => c.padEnd(widths[i])).join('  ')}\n`);
    process.stdout.write(
      `\nAPI goal: load ≤ ${API_LOAD_BUDGET_MS} ms and bundle ≤ ${kb(API_BUNDLE_BUDGET_BYTES)} here (docs/operating.md › Cold starts).\n`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
