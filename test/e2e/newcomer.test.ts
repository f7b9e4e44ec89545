import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../functions/local/dynamodb-local.ts';
import { runCli, spawnRun } from '../support/cli.ts';
import { type StartedStack, startLocalStack } from '../support/start.ts';

/**
 * A newcomer's first hour, as they would take it: `npm start`, then the CLI it prints and the
 * commands of docs/guides/cli.md, against that stack. Each case is something a new user tripped on.
 */
let stack: StartedStack;
beforeAll(async () => {
  stack = await startLocalStack();
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

const env = (extra: Record<string, string> = {}) =>
  ({ ...process.env, PMAIL_STATE_DIR: stack.stateDir, ...extra }) as Record<string, string>;
const pmail = (args: string[], extra?: Record<string, string>) => runCli(args, env(extra));

describe('the CLI beside npm start', () => {
  it('suppressions add and list show the address hint, not -', async () => {
    const added = await pmail(['suppressions', 'add', 'newcomer@example.com']);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toMatch(/^address: +n\*+@example\.com$/m);
    const listed = await pmail(['suppressions', 'list']);
    const [heading, ...rows] = listed.stdout.trim().split('\n');
    expect(heading).toMatch(/^ADDRESS +REASON +CREATED +EXPIRES$/);
    expect(rows.some((r) => /^n\*+@example\.com +manual/.test(r))).toBe(true);
  });

  it('list and events print a heading row above their rows', async () => {
    const sent = await pmail([
      'send',
      '--to',
      'delivered@simulator.invalid',
      '--subject',
      'Heading',
      '--text',
      'x',
    ]);
    expect(sent.code, sent.stderr).toBe(0);
    const list = (await pmail(['list', '--limit', '3'])).stdout.trim().split('\n');
    expect(list[0]).toMatch(/^ID +DIRECTION +STATUS +ATTEMPT +SUBJECT$/);
    expect(list[1]).toMatch(/^msg_\w+ +outbound +\w+/);
    // The send's events follow it (the simulator's delivery): read until the first has come.
    let events: string[] = [];
    for (const end = Date.now() + 20_000; events.length < 2 && Date.now() < end; ) {
      events = (await pmail(['events', '--limit', '3'])).stdout.trim().split('\n');
      if (events.length < 2) await new Promise((r) => setTimeout(r, 250));
    }
    expect(events[0]).toMatch(/^CREATED +TYPE +MESSAGE +ID$/);
    expect(events[1]).toMatch(/^\S+Z +[a-z.]+ +\S+ +evt_\w+$/);
  });

  it('send --wait of a live send ends at submitted, saying why, instead of timing out', async () => {
    const r = await pmail([
      'send',
      '--profile',
      'live',
      '--to',
      'someone@example.net',
      '--subject',
      'Through the local SES',
      '--text',
      'x',
      '--wait',
      '--timeout',
      '20',
    ]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/status: +submitted/);
    expect(r.stderr).toContain(`the local SES (${stack.local.live.ses}) accepted it`);
    expect(r.stderr).toContain('sends no delivery events');
  }, 60_000);

  it('an API that does not answer points to npm start and npx pmail doctor', async () => {
    const r = await pmail(['list'], { PMAIL_API: `http://127.0.0.1:${await freePort()}` });
    expect(r.code).toBe(9);
    expect(r.stderr).toMatch(
      /could not reach http:\/\/127\.0\.0\.1:\d+: ECONNREFUSED\. Is the local stack running\?/,
    );
    expect(r.stderr).toContain('`npm start`');
    expect(r.stderr).toContain('`npx pmail doctor`');
  });

  it('doctor checks the local MX: its SMTP greeting, and a fail when nothing answers', async () => {
    const ok = await pmail(['doctor']);
    expect(ok.code, ok.stdout).toBe(0);
    expect(ok.stdout).toMatch(
      new RegExp(`^pass +local MX +127\\.0\\.0\\.1:${stack.local.inbound.port} `, 'm'),
    );
    // The same profile with the MX somewhere nothing listens.
    const other = mkdtempSync(join(tmpdir(), 'pmail-doctor-'));
    const local = JSON.parse(readFileSync(join(stack.stateDir, 'local.json'), 'utf8'));
    writeFileSync(
      join(other, 'local.json'),
      JSON.stringify({ ...local, inbound: { host: '127.0.0.1', port: await freePort() } }),
    );
    const bad = await pmail(['doctor'], { PMAIL_STATE_DIR: other });
    expect(bad.code).toBe(12);
    expect(bad.stdout).toMatch(
      /^fail +local MX +127\.0\.0\.1:\d+: ECONNREFUSED \(is npm start running\?\)$/m,
    );
  });

  it('names the two seeded tenants for what they are', async () => {
    const r = await pmail(['tenants', 'list', '--profile', 'platform', '--json']);
    const tenants = JSON.parse(r.stdout).data as { id: string; slug: string; name: string; mode: string }[];
    const test = tenants.find((t) => t.id === stack.local.tenantId)!;
    const live = tenants.find((t) => t.id === stack.local.live.tenantId)!;
    expect([test.mode, test.slug, test.name]).toEqual([
      'test',
      expect.stringMatching(/^local-test-/),
      expect.stringMatching(/^Local test tenant: /),
    ]);
    expect([live.mode, live.slug, live.name]).toEqual([
      'live',
      expect.stringMatching(/^local-live-/),
      expect.stringMatching(/^Local live tenant: /),
    ]);
  });

  it('the CLI line of the start banner runs as printed', async () => {
    const line = /Or from the CLI \(it reads \.pmail\/local\.json\): (.+)$/m.exec(stack.output())?.[1];
    expect(line).toMatch(
      /^npx pmail send --to peer@mail\.pmail\.test --subject Hello --text 'My first pmail\.' --wait$/,
    );
    const run = await spawnRun('sh', ['-c', line!], env());
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(/status: +delivered/);
  }, 60_000);
});

describe('npm run capture-relay', () => {
  it('exits 1 and says so when its port is taken (here by the local MX)', async () => {
    const r = await spawnRun(
      process.execPath,
      ['--import', 'tsx', 'bin/capture-relay.ts'],
      env({
        PMAIL_CAPTURE_PORT: String(stack.local.inbound.port),
        PMAIL_STATE_DIR: mkdtempSync(join(tmpdir(), 'pmail-capture-')),
      }),
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`cannot listen on 127.0.0.1:${stack.local.inbound.port} (EADDRINUSE)`);
  }, 60_000);
});
