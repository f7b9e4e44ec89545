import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpServer } from '../../functions/local/http-server.ts';
import { silentLogger } from '../../functions/log.ts';
import { REPLY_SHAPES } from '../fixtures/replies/shapes.ts';
import { ROOT, runCli } from '../support/cli.ts';
import { type TestStack, testStack } from '../support/local.ts';

/**
 * `pmail read` and `pmail thread` in a terminal (docs/guides/cli.md › Reading mail): the CLI run in a
 * pseudo-terminal (tmux) against the local stack's HTTP server, its MX taking the customer's answer.
 * A received message prints its new text (`--full`: with the quote) and never a send attempt; a sent
 * one prints what was sent; a thread prints both sides in order.
 */
const hasTmux = (() => {
  try {
    execFileSync('tmux', ['-V']);
    return true;
  } catch {
    return false;
  }
})();

let s: TestStack;
let env: Record<string, string>;
const closers: (() => Promise<unknown>)[] = [];
const customer = 'delivered@simulator.invalid';
const answer = REPLY_SHAPES[0];
let sentId: string;
let threadId: string;
let receivedId: string;

beforeAll(async () => {
  s = await testStack({ inbound: { port: 0 }, config: { simEventDelaySeconds: 0 } });
  const http = await startHttpServer(s.groups, { port: 0, log: silentLogger });
  closers.push(http.close);
  env = {
    PMAIL_API: http.url,
    PMAIL_KEY: s.apiKey,
    PMAIL_IDENTITY: s.agent.id,
    PMAIL_STATE_DIR: mkdtempSync(join(tmpdir(), 'pmail-read-')),
  };
  const sent = await s.send({ to: [customer], subject: 'Tuesday', text: 'Can we meet on Tuesday?' });
  sentId = sent.body.id;
  threadId = sent.body.thread_id;
  await s.settle();
  const transport = nodemailer.createTransport({
    host: s.mx!.host,
    port: s.mx!.port,
    secure: false,
    ignoreTLS: true,
  });
  await transport.sendMail({
    from: `Customer <${customer}>`,
    to: s.agent.address,
    subject: 'Re: Tuesday',
    inReplyTo: sent.body.rfc_message_id,
    text: answer.text,
  });
  await s.settle();
  receivedId = (
    await s.eventually(async () =>
      (await s.mailbox(s.agent.id, 'inbound')).find((m) => m.subject === 'Re: Tuesday'),
    )
  ).id;
}, 60_000);

afterAll(async () => {
  for (const c of closers) await c();
  await s?.settle();
  await s?.close();
});

/** `pmail ARGS` in a tmux session of its own; the screen once the command has exited. */
async function onScreen(args: string[]): Promise<string> {
  const session = `pmail-read-${process.pid}-${Date.now()}`;
  const exports = Object.entries(env)
    .map(([k, v]) => `${k}='${v}'`)
    .join(' ');
  const command = `cd '${ROOT}' && env ${exports} '${process.execPath}' --import tsx bin/pmail-cli.ts ${args.join(' ')}; echo "EXIT=$?"; sleep 600`;
  execFileSync('tmux', ['new-session', '-d', '-s', session, '-x', '160', '-y', '50', command]);
  closers.push(async () => {
    try {
      execFileSync('tmux', ['kill-session', '-t', session], { stdio: 'ignore' });
    } catch {}
  });
  const deadline = Date.now() + 30_000;
  let screen = '';
  while (!/EXIT=\d+/.test(screen) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    screen = execFileSync('tmux', ['capture-pane', '-p', '-t', session], { encoding: 'utf8' });
  }
  return screen;
}

describe.skipIf(!hasTmux)('pmail read and pmail thread in a terminal', () => {
  it('reads a received message’s new text, --full its quote too, and shows no send attempt', async () => {
    const screen = await onScreen(['read', receivedId]);
    expect(screen).toContain('EXIT=0');
    expect(screen).toContain(`From:    Customer <${customer}>`);
    expect(screen).toContain('Subject: Re: Tuesday');
    expect(screen).toContain(answer.expected);
    expect(screen).not.toContain('wrote:');
    expect(screen).toContain(`pmail read ${receivedId} --full`);
    expect(screen).not.toMatch(/attempt/i);
    const full = await onScreen(['read', receivedId, '--full']);
    expect(full).toContain('wrote:');
    expect(full).toContain('> Can we meet on Tuesday?');
  }, 60_000);

  it('reads a sent message’s text as it went out, with its status and attempt', async () => {
    const screen = await onScreen(['read', sentId]);
    expect(screen).toContain('EXIT=0');
    expect(screen).toContain('To:      delivered@simulator.invalid');
    expect(screen).toMatch(/Status: {2}delivered, attempt sent/);
    expect(screen).toContain('Can we meet on Tuesday?');
  }, 60_000);

  it('prints the conversation in order: what was sent beside what came back', async () => {
    const screen = await onScreen(['thread', threadId]);
    expect(screen).toContain('EXIT=0');
    const sentAt = screen.indexOf('Can we meet on Tuesday?');
    const answerAt = screen.indexOf(answer.expected);
    expect(sentAt).toBeGreaterThan(-1);
    expect(answerAt).toBeGreaterThan(sentAt);
    expect(screen).toMatch(/── sent .* delivered {2}msg_/);
    expect(screen).toMatch(/── received .*Customer <delivered@simulator\.invalid>/);
    expect(screen).not.toContain('wrote:');
  }, 60_000);
});

describe('pmail status of a received message', () => {
  it('shows what arrived, and no send attempt', async () => {
    const run = await runCli(['status', receivedId], { ...(process.env as Record<string, string>), ...env });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('status:  received');
    expect(run.stdout).not.toContain('attempt');
    const json = await runCli(['status', receivedId, '--json'], {
      ...(process.env as Record<string, string>),
      ...env,
    });
    expect(JSON.parse(json.stdout)).not.toHaveProperty('attempt');
    const list = await runCli(['list', '--direction', 'inbound'], {
      ...(process.env as Record<string, string>),
      ...env,
    });
    expect(list.stdout).toMatch(new RegExp(`${receivedId} +inbound +received {4}\\s+ Re: Tuesday`));
  }, 60_000);
});
