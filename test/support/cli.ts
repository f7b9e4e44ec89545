import { spawn } from 'node:child_process';
import { join } from 'node:path';

/** The repository's root: the CLI runs from it, as `npx pmail` does from a clone. */
export const ROOT = join(import.meta.dirname, '../..');

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `pmail ARGS` as a person or a script would (`node --import tsx bin/pmail-cli.ts`, what
 * `npx pmail` runs) in a child process, and gives back its exit code and both outputs. `env`
 * replaces the environment when given.
 */
export function runCli(args: string[], env?: Record<string, string>): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'bin/pmail-cli.ts', ...args], {
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
