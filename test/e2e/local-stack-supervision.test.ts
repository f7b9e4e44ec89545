import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../functions/local/dynamodb-local.ts';
import { listening, startLocalStack } from '../support/start.ts';

/**
 * `npm start` watches the services it runs: when DynamoDB Local dies under it, the stack says so
 * (naming it, with how it ended) and exits non-zero instead of answering 500 to every call.
 */
const ROOT = join(import.meta.dirname, '../..');
const children: ChildProcess[] = [];

afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
});

/** The processes whose parent is `pid` (Linux /proc). */
function childrenOf(pid: number): { pid: number; name: string }[] {
  const out: { pid: number; name: string }[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // "pid (comm) state ppid …": comm may hold spaces, so read after its closing parenthesis.
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) out.push({ pid: Number(entry), name });
    } catch {
      // exited while listed
    }
  }
  return out;
}

describe('npm start supervises DynamoDB Local', () => {
  it('stops the stack with a non-zero code and a message naming DynamoDB Local when it is killed', async () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'pmail-supervise-'));
    const child = spawn(process.execPath, ['--import', 'tsx', 'bin/pmail-cli.ts', 'start'], {
      cwd: ROOT,
      env: {
        ...process.env,
        PMAIL_STATE_DIR: stateDir,
        PMAIL_PORT: String(await freePort()),
        PMAIL_SES_PORT: String(await freePort()),
        PMAIL_MX_PORT: String(await freePort()),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
    });
    child.stderr!.on('data', (d) => {
      out += d;
    });
    const exited = new Promise<number | null>((res) => child.once('exit', (code) => res(code)));
    const deadline = Date.now() + 60_000;
    while (!out.includes('Ctrl-C stops everything')) {
      if (child.exitCode !== null) throw new Error(`pmail start exited early:\n${out}`);
      if (Date.now() > deadline) throw new Error(`pmail start did not come up:\n${out}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const java = childrenOf(child.pid!).filter((p) => p.name === 'java');
    expect(java).toHaveLength(1);
    process.kill(java[0].pid, 'SIGKILL');

    expect(await exited).toBe(9);
    expect(out).toContain('pmail: DynamoDB Local exited (killed by SIGKILL)');
    expect(out).toContain('pmail: stopping everything.');
  }, 120_000);
});

/** Waits (≤ 15 s) until the process is gone and nothing listens on the port; says which is left. */
async function gone(pid: number, port: number): Promise<string> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const alive = existsSync(`/proc/${pid}`) && !readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z ');
    const open = await listening(port);
    if (!alive && !open) return 'gone';
    if (Date.now() > deadline)
      return `${alive ? `pid ${pid} alive` : ''} ${open ? `port ${port} open` : ''}`.trim();
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('npm start killed without a word leaves no DynamoDB Local behind', () => {
  it('SIGKILL of the start process: its Java exits and its port closes', async () => {
    const stack = await startLocalStack();
    children.push(stack.child);
    const [java] = childrenOf(stack.child.pid!).filter((p) => p.name === 'java');
    expect(java).toBeDefined();
    process.kill(stack.child.pid!, 'SIGKILL');
    expect(await gone(java.pid, stack.dynamoPort)).toBe('gone');
  }, 120_000);

  it('SIGKILL of the process that started it (npm, a shell): the stack stops, its Java with it', async () => {
    // `sh` stands for npm: the stack is its child, and the shell is what dies.
    const stack = await startLocalStack({}, { underShell: true });
    const shell = stack.child;
    children.push(shell);
    const port = Number(new URL(stack.url).port);
    const [start] = childrenOf(shell.pid!).filter((p) => p.name !== 'java');
    const [java] = childrenOf(start.pid).filter((p) => p.name === 'java');
    process.kill(shell.pid!, 'SIGKILL');
    expect(await gone(start.pid, port)).toBe('gone');
    expect(await gone(java.pid, stack.dynamoPort)).toBe('gone');
  }, 120_000);
});
