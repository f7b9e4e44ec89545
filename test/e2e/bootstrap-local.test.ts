import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../functions/local/dynamodb-local.ts';
import { ROOT, runCli } from '../support/cli.ts';

/**
 * `pmail admin bootstrap --local` against the table `npm start` runs on (docs/deploying.md › 4. The
 * bootstrap key): refused (exit 3) while the seeded platform key is live; once that key is revoked,
 * it mints a platform key that the running API accepts.
 */
const stateDir = mkdtempSync(join(tmpdir(), 'pmail-boot-'));
const children: ChildProcess[] = [];

afterAll(async () => {
  for (const c of children) {
    if (c.exitCode !== null) continue;
    const exited = new Promise((r) => c.once('exit', r));
    c.kill('SIGTERM');
    await exited;
  }
});

const run = (args: string[]) => runCli(args);

describe('pmail admin bootstrap --local', () => {
  it('refuses while npm start’s platform key is live, and mints one the running API accepts once it is revoked', async () => {
    const port = await freePort();
    const child = spawn(process.execPath, ['--import', 'tsx', 'bin/pmail-cli.ts', 'start'], {
      cwd: ROOT,
      env: {
        ...process.env,
        PMAIL_STATE_DIR: stateDir,
        PMAIL_PORT: String(port),
        // never the default 8005: another stack (a parallel test, a developer's npm start) may hold it
        PMAIL_SES_PORT: String(await freePort()),
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
    const deadline = Date.now() + 60_000;
    while (!out.includes('Ctrl-C stops everything')) {
      if (child.exitCode !== null) throw new Error(`pmail start exited early:\n${out}`);
      if (Date.now() > deadline) throw new Error(`pmail start did not come up:\n${out}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const local = JSON.parse(readFileSync(join(stateDir, 'local.json'), 'utf8'));
    const api = (method: string, path: string, key: string) =>
      fetch(`${local.api}${path}`, { method, headers: { authorization: `Bearer ${key}` } });

    const me = (await (await api('GET', '/v1/me', local.platformKey)).json()) as { key_id: string };
    expect(me).toMatchObject({ level: 'platform', expires_at: null });

    const refused = await run(['admin', 'bootstrap', '--local', stateDir, '--json']);
    expect(refused.code).toBe(3);
    // With --json the refusal is the error envelope on stdout (README › The CLI › Output).
    expect(JSON.parse(refused.stdout).error.message).toContain(me.key_id);

    // A key may always revoke itself.
    expect((await api('DELETE', `/v1/keys/${me.key_id}`, local.platformKey)).status).toBe(204);
    const minted = await run(['admin', 'bootstrap', '--local', stateDir, '--json']);
    expect(minted.code, minted.stderr).toBe(0);
    const boot = JSON.parse(minted.stdout);
    expect(boot.api).toBe(local.api);
    const bootMe = await (await api('GET', '/v1/me', boot.key)).json();
    expect(bootMe).toMatchObject({ key_id: boot.key_id, level: 'platform', name: 'bootstrap' });
    expect((await api('GET', '/v1/tenants', boot.key)).status).toBe(200);
  }, 120_000);
});
