import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startHttpServer } from '../../functions/local/http-server.ts';
import { silentLogger } from '../../functions/log.ts';
import { markSending } from '../../functions/store/messages.store.ts';
import { stackPerTest, type TestStack, testStack } from '../support/local.ts';

/**
 * The `pmail` CLI as a person or a script runs it: a child process (`node --import tsx
 * bin/pmail-cli.ts`, what `npx pmail` runs) against the local stack's HTTP server (the same route
 * groups `npm start` serves), and through a pseudo-terminal (tmux) where the terminal matters.
 */
const ROOT = join(import.meta.dirname, '../..');
/** No .pmail/local.json: every profile setting comes from the environment. */
const EMPTY_STATE = mkdtempSync(join(tmpdir(), 'pmail-cli-'));
const stack = stackPerTest();
const closers: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const c of closers) await c();
});

async function served(s: TestStack) {
  const http = await startHttpServer(s.groups, { port: 0, log: silentLogger });
  closers.push(http.close);
  return http;
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function envOf(api: string, key: string, identity: string): Record<string, string> {
  return {
    ...(process.env as Record<string, string>),
    PMAIL_API: api,
    PMAIL_KEY: key,
    PMAIL_IDENTITY: identity,
    PMAIL_STATE_DIR: EMPTY_STATE,
  };
}

function pmail(env: Record<string, string>, args: string[]): Promise<Run> {
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

const idOf = (out: string) => /(msg_[0-9a-z]{26})/.exec(out)?.[1];

describe('pmail send without --idempotency-key', () => {
  it('sends once, prints the generated key before sending, and the same command with that key replays', async () => {
    const s = await stack();
    const http = await served(s);
    const env = envOf(http.url, s.apiKey, s.agent.id);
    const args = ['send', '--to', s.peer.address, '--subject', 'From the terminal', '--text', 'Hello'];
    const first = await pmail(env, args);
    expect(first.code, first.stderr).toBe(0);
    const key = /Idempotency-Key: (pmail-[0-9A-Z]{26})/.exec(first.stderr)?.[1];
    expect(key).toBeDefined();
    expect(first.stderr).toContain(`--idempotency-key ${key}`);
    const id = idOf(first.stdout);
    expect(first.stdout).toMatch(/^accepted: msg_/);
    expect(first.stdout).toContain('attempt: pending');

    const again = await pmail(env, [...args, '--idempotency-key', key!]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/^replayed \(same key: nothing new was sent\): msg_/);
    expect(idOf(again.stdout)).toBe(id);
    expect(again.stderr).not.toContain('Idempotency-Key:');

    // --json: one document on stdout, the key in it.
    const json = await pmail(env, [...args, '--idempotency-key', key!, '--json']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ id, deduplicated: true, idempotency_key: key });

    await s.settle();
    expect((await s.mailbox(s.agent.id, 'outbound')).map((m) => m.id)).toEqual([id]);
    expect((await s.mailbox(s.peer.id, 'inbound')).map((m) => m.subject)).toEqual(['From the terminal']);

    // The same key for another message is refused: pmail's code, seed 003's beside it, exit 6.
    const reused = await pmail(env, [
      'send',
      '--to',
      s.peer.address,
      '--text',
      'Other',
      '--idempotency-key',
      key!,
    ]);
    expect(reused.code).toBe(6);
    expect(reused.stderr).toContain('error: idempotency_conflict [IDEMPOTENCY_KEY_REUSED]');
    // A malformed key never leaves the terminal: seed 003's IDEMPOTENCY_KEY_INVALID, exit 7.
    const bad = await pmail(env, [
      'send',
      '--to',
      s.peer.address,
      '--text',
      'x',
      '--idempotency-key',
      'has space',
    ]);
    expect(bad.code).toBe(7);
    expect(bad.stderr).toContain('IDEMPOTENCY_KEY_INVALID');
    // An empty reply body: seed 003's REPLY_BODY_INVALID, exit 7, nothing sent.
    const [inbound] = await s.mailbox(s.peer.id, 'inbound');
    const empty = await pmail(envOf(http.url, s.apiKey, s.peer.id), ['reply', inbound.id, '--text', '  ']);
    expect(empty.code).toBe(7);
    expect(empty.stderr).toContain('REPLY_BODY_INVALID');
    expect(await s.mailbox(s.peer.id, 'outbound')).toEqual([]);
    // No key at all: exit 4 from the API's 401.
    const anon = await pmail({ ...env, PMAIL_KEY: 'pmk_test_nobody' }, ['list']);
    expect(anon.code).toBe(4);
    expect(anon.stderr).toContain('error: unauthenticated');
  }, 60_000);
});

/** tmux is on the machine (README › CLI tests); .ci/run installs it like Java. */
const hasTmux = (() => {
  try {
    execFileSync('tmux', ['-V']);
    return true;
  } catch {
    return false;
  }
})();

describe.skipIf(!hasTmux)('pmail send --wait in a terminal', () => {
  it('shows a progress line while the message is queued and ends at delivered', async () => {
    // A scheduled send whose wait lasts 3 s here, so the terminal shows the progress line meanwhile.
    const s = await stack({ waitTimeOverrides: { WaitUntilSendAt: 3000 } });
    const http = await served(s);
    const env = envOf(http.url, s.apiKey, s.agent.id);
    const session = `pmail-cli-${process.pid}-${Date.now()}`;
    const sendAt = new Date(Date.now() + 3600_000).toISOString();
    const exports = ['PMAIL_API', 'PMAIL_KEY', 'PMAIL_IDENTITY', 'PMAIL_STATE_DIR']
      .map((k) => `${k}='${env[k]}'`)
      .join(' ');
    const command = `cd '${ROOT}' && env ${exports} '${process.execPath}' --import tsx bin/pmail-cli.ts send --to '${s.peer.address}' --subject Waited --text Hi --send-at ${sendAt} --wait; echo "EXIT=$?"; sleep 60`;
    execFileSync('tmux', ['new-session', '-d', '-s', session, '-x', '160', '-y', '40', command]);
    closers.push(async () => execFileSync('tmux', ['kill-session', '-t', session]));
    const screen = () => execFileSync('tmux', ['capture-pane', '-p', '-t', session], { encoding: 'utf8' });
    let sawProgress = '';
    const deadline = Date.now() + 60_000;
    let last = '';
    while (!/EXIT=\d+/.test(last) && Date.now() < deadline) {
      last = screen();
      const progress = /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] waiting for msg_[0-9a-z]{26}: queued \(sending\) \d+s/.exec(last);
      if (progress) sawProgress = progress[0];
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(last).toContain('EXIT=0');
    expect(sawProgress).not.toBe('');
    expect(last).toContain('status:  delivered');
    expect(last).toContain('attempt: sent');
    // The progress line was cleared: the final screen does not show it.
    expect(last).not.toMatch(/waiting for msg_/);
  }, 90_000);
});

describe('a reply whose attempt died mid-send, then a restart', () => {
  it('is uncertain with REPLY_UNCERTAIN, shown so by the CLI, and its retry replays without a second send', async () => {
    const table = `pmail-cli-${Math.random().toString(36).slice(2)}`;
    let now = Date.now();
    const first = await testStack({ table, clock: () => now, config: { simEventDelaySeconds: 0 } });
    const http1 = await served(first);
    const env = envOf(http1.url, first.apiKey, first.peer.id);
    await first.send({ to: [first.peer.address], subject: 'Question', text: 'Can you?' }, 'question');
    await first.settle();
    const [question] = await first.mailbox(first.peer.id, 'inbound');

    // The transport task marks `sending` (the provider call may now happen) and the process dies.
    const overrides = (first.machine as unknown as { overrides: Record<string, unknown> }).overrides;
    const killed = () => Object.assign(new Error('the Lambda was killed'), { name: 'Sandbox.Timedout' });
    overrides.TransportLoopback = async (input: {
      identity_id: string;
      message_id: string;
      claim: { token: string };
    }) => {
      await markSending(first.deps.db, input.identity_id, input.message_id, input.claim.token);
      throw killed();
    };
    overrides.Record = async () => {
      throw killed();
    };
    const args = ['reply', question.id, '--text', 'On it', '--idempotency-key', 'reply-question-1'];
    const sent = await pmail(env, args);
    expect(sent.code, sent.stderr).toBe(0);
    const replyId = idOf(sent.stdout)!;
    await first.machine.idle();
    await http1.close();
    await first.close();

    // The restart: a new runtime on the same table, its sweeper 6 minutes later.
    now += 6 * 60_000;
    const second = await testStack({ table, clock: () => now, config: { simEventDelaySeconds: 0 } });
    try {
      const http2 = await served(second);
      const env2 = { ...env, PMAIL_API: http2.url };
      expect(await second.sweep()).toMatchObject({ uncertain: [replyId] });

      const status = await pmail(env2, ['status', replyId]);
      expect(status.code, status.stderr).toBe(0);
      expect(status.stdout).toContain('status:  uncertain');
      expect(status.stdout).toContain('attempt: uncertain REPLY_UNCERTAIN');
      expect(status.stdout).toContain('pmail never resends it');
      const json = await pmail(env2, ['status', replyId, '--json']);
      expect(JSON.parse(json.stdout)).toMatchObject({
        id: replyId,
        status: 'uncertain',
        attempt: { status: 'uncertain', error_code: 'REPLY_UNCERTAIN' },
      });

      // The agent retries the same command: the same reply, still uncertain, nothing dispatched.
      const retry = await pmail(env2, [...args, '--wait']);
      expect(retry.code).toBe(15);
      expect(retry.stdout).toMatch(/^replayed/);
      expect(idOf(retry.stdout)).toBe(replyId);
      expect(retry.stdout).toContain('attempt: uncertain REPLY_UNCERTAIN');
      await second.settle();
      expect(second.machine.started).toEqual([]);
      const replies = (await second.mailbox(first.agent.id, 'inbound')).filter((m) =>
        m.subject.startsWith('Re:'),
      );
      expect(replies).toEqual([]);
      expect((await second.mailbox(first.peer.id, 'outbound')).map((m) => m.id)).toEqual([replyId]);
    } finally {
      await second.close();
    }
  }, 90_000);
});
