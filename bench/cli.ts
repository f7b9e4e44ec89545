/**
 * `npm run bench:cli` (also part of `npm run bench`) — the CLI's start: the wall time of
 * `pmail --help` (bin/pmail.mjs running the built dist/cli/pmail.mjs, the first run filling V8's
 * compile cache) beside a bare `node -e 0` and beside the TypeScript source through tsx, each the
 * median of BENCH_CLI_RUNS (default 9) fresh processes, interleaved so load on the machine hits all
 * three alike. The ratio to `node -e 0` is the point: the time is this machine's.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT } from '../lib/defaults.ts';
import { machineLine } from './env.ts';
import { fixed, table } from './stats.ts';

const RUNS = Number(process.env.BENCH_CLI_RUNS ?? 9) || 9;

const build = spawnSync(process.execPath, [join(REPO_ROOT, 'bin/build-cli.mjs')], { encoding: 'utf8' });
if (build.status !== 0) throw new Error(`bin/build-cli.mjs failed: ${build.stderr}`);

/** One fresh process's wall time, in ms (it must exit 0). */
function wall(args: string[]): number {
  const started = performance.now();
  const run = spawnSync(process.execPath, args, { cwd: REPO_ROOT, encoding: 'utf8' });
  const ms = performance.now() - started;
  if (run.status !== 0) throw new Error(`node ${args.join(' ')} exited ${run.status}: ${run.stderr}`);
  return ms;
}

const subjects: [string, string[]][] = [
  ['node -e 0', ['-e', '0']],
  ['pmail --help (built)', ['bin/pmail.mjs', '--help']],
  ['pmail --help (source, tsx)', ['--import', 'tsx', 'bin/pmail-cli.ts', '--help']],
];
wall(subjects[1][1]);
const samples = subjects.map(() => [] as number[]);
for (let i = 0; i < RUNS; i++) for (const [n, [, args]] of subjects.entries()) samples[n].push(wall(args));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const base = median(samples[0]);

console.log(`\n== CLI start (${machineLine()}; median of ${RUNS}) ==\n`);
console.log(
  table(
    ['', 'wall ms', '× node -e 0'],
    subjects.map(([name], n) => [name, fixed(median(samples[n]), 0), fixed(median(samples[n]) / base, 2)]),
    [1, 2],
  ),
);
