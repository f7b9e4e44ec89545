import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';

/** The repository's root: the CLI runs from it, as `npx pmail` does from a clone. */
export const ROOT = join(import.meta.dirname, '../..');

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `pmail ARGS` as a person or a script would, from the source (`node --import tsx
 * bin/pmail-cli.ts`, what `npm run pmail` runs and `npx pmail` falls back to) in a child process,
 * and gives back its exit code and both outputs. `env` replaces the environment when given.
 */
export function runCli(args: string[], env?: Record<string, string>): Promise<CliRun> {
  return spawnRun(process.execPath, ['--import', 'tsx', 'bin/pmail-cli.ts', ...args], env);
}

/** Runs `command ARGS` from the repository's root; its exit code and both outputs. */
export function spawnRun(command: string, args: string[], env?: Record<string, string>): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

/**
 * Runs `pmail ARGS` in this process (bin/cli/program.ts › runPmail): the same commands and exit
 * codes as the child process, without a Node start per call. `env` is the environment the CLI reads
 * (its profile); the AWS SDK still reads this process's own, so AWS cases spawn (`runCli`).
 */
export async function runInProcess(args: string[], env: Record<string, string | undefined>): Promise<CliRun> {
  const { runPmail } = await import('../../bin/cli/program.ts');
  let stdout = '';
  let stderr = '';
  const code = await runPmail(args, {
    env,
    stderrTty: false,
    out: (s) => {
      stdout += s;
    },
    err: (s) => {
      stderr += s;
    },
  });
  return { code, stdout, stderr };
}

/** Builds dist/cli/pmail.mjs (what `npm ci` does through `prepare`) and gives its path. */
export function buildCli(): string {
  const run = spawnSync(process.execPath, ['bin/build-cli.mjs'], { cwd: ROOT, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`bin/build-cli.mjs failed: ${run.stderr}`);
  return join(ROOT, 'dist/cli/pmail.mjs');
}

/** Runs the built CLI (`node dist/cli/pmail.mjs ARGS`) in a child process. */
export function runBuilt(args: string[], env?: Record<string, string>): Promise<CliRun> {
  return spawnRun(process.execPath, [join(ROOT, 'dist/cli/pmail.mjs'), ...args], env);
}
