import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.ts';
import { type StartedStack, startLocalStack } from '../support/start.ts';

/**
 * `pmail admin bootstrap --local` against the table `npm start` runs on (docs/deploying.md › 4. The
 * bootstrap key): refused (exit 3) while the seeded platform key is live; once that key is revoked,
 * it mints a platform key that the running API accepts.
 */
let stack: StartedStack | undefined;

afterAll(async () => {
  await stack?.stop();
});

const run = (args: string[]) => runCli(args);

describe('pmail admin bootstrap --local', () => {
  it('refuses while npm start’s platform key is live, and mints one the running API accepts once it is revoked', async () => {
    stack = await startLocalStack();
    const { local, stateDir } = stack;
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
