import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { startHttpServer } from '../../functions/local/http-server.ts';
import { createLocalRuntime, type LocalRuntime } from '../../functions/local/runtime.ts';
import { silentLogger } from '../../functions/log.ts';
import { runCli } from '../support/cli.ts';

/**
 * The way in after a deploy, as an operator takes it (docs/deploying.md), on the local stack over HTTP and
 * the CLI only: bootstrap → platform key → revoke the bootstrap key → tenant → identities → tenant
 * key → identity key → a send with the identity key → rotate → revoke (401). The stack runs on a
 * table of its own, so it starts as a fresh deployment does: no tenant, no identity, no key.
 */
const table = `wayin-${Date.now().toString(36)}-${process.pid}`;
let runtime: LocalRuntime;
let http: Awaited<ReturnType<typeof startHttpServer>>;

afterAll(async () => {
  await http?.close();
  await runtime?.settle();
  await runtime?.close();
});

async function api(
  method: string,
  path: string,
  key: string | undefined,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; body: any }> {
  const res = await fetch(`${http.url}${path}`, {
    method,
    headers: {
      ...(key ? { authorization: `Bearer ${key}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

async function eventually<T>(check: () => Promise<T | undefined | false>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let wait = 10;
  for (;;) {
    const v = await check();
    if (v !== undefined && v !== false) return v as T;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, wait));
    wait = Math.min(wait * 2, 250);
  }
}

const cli = (args: string[]) => runCli(args);

describe('the way in after cdk deploy', () => {
  it('goes from an empty deployment to a sent email with an identity key, then rotates and revokes it', async () => {
    const endpoint = inject('dynamoEndpoint');
    runtime = await createLocalRuntime({
      endpoint,
      table,
      stateDir: mkdtempSync(join(tmpdir(), 'pmail-wayin-')),
      log: silentLogger,
      queueSecondsToMs: 10,
      config: { simEventDelaySeconds: 0 },
    });
    http = await startHttpServer(runtime.groups, { port: 0, log: silentLogger });

    // The deployment answers without a key.
    const health = await api('GET', '/health', undefined);
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({ status: 'ok', checks: { table: 'ok', state_machines: 'ok' } });
    const contract = await api('GET', '/openapi.json', undefined);
    expect(contract.body.openapi).toMatch(/^3\.1/);
    expect(Object.keys(contract.body.paths)).toContain('/v1/keys/{key_id}/rotate');

    // 1. Bootstrap: the first platform key, printed once; a second bootstrap is refused with exit 3.
    const boot = await cli(['admin', 'bootstrap', '--table', table, '--endpoint', endpoint, '--json']);
    expect(boot.code, boot.stderr).toBe(0);
    const bootstrap = JSON.parse(boot.stdout) as { key_id: string; key: string; expires_at: string };
    expect(bootstrap.key).toMatch(/^pm_live_/);
    expect(boot.stderr).not.toContain(bootstrap.key);
    const again = await cli(['admin', 'bootstrap', '--table', table, '--endpoint', endpoint, '--json']);
    expect(again.code).toBe(3);
    // With --json the refusal is the error envelope on stdout (README › The CLI › Output).
    expect(JSON.parse(again.stdout).error.message).toContain(bootstrap.key_id);
    expect(again.stdout + again.stderr).not.toContain(bootstrap.key);

    const me = await api('GET', '/v1/me', bootstrap.key);
    expect(me.body).toMatchObject({ key_id: bootstrap.key_id, level: 'platform', tenant_id: null });
    const lifetime = Date.parse(me.body.expires_at) - Date.now();
    expect(lifetime).toBeGreaterThan(23 * 3600_000);
    expect(lifetime).toBeLessThanOrEqual(24 * 3600_000);

    // 2. A long-lived platform key; the secret is shown once, a replay answers without it.
    const platformBody = {
      name: 'operator',
      level: 'platform',
      permissions: [
        'tenants:manage',
        'keys:manage',
        'policy:write',
        'audit:read',
        'suppressions:manage',
        'identities:read',
        'identities:write',
        'messages:send',
        'messages:read',
        'messages:write',
        'messages:approve',
        'messages:hold',
        'webhooks:read',
        'webhooks:manage',
        'events:read',
        'domains:read',
        'domains:write',
        'templates:read',
        'templates:write',
      ],
    };
    const minted = await api('POST', '/v1/keys', bootstrap.key, platformBody, {
      'idempotency-key': 'operator-key',
    });
    expect(minted.status).toBe(201);
    expect(minted.body).toMatchObject({ level: 'platform', expires_at: null, status: 'active' });
    const platformKey = minted.body.secret as string;
    const replay = await api('POST', '/v1/keys', bootstrap.key, platformBody, {
      'idempotency-key': 'operator-key',
    });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.id).toBe(minted.body.id);
    expect(replay.body.secret).toBeUndefined();
    expect(replay.body.secret_replayed).toBe(false);

    // 3. Revoke the bootstrap key with the new one (which holds every permission the bootstrap key
    // holds: a key never revokes a wider one).
    expect((await api('DELETE', `/v1/keys/${bootstrap.key_id}`, platformKey)).status).toBe(204);
    const revokedBoot = await api('GET', '/v1/me', bootstrap.key);
    expect(revokedBoot.status).toBe(401);
    expect(revokedBoot.body.error.code).toBe('key_revoked');

    // 4. A test tenant and two identities.
    const tenant = await api('POST', '/v1/tenants', platformKey, {
      slug: 'acme',
      name: 'Acme Car Hire',
      mode: 'test',
      timezone: 'Europe/London',
    });
    expect(tenant.status).toBe(201);
    const tenantId = tenant.body.id as string;
    const identity = (username: string) =>
      api('POST', `/v1/tenants/${tenantId}/identities`, platformKey, {
        username,
        display_name: username,
        owner: { name: 'Sam Patel', email: 'sam@acme.example' },
      });
    const agent = await identity('bookings');
    expect(agent.status).toBe(201);
    expect(agent.body.primary_address).toBe('bookings@acme.pmail.test');
    const peer = (await identity('desk')).body;

    // 5. A tenant key, and with it an identity key for the agent.
    const tenantKey = await api('POST', '/v1/keys', platformKey, {
      name: 'acme-backend',
      level: 'tenant',
      tenant_id: tenantId,
      permissions: ['keys:manage', 'identities:read', 'messages:send', 'messages:read'],
    });
    expect(tenantKey.status).toBe(201);
    expect(tenantKey.body.secret).toMatch(/^pm_test_/);
    const identityKey = await api('POST', '/v1/keys', tenantKey.body.secret, {
      name: 'bookings-agent',
      level: 'identity',
      identity_id: agent.body.id,
      permissions: ['messages:send', 'messages:read'],
    });
    expect(identityKey.status).toBe(201);
    expect(identityKey.body).toMatchObject({
      level: 'identity',
      tenant_id: tenantId,
      identity_id: agent.body.id,
    });
    const keyId = identityKey.body.id as string;

    // 6. A send with the identity key reaches the other identity.
    const sent = await api(
      'POST',
      `/v1/identities/${agent.body.id}/messages`,
      identityKey.body.secret,
      { to: [peer.primary_address], subject: 'First booking', text: 'Hello from the agent.' },
      { 'idempotency-key': 'first-booking' },
    );
    expect(sent.status).toBe(202);
    await eventually(async () => {
      const inbox = await api('GET', `/v1/identities/${peer.id}/messages`, tenantKey.body.secret, undefined);
      return inbox.body.data.some((m: { subject: string }) => m.subject === 'First booking');
    });
    const used = await api('GET', `/v1/keys/${keyId}`, tenantKey.body.secret);
    expect(used.body.last_used_at).not.toBeNull();

    // 7. Rotate with no overlap: the old secret stops at once, the new one works.
    const rotated = await api('POST', `/v1/keys/${keyId}/rotate`, tenantKey.body.secret, {
      overlap_hours: 0,
    });
    expect(rotated.status).toBe(200);
    expect(rotated.body.id).toBe(keyId);
    const old = await api('GET', `/v1/identities/${agent.body.id}/messages`, identityKey.body.secret);
    expect(old.status).toBe(401);
    expect(old.body.error.code).toBe('key_expired');
    expect((await api('GET', `/v1/identities/${agent.body.id}/messages`, rotated.body.secret)).status).toBe(
      200,
    );

    // 8. Revoke: the key answers 401 key_revoked.
    expect((await api('DELETE', `/v1/keys/${keyId}`, tenantKey.body.secret)).status).toBe(204);
    const revoked = await api('GET', `/v1/identities/${agent.body.id}/messages`, rotated.body.secret);
    expect(revoked.status).toBe(401);
    expect(revoked.body.error.code).toBe('key_revoked');

    // Every change left its audit item.
    const audit = await api('GET', `/v1/audit-events?tenant_id=${tenantId}&limit=100`, platformKey);
    const actions = audit.body.data.map((a: { action: string }) => a.action);
    expect(actions).toEqual(
      expect.arrayContaining(['tenant.create', 'identity.create', 'key.create', 'key.rotate', 'key.revoke']),
    );
    const platformAudit = await api('GET', '/v1/audit-events', platformKey);
    expect(
      platformAudit.body.data.map((a: { action: string; target_id: string }) => [a.action, a.target_id]),
    ).toEqual(
      expect.arrayContaining([
        ['key.create', bootstrap.key_id],
        ['key.revoke', bootstrap.key_id],
      ]),
    );
  });
});
