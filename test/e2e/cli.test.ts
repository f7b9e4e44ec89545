import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { startHttpServer } from '../../functions/local/http-server.ts';
import { silentLogger } from '../../functions/log.ts';
import { claimSending } from '../../functions/store/messages.store.ts';
import { ROOT, runCli } from '../support/cli.ts';
import { stackPerTest, type TestStack, testStack } from '../support/local.ts';

/**
 * The `pmail` CLI as a person or a script runs it: a child process (`node --import tsx
 * bin/pmail-cli.ts`, the source the build is made of) against the local stack's HTTP server (the same route
 * groups `npm start` serves), and through a pseudo-terminal (tmux) where the terminal matters.
 */
/** No .pmail/local.json: every profile setting comes from the environment. */
const EMPTY_STATE = mkdtempSync(join(tmpdir(), 'pmail-cli-'));
const stack = stackPerTest();
const closers: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const c of closers) await c();
});
const pmail = (env: Record<string, string>, args: string[]) => runCli(args, env);

async function served(s: TestStack) {
  const http = await startHttpServer(s.groups, { port: 0, log: silentLogger });
  closers.push(http.close);
  return http;
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

    // The same key for another message is refused: pmail's code, the reply attempt's beside it (docs/guides/cli.md#attempts), exit 6.
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
    // A malformed key never leaves the terminal: the attempt code IDEMPOTENCY_KEY_INVALID, exit 7.
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
    // An empty reply body: the attempt code REPLY_BODY_INVALID, exit 7, nothing sent.
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
describe('pmail send --template', () => {
  it('writes a template from a file, sends it with its variables once, refuses a bad payload or bad JSON, and deletes it', async () => {
    const s = await stack();
    const http = await served(s);
    const env = envOf(http.url, s.apiKey, s.agent.id);
    // The template, written from a file with `pmail templates put` (PUT creates it).
    const file = join(EMPTY_STATE, 'cli_receipt.json');
    writeFileSync(
      file,
      JSON.stringify({
        subject: 'Receipt {{number}}',
        text: 'Thanks, receipt {{number}}.',
        variables_schema: {
          type: 'object',
          properties: { number: { type: 'integer' } },
          required: ['number'],
        },
        category: 'transactional',
        kind: 'transactional',
      }),
    );
    const put = await pmail(env, ['templates', 'put', 'cli_receipt', '--file', file, '--json']);
    expect(put.code, put.stdout + put.stderr).toBe(0);
    expect(JSON.parse(put.stdout)).toMatchObject({ name: 'cli_receipt', version: 1 });
    const listed = await pmail(env, ['templates', 'list']);
    expect(listed.stdout).toMatch(/^cli_receipt +v1 +transactional +transactional$/m);
    const args = ['send', '--to', s.peer.address, '--template', 'cli_receipt', '--variables', '{"number":7}'];
    const sent = await pmail(env, [...args, '--idempotency-key', 'cli-receipt-7', '--json']);
    expect(sent.code, sent.stdout + sent.stderr).toBe(0);
    const id = JSON.parse(sent.stdout).id as string;
    const again = await pmail(env, [...args, '--idempotency-key', 'cli-receipt-7']);
    expect([again.code, idOf(again.stdout)]).toEqual([0, id]);
    await s.settle();
    expect((await s.mailbox(s.peer.id, 'inbound')).map((m) => m.subject)).toEqual(['Receipt 7']);

    // A payload the template's schema refuses: the API's invalid_payload, exit 7, without the value.
    const bad = await pmail(env, [...args.slice(0, -1), '{"number":"seven"}']);
    expect(bad.code).toBe(7);
    expect(bad.stderr).toContain('error: invalid_payload');
    expect(bad.stderr).not.toContain('seven');
    // Not JSON, or a body beside the template: usage, exit 2, nothing sent.
    expect((await pmail(env, [...args.slice(0, -1), '{number'])).code).toBe(2);
    expect((await pmail(env, [...args, '--text', 'x'])).code).toBe(2);
    expect((await s.mailbox(s.agent.id, 'outbound')).map((m) => m.id)).toEqual([id]);
    // Deleted by name: a send by it is then 404 template_not_found (exit 5).
    expect((await pmail(env, ['templates', 'delete', 'cli_receipt'])).code).toBe(0);
    const gone = await pmail(env, [...args, '--idempotency-key', 'cli-receipt-9']);
    expect(gone.code).toBe(5);
    expect(gone.stderr).toContain('error: template_not_found');
  }, 60_000);
});

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
    const command = `cd '${ROOT}' && env ${exports} '${process.execPath}' --import tsx bin/pmail-cli.ts send --to '${s.peer.address}' --subject Waited --text Hi --send-at ${sendAt} --wait; echo "EXIT=$?"; sleep 600`;
    execFileSync('tmux', ['new-session', '-d', '-s', session, '-x', '160', '-y', '40', command]);
    // The session ends when its command does; killing one already gone is not a failure.
    closers.push(async () => {
      try {
        execFileSync('tmux', ['kill-session', '-t', session], { stdio: 'ignore' });
      } catch {}
    });
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

    // The transport task writes its claim marked `sending` (the provider call may now happen) and the process dies.
    const overrides = (first.machine as unknown as { overrides: Record<string, unknown> }).overrides;
    const killed = () => Object.assign(new Error('the Lambda was killed'), { name: 'Sandbox.Timedout' });
    overrides.TransportLoopback = async (input: {
      identity_id: string;
      message_id: string;
      claim: { token: string };
    }) => {
      await claimSending(first.deps.db, input.identity_id, input.message_id, {
        token: input.claim.token,
        at: first.deps.clock(),
      });
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

describe('the other commands', () => {
  it('replies, replies to all, forwards, cancels, lists, follows events, reads the control plane and runs doctor', async () => {
    // A scheduled send's wait lasts 10 s here: long enough to cancel it, short enough to settle.
    const s = await stack({ waitTimeOverrides: { WaitUntilSendAt: 10_000 } });
    const http = await served(s);
    await s.send({ to: [s.peer.address], subject: 'Thread', text: 'Start' }, 'thread-start');
    await s.settle();
    const [original] = await s.mailbox(s.peer.id, 'inbound');
    const peer = envOf(http.url, s.apiKey, s.peer.id);
    const json = async (args: string[], code = 0) => {
      const r = await pmail(peer, [...args, '--json']);
      expect(r.code, `${args.join(' ')}: ${r.stdout}${r.stderr}`).toBe(code);
      return JSON.parse(r.stdout);
    };

    const reply = await json(['reply', original.id, '--text', 'Reply']);
    expect(reply).toMatchObject({ in_reply_to: original.rfc_message_id, subject: 'Re: Thread' });
    const all = await json(['reply-all', original.id, '--text', 'To all']);
    expect(all.in_reply_to).toBe(original.rfc_message_id);
    const fwd = await json(['forward', original.id, '--to', 'deliver@simulator.invalid', '--text', 'FYI']);
    expect(fwd.to.map((a: { address: string }) => a.address)).toEqual(['deliver@simulator.invalid']);

    // A scheduled send, canceled: the attempt state `failed` (nothing went out).
    const later = new Date(Date.now() + 3600_000).toISOString();
    const scheduled = await json(['send', '--to', s.agent.address, '--text', 'Later', '--send-at', later]);
    const canceled = await json(['cancel', scheduled.id]);
    expect(canceled.status).toBe('canceled');
    expect(await json(['status', scheduled.id])).toMatchObject({
      attempt: { status: 'failed', error_code: null },
    });
    // resolve refuses a message that is not uncertain: the API's 409, exit 6.
    expect(await json(['resolve', reply.id, '--outcome', 'sent'], 6)).toMatchObject({
      error: { code: 'not_uncertain' },
    });
    // retry takes only a failed message whose failure was not a refusal: a canceled one is 409, exit 6.
    expect(await json(['retry', scheduled.id], 6)).toMatchObject({ error: { code: 'not_retryable' } });
    const listed = await json(['list', '--direction', 'outbound']);
    expect(listed.data.map((m: { id: string }) => m.id).sort()).toEqual(
      [reply.id, all.id, fwd.id, scheduled.id].sort(),
    );

    // events --follow: each event as a JSON line as it comes, until Ctrl-C (exit 130).
    await s.settle();
    const follow = spawn(
      process.execPath,
      ['--import', 'tsx', 'bin/pmail-cli.ts', 'events', '--follow', '--json', '--interval', '0.2'],
      { cwd: ROOT, env: peer, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let lines = '';
    follow.stdout.on('data', (d) => {
      lines += d;
    });
    const exited = new Promise<number | null>((r) => follow.once('exit', (code) => r(code)));
    await s.eventually(async () => lines.includes(`"message_id":"${canceled.id}"`), 30_000);
    const late = await s.send({ to: ['deliver@simulator.invalid'], subject: 'Late', text: 'x' }, 'late');
    await s.settle();
    await s.eventually(async () => lines.includes(`"message_id":"${late.body.id}"`), 30_000);
    follow.kill('SIGINT');
    expect(await exited).toBe(130);
    const events = lines
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);

    const identities = await json(['identities', 'list']);
    expect(identities.data.map((i: { primary_address: string }) => i.primary_address).sort()).toEqual(
      [s.agent.address, s.peer.address].sort(),
    );
    const keys = await json(['keys', 'list']);
    expect(keys.data.length).toBeGreaterThan(0);

    // doctor on a profile file like npm start's: every check passes, then a dead DynamoDB fails it.
    const stateDir = mkdtempSync(join(tmpdir(), 'pmail-doctor-'));
    const local = {
      api: http.url,
      apiKey: s.apiKey,
      tenantId: s.tenantId,
      identities: s.identities,
      dynamoEndpoint: inject('dynamoEndpoint'),
      table: s.deps.db.table,
    };
    writeFileSync(join(stateDir, 'local.json'), JSON.stringify(local));
    const doctorEnv = { ...(process.env as Record<string, string>), PMAIL_STATE_DIR: stateDir };
    const ok = await pmail(doctorEnv, ['doctor', '--json']);
    expect(ok.code, ok.stdout).toBe(0);
    const checks = Object.fromEntries(
      JSON.parse(ok.stdout).checks.map((c: { name: string; result: string }) => [c.name, c.result]),
    );
    expect(checks).toMatchObject({
      java: 'pass',
      dynamodb: 'pass',
      table: 'pass',
      api: 'pass',
      'state machines': 'pass',
    });
    writeFileSync(
      join(stateDir, 'local.json'),
      JSON.stringify({ ...local, dynamoEndpoint: 'http://127.0.0.1:9' }),
    );
    const failed = await pmail(doctorEnv, ['doctor']);
    expect(failed.code).toBe(12);
    expect(failed.stdout).toMatch(/^fail {2}dynamodb/m);
  }, 120_000);
});
