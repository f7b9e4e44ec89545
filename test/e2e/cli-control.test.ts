import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../functions/local/dynamodb-local.ts';
import { startHttpServer } from '../../functions/local/http-server.ts';
import { seedPlatformKey } from '../../functions/local/seed.ts';
import { silentLogger } from '../../functions/log.ts';
import { buildCli, ROOT, runInProcess } from '../support/cli.ts';
import { ownTable, type TestStack, testStack } from '../support/local.ts';

/**
 * The control plane from the CLI, end to end: each command in this process (bin/cli/program.ts ›
 * runPmail) against the local stack's HTTP server, through @pmail/client, as an operator takes the
 * deploy guide (docs/deploying.md): a tenant, its key, an identity, a domain, a webhook, a
 * suppression. Then one case per exit code of docs/guides/cli.md › Exit codes.
 */
const EMPTY_STATE = mkdtempSync(join(tmpdir(), 'pmail-cli-control-'));
let s: TestStack;
let http: Awaited<ReturnType<typeof startHttpServer>>;
let platformKey: string;
const closers: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  // A scheduled send waits 5 s here (the --wait timeout case), so the stack still settles.
  // A table of its own: the stream (`pmail watch`) reads the table's stream.
  s = await testStack({
    table: ownTable('cli'),
    config: { simEventDelaySeconds: 0 },
    waitTimeOverrides: { WaitUntilSendAt: 5000 },
    stream: {},
  });
  http = await startHttpServer(s.groups, { port: 0, log: silentLogger, stream: s.stream });
  platformKey = (await seedPlatformKey(s.deps)).apiKey;
});
afterAll(async () => {
  for (const c of closers) await c();
  await http?.close();
  await s?.settle();
  await s?.close();
});

const env = (extra: Record<string, string> = {}) => ({
  PATH: process.env.PATH,
  PMAIL_STATE_DIR: EMPTY_STATE,
  PMAIL_API: http.url,
  ...extra,
});
const pmail = (args: string[], extra?: Record<string, string>) => runInProcess(args, env(extra));
/** The command's --json document (it must succeed). */
async function json(args: string[], extra?: Record<string, string>) {
  const r = await pmail([...args, '--json'], extra);
  expect(r.code, `${args.join(' ')}: ${r.stdout}${r.stderr}`).toBe(0);
  return JSON.parse(r.stdout);
}
const suffix = () => Math.random().toString(36).slice(2, 8);
/** Does this server have the route? (a 404 route_not_found says no) */
async function hasRoute(method: string, path: string) {
  const res = await fetch(`${http.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${platformKey}` },
  });
  return (
    ((await res.json().catch(() => ({}))) as { error?: { code?: string } }).error?.code !== 'route_not_found'
  );
}

describe('the control plane through the CLI', () => {
  it('a tenant, its key, an identity paused and resumed, a domain and its DNS records, a webhook, a suppression, a revoked key', async () => {
    const P = { PMAIL_KEY: platformKey };
    const slug = `acme-${suffix()}`;
    const tenant = await json(['tenants', 'create', '--slug', slug, '--name', 'Acme', '--mode', 'test'], P);
    expect(tenant).toMatchObject({ slug, name: 'Acme', mode: 'test' });
    // Human output: a table with a heading row; `get` one field per line.
    const listed = await pmail(['tenants', 'list'], P);
    expect(listed.stdout).toMatch(/^ID +SLUG +MODE +STATUS +NAME$/m);
    expect(listed.stdout).toMatch(new RegExp(`^${tenant.id} +${slug} +test `, 'm'));
    expect((await pmail(['tenants', 'get', tenant.id], P)).stdout).toContain(`slug:   ${slug}`);

    // A tenant key, every tenant permission by default; its secret printed once, in human mode too.
    const made = await pmail(
      ['keys', 'create', '--name', 'acme-ops', '--level', 'tenant', '--tenant', tenant.id],
      P,
    );
    expect(made.code, made.stderr).toBe(0);
    const secret = /^secret: +(\S+)$/m.exec(made.stdout)?.[1];
    expect(secret).toMatch(/^pm_test_/);
    const T = { PMAIL_KEY: secret! };
    expect((await json(['keys', 'list'], P)).data.map((k: { name: string }) => k.name)).toContain('acme-ops');

    // An identity in the key's own tenant (GET /v1/me), paused and resumed.
    const identity = await json(
      [
        'identities',
        'create',
        '--username',
        'bookings',
        '--owner-name',
        'Sam Patel',
        '--owner-email',
        'sam@example.com',
      ],
      T,
    );
    expect(identity).toMatchObject({ tenant_id: tenant.id, status: 'active' });
    expect((await json(['identities', 'list'], T)).data.map((i: { id: string }) => i.id)).toEqual([
      identity.id,
    ]);
    expect((await json(['identities', 'pause', identity.id], T)).status).toBe('paused');
    const paused = await pmail(
      ['send', '--to', 'deliver@simulator.invalid', '--text', 'x', '--identity', identity.id],
      T,
    );
    expect([paused.code, paused.stderr]).toEqual([6, expect.stringContaining('identity_paused')]);
    expect((await json(['identities', 'resume', identity.id], T)).status).toBe('active');
    const sent = await json(
      ['send', '--to', 'deliver@simulator.invalid', '--text', 'x', '--identity', identity.id, '--wait'],
      T,
    );
    expect(sent.status).toBe('delivered');

    // A domain (the local stack's SES identities verify at once): its records, then healthy.
    const name = `d${suffix()}.example.com`;
    const domain = await json(['domains', 'add', name, '--mail-from', `pm-bounce.${name}`], T);
    expect(domain).toMatchObject({ name, transport: 'ses', reply_token: 'subaddress' });
    expect((await json(['domains', 'list'], T)).data.map((d: { id: string }) => d.id)).toContain(domain.id);
    const dns = await pmail(['domains', 'dns', domain.id], T);
    expect(dns.stdout).toMatch(/^TYPE +NAME +VALUE/m);
    expect(dns.stdout).toMatch(
      new RegExp(`^CNAME +\\S+\\._domainkey\\.${name.replace(/\./g, '\\.')} .* required$`, 'm'),
    );
    expect((await json(['domains', 'verify', domain.id], T)).state).toBe('healthy');
    expect((await json(['domains', 'get', domain.id], T)).state).toBe('healthy');

    // A webhook endpoint: its signing secret once, listed, deleted.
    const hook = await json(
      ['webhooks', 'add', 'https://hooks.example.com/pmail', '--event', 'message.delivered'],
      T,
    );
    expect(hook.secret).toMatch(/^whsec_/);
    expect((await json(['webhooks', 'list'], T)).data.map((w: { id: string }) => w.id)).toEqual([hook.id]);
    expect((await pmail(['webhooks', 'delete', hook.id], T)).stdout).toBe(`deleted ${hook.id}\n`);
    expect((await json(['webhooks', 'list'], T)).data).toEqual([]);

    // A suppression: a send to it is suppressed; removed, it sends again.
    const blocked = 'bounce+cli@simulator.invalid';
    await json(['suppressions', 'add', blocked], T);
    expect((await pmail(['suppressions', 'list'], T)).stdout).toContain('manual');
    const refused = await pmail(
      ['send', '--to', blocked, '--text', 'x', '--identity', identity.id, '--wait', '--json'],
      T,
    );
    expect([refused.code, JSON.parse(refused.stdout).status]).toEqual([15, 'suppressed']);
    expect((await pmail(['suppressions', 'remove', blocked], T)).code).toBe(0);
    expect((await json(['suppressions', 'list'], T)).data).toEqual([]);

    // The tenant key revoked: it is refused at once (exit 4).
    expect((await pmail(['keys', 'revoke', /^id: +(\S+)$/m.exec(made.stdout)![1]], P)).code).toBe(0);
    const gone = await pmail(['identities', 'list'], T);
    expect(gone.code).toBe(4);
  }, 60_000);

  it('webhooks test sends a test delivery to the endpoint', async (ctx) => {
    if (!(await hasRoute('POST', '/v1/webhooks/wh_none/test')))
      return ctx.skip('POST /v1/webhooks/{id}/test is not on this branch yet');
    const hook = await json(['webhooks', 'add', 'https://hooks.example.com/test'], { PMAIL_KEY: s.apiKey });
    const r = await pmail(['webhooks', 'test', hook.id], { PMAIL_KEY: s.apiKey });
    expect(r.code, r.stderr).toBe(0);
  });
});

describe('reading mail through the CLI', () => {
  it('inbox, threads and thread show what arrived, with escape sequences of the email removed', async () => {
    const subject = `Invoice \x1b[31m${suffix()}`;
    const sent = await s.send({ to: [s.peer.address], subject, text: 'Please pay.' });
    expect(sent.status).toBe(202);
    await s.settle();
    const P = { PMAIL_KEY: s.apiKey, PMAIL_IDENTITY: s.peer.id };
    const inbox = await pmail(['inbox'], P);
    expect(inbox.code, inbox.stderr).toBe(0);
    expect(inbox.stdout).toMatch(/^ID +RECEIVED +FROM +SUBJECT$/m);
    expect(inbox.stdout).toContain(s.agent.address);
    expect(inbox.stdout).toContain('Invoice \uFFFD[31m');
    expect(inbox.stdout).not.toContain('\x1b');
    const [received] = (await json(['inbox'], P)).data;
    expect(received.subject).toBe(subject);

    const threads = await json(['threads'], P);
    const thread = threads.data.find((t: { id: string }) => t.id === received.thread_id);
    expect(thread).toMatchObject({ message_count: 1 });
    const shown = await pmail(['thread', received.thread_id], P);
    expect(shown.code, shown.stderr).toBe(0);
    // The conversation's text: the received message under its line, the subject's escape replaced.
    expect(shown.stdout).toMatch(new RegExp(`^── received \\S+  .+ → .+  ${received.id}$`, 'm'));
    expect(shown.stdout).toMatch(/^ {3}Please pay\.$/m);
    expect(shown.stdout).not.toContain('\x1b');
    expect((await pmail(['thread', 'thr_00000000000000000000000000'], P)).code).toBe(5);
  });
});

describe('a person approves or rejects a send', () => {
  it('list --status pending_approval shows what waits; approve sends it, reject sends nothing', async () => {
    const T = { PMAIL_KEY: s.apiKey };
    const idn = await json(
      [
        'identities',
        'create',
        '--username',
        `careful-${suffix()}`,
        '--owner-name',
        'Sam',
        '--owner-email',
        'sam@example.com',
        '--require-approval',
      ],
      T,
    );
    const A = { ...T, PMAIL_IDENTITY: idn.id };
    const one = await json(['send', '--to', 'deliver@simulator.invalid', '--text', 'one'], A);
    const two = await json(['send', '--to', 'deliver@simulator.invalid', '--text', 'two'], A);
    expect([one.status, two.status]).toEqual(['pending_approval', 'pending_approval']);
    const waiting = await json(['list', '--status', 'pending_approval'], A);
    expect(waiting.data.map((m: { id: string }) => m.id).sort()).toEqual([one.id, two.id].sort());

    const approved = await pmail(['approve', one.id], A);
    expect(approved.code, approved.stderr).toBe(0);
    expect(approved.stdout).toMatch(new RegExp(`^approved: ${one.id}`));
    expect((await json(['reject', two.id], A)).status).toBe('canceled');
    // A second decision is refused: exit 6.
    expect((await pmail(['reject', one.id], A)).code).toBe(6);
    await s.settle();
    expect((await json(['status', one.id], A)).status).toBe('delivered');
    expect((await json(['status', two.id], A)).status).toBe('canceled');
  });
});

describe('pmail send --batch', () => {
  it('sends each line once, derives a key for a line without one, and running the file again sends nothing twice', async () => {
    const A = { PMAIL_KEY: s.apiKey, PMAIL_IDENTITY: s.agent.id };
    const tag = suffix();
    const dir = mkdtempSync(join(tmpdir(), 'pmail-batch-'));
    const file = join(dir, 'mail.jsonl');
    const line = (subject: string, extra: Record<string, unknown> = {}) =>
      JSON.stringify({
        to: ['deliver@simulator.invalid'],
        subject: `${tag} ${subject}`,
        text: subject,
        ...extra,
      });
    writeFileSync(
      file,
      [
        line('one'),
        '',
        line('two', { idempotency_key: `batch-${tag}-two` }),
        line('bad', { to: ['nobody'] }),
      ].join('\n'),
    );
    const first = await pmail(['send', '--batch', file], A);
    expect(first.code, first.stderr).toBe(7);
    expect(first.stderr).toMatch(/^2 line\(s\) without idempotency_key/);
    const lines = first.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^#1: accepted msg_\w+ queued \(key pmail-batch-[0-9a-f]{32}\)$/);
    expect(lines[1]).toMatch(new RegExp(`^#2: accepted msg_\\w+ queued \\(key batch-${tag}-two\\)$`));
    expect(lines[2]).toMatch(/^#3: error address_invalid: /);
    expect(lines[3]).toBe('2 of 3 accepted');

    const rerun = await pmail(['send', '--batch', file, '--json'], A);
    expect(rerun.code).toBe(7);
    const again = JSON.parse(rerun.stdout);
    const items = again.data as { status: number; message?: { deduplicated: boolean } }[];
    expect(items.map((d) => [d.status, d.message?.deduplicated])).toEqual([
      [202, true],
      [202, true],
      [400, undefined],
    ]);
    const sent = (await s.mailbox(s.agent.id, 'outbound')).filter((m) => m.subject.startsWith(tag));
    expect(sent.map((m) => m.subject).sort()).toEqual([`${tag} one`, `${tag} two`]);

    // The same email on two lines without keys would be one key: refused before anything is sent.
    writeFileSync(file, [line('three'), line('three')].join('\n'));
    const twice = await pmail(['send', '--batch', file], A);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toMatch(/mail\.jsonl:2: the same email as line 1/);
    const flags = await pmail(['send', '--batch', file, '--to', 'a@b.c'], A);
    expect(flags.code).toBe(2);
  });
});

describe('pmail watch', () => {
  it('prints each inbound message written after --after as it comes, and exits 130 on Ctrl-C', async () => {
    const before = await s.send({ to: [s.peer.address], subject: `Before ${suffix()}`, text: 'x' });
    await s.settle();
    const [first] = await s.mailbox(s.peer.id, 'inbound');
    const child = spawn(process.execPath, [buildCli(), 'watch', '--after', first.id, '--json'], {
      cwd: ROOT,
      env: env({ PMAIL_KEY: s.apiKey, PMAIL_IDENTITY: s.peer.id }) as Record<string, string>,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let lines = '';
    child.stdout.on('data', (d) => {
      lines += d;
    });
    const exited = new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
    const subject = `While watching ${suffix()}`;
    await s.send({ to: [s.peer.address], subject, text: 'y' });
    await s.settle();
    await s.eventually(async () => lines.includes(subject), 20_000);
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    const seen = lines
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).subject);
    expect(seen).toEqual([subject]);
    expect(before.status).toBe(202);
  });
});

describe('pmail watch over the stream', () => {
  it('without --after prints what comes from now on, pushed on the event stream', async () => {
    const child = spawn(process.execPath, [buildCli(), 'watch'], {
      cwd: ROOT,
      env: env({ PMAIL_KEY: s.apiKey, PMAIL_IDENTITY: s.peer.id }) as Record<string, string>,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let lines = '';
    child.stdout.on('data', (d) => {
      lines += d;
    });
    const exited = new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
    // Only a stream delivers to it: wait for its socket on the local gateway.
    await s.eventually(async () => (s.stream?.open ?? 0) > 0, 20_000);
    const subject = `Pushed ${suffix()}`;
    await s.send({ to: [s.peer.address], subject, text: 'z' });
    await s.eventually(async () => lines.includes(subject), 20_000);
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(lines.trim().split('\n')).toEqual([expect.stringContaining(subject)]);
  });
});

/** A server that answers every request 418 without a body: an answer the CLI has no meaning for. */
async function teapot(): Promise<string> {
  const server = createServer((_req, res) => res.writeHead(418).end());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  closers.push(() => new Promise((r) => server.close(r)));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('exit codes (docs/guides/cli.md › Exit codes)', () => {
  const A = () => ({ PMAIL_KEY: s.apiKey, PMAIL_IDENTITY: s.agent.id });
  const later = () => new Date(Date.now() + 3600_000).toISOString();
  const cases: [code: number, what: string, run: () => Promise<{ code: number; stderr: string }>][] = [
    [0, 'ok', () => pmail(['identities', 'list'], A())],
    [
      1,
      'an answer the CLI has no meaning for (HTTP 418)',
      async () => pmail(['keys', 'list', '--api', await teapot()], A()),
    ],
    [2, 'usage', () => pmail(['status'], A())],
    [3, 'configuration: no API key', () => pmail(['keys', 'list'])],
    [4, 'authentication', () => pmail(['keys', 'list'], { PMAIL_KEY: 'pmk_test_nobody' })],
    [
      5,
      'not found',
      () => pmail(['tenants', 'get', 'ten_00000000000000000000000000'], { PMAIL_KEY: platformKey }),
    ],
    [
      6,
      'conflict: resolve of a message that is not uncertain',
      async () => {
        const m = await json(['send', '--to', 'deliver@simulator.invalid', '--text', 'x'], A());
        return pmail(['resolve', m.id, '--outcome', 'sent'], A());
      },
    ],
    [
      7,
      'invalid: an identity username the API refuses',
      () => pmail(['identities', 'create', '--username', 'not a name!'], A()),
    ],
    [
      8,
      'limited: past the tenant’s daily cap',
      async () => {
        const P = { PMAIL_KEY: platformKey };
        const t = await json(
          [
            'tenants',
            'create',
            '--slug',
            `capped-${suffix()}`,
            '--mode',
            'test',
            '--daily-cap',
            '1',
            '--identity-daily-cap',
            '1',
          ],
          P,
        );
        const key = (await json(['keys', 'create', '--name', 'k', '--level', 'tenant', '--tenant', t.id], P))
          .secret;
        const idn = (
          await json(
            [
              'identities',
              'create',
              '--username',
              'capped',
              '--owner-name',
              'Ops',
              '--owner-email',
              'ops@example.com',
            ],
            { PMAIL_KEY: key },
          )
        ).id;
        const K = { PMAIL_KEY: key, PMAIL_IDENTITY: idn };
        await json(['send', '--to', 'deliver@simulator.invalid', '--text', 'one'], K);
        return pmail(['send', '--to', 'deliver@simulator.invalid', '--text', 'two'], K);
      },
    ],
    [
      9,
      'unavailable: nothing listens at the API URL',
      async () => pmail(['keys', 'list', '--api', `http://127.0.0.1:${await freePort()}`], A()),
    ],
    [
      12,
      'doctor found a failure (DynamoDB unreachable)',
      () => {
        const dir = mkdtempSync(join(tmpdir(), 'pmail-doctor-'));
        writeFileSync(
          join(dir, 'local.json'),
          JSON.stringify({
            api: http.url,
            apiKey: s.apiKey,
            tenantId: s.tenantId,
            identities: s.identities,
            dynamoEndpoint: 'http://127.0.0.1:9',
            table: s.deps.db.table,
          }),
        );
        return runInProcess(['doctor'], { PATH: process.env.PATH, PMAIL_STATE_DIR: dir });
      },
    ],
    [
      13,
      '--wait timed out',
      () =>
        pmail(
          [
            'send',
            '--to',
            'deliver@simulator.invalid',
            '--text',
            'x',
            '--send-at',
            later(),
            '--wait',
            '--timeout',
            '1',
          ],
          A(),
        ),
    ],
    [
      15,
      '--wait ended unsent (rejected)',
      () => pmail(['send', '--to', 'reject@simulator.invalid', '--text', 'x', '--wait'], A()),
    ],
  ];

  it.each(cases)(
    'exit %i: %s',
    async (code, _what, run) => {
      const r = await run();
      expect(r.code, r.stderr).toBe(code);
    },
    30_000,
  );

  it('exit 130: the built CLI, interrupted while following events', async () => {
    const built = buildCli();
    const child = spawn(process.execPath, [built, 'events', '--follow', '--interval', '0.2'], {
      cwd: ROOT,
      env: env(A()) as Record<string, string>,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    const exited = new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
    await s.eventually(async () => out.includes('message.'), 20_000);
    child.kill('SIGINT');
    expect(await exited).toBe(130);
  }, 30_000);
});
