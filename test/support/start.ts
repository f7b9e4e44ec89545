import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../functions/local/dynamodb-local.ts';

/** The repository's root: `npm start` runs from it. */
export const ROOT = join(import.meta.dirname, '../..');

export interface StartedStack {
  child: ChildProcess;
  stateDir: string;
  /** The API's URL, e.g. http://127.0.0.1:40123. */
  url: string;
  /** `.pmail/local.json` as this start wrote it. */
  local: {
    api: string;
    apiKey: string;
    platformKey: string;
    tenantId: string;
    identities: { id: string; name: string; address: string }[];
    dynamoEndpoint: string;
    inbound: { host: string; port: number };
    live: { apiKey: string; tenantId: string; ses: string };
  };
  dynamoPort: number;
  /** Everything it printed so far, stdout and stderr. */
  output(): string;
  /** SIGTERM, and its exit. */
  stop(): Promise<void>;
}

/**
 * `npm start` as a user runs it (what the `start` script runs: `pmail start` on the TypeScript
 * source), in a state folder of its own and on free ports (API, local SES, MX), resolved once its
 * banner is printed. `underShell`: started by a `sh` that waits for it, as npm starts it (`child`
 * is then that shell). `stateDir`, `port`, `sesPort`: a restart's, to start again on the same data
 * and the same URLs.
 */
export async function startLocalStack(
  env: Record<string, string> = {},
  opts: { underShell?: boolean; stateDir?: string; port?: number; sesPort?: number } = {},
): Promise<StartedStack> {
  const stateDir = opts.stateDir ?? mkdtempSync(join(tmpdir(), 'pmail-start-'));
  const ports = {
    PMAIL_PORT: String(opts.port ?? (await freePort())),
    PMAIL_SES_PORT: String(opts.sesPort ?? (await freePort())),
    PMAIL_MX_PORT: String(await freePort()),
  };
  const start = ['--import', 'tsx', 'bin/pmail-cli.ts', 'start'];
  const [command, args] = opts.underShell
    ? ['sh', ['-c', `"$0" ${start.join(' ')} & wait`, process.execPath]]
    : [process.execPath, start];
  const child = spawn(command, args, {
    cwd: ROOT,
    env: { ...process.env, PMAIL_STATE_DIR: stateDir, ...ports, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => {
    out += d;
  });
  child.stderr!.on('data', (d) => {
    out += d;
  });
  const deadline = Date.now() + 90_000;
  while (!out.includes('Ctrl-C stops everything')) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`pmail start exited early:\n${out}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`pmail start did not come up:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const local = JSON.parse(readFileSync(join(stateDir, 'local.json'), 'utf8'));
  return {
    child,
    stateDir,
    url: local.api,
    local,
    dynamoPort: Number(new URL(local.dynamoEndpoint).port),
    output: () => out,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Whether something listens on the port of 127.0.0.1. */
export const listening = (port: number) =>
  new Promise<boolean>((res) => {
    const sock = connect(port, '127.0.0.1');
    sock.once('connect', () => {
      sock.destroy();
      res(true);
    });
    sock.once('error', () => res(false));
  });
