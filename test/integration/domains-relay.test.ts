import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normaliseRecipient } from '../../functions/core/inbound.ts';
import { SMTP_ALLOWED_PORTS } from '../../functions/core/smtp-outcome.ts';
import { checkDomain } from '../../functions/domains/lifecycle.ts';
import { failDomainOnRelayRefusal } from '../../functions/domains/relay-refusal.ts';
import { autoVerifyingIdentities } from '../../functions/domains/ses-identities.ts';
import { localSmtpProbe } from '../../functions/domains/smtp-probe.ts';
import { LOCAL_SECRET_PREFIX, localSmtpPorts, localSmtpSettings } from '../../functions/local/transports.ts';
import type { Logger } from '../../functions/log.ts';
import { getDomain } from '../../functions/store/directory.store.ts';
import { writeSmtpSecret } from '../../functions/store/relay-secrets.store.ts';
import { keys } from '../../functions/store/table-keys.ts';
import { stackPerTest, type TestStack } from '../support/local.ts';
import { RELAY_PASSWORD, RELAY_TOKEN, RELAY_USER, type Relay, startRelay } from '../support/smtp-relay.ts';

/**
 * The domains API with the SMTP relay and Cloudflare transports, through the HTTP API on the local
 * stack: an `smtp` domain's credentials are write-only (in the secret store, never on the domain,
 * never in an answer or a log line), it stays `verifying` until the relay probe passes (sends: 409
 * `domain_not_ready`), then sends through a local smtp-server (the local runtime's SSRF opt-out);
 * a `cloudflare` domain is healthy at once (unchecked) and sends to a local imitation of the REST API.
 */
const WRONG_PASSWORD = 'not-the-relay-pw-7731';
const logged: string[] = [];
const capture: Logger = {
  info: (msg, fields) => logged.push(JSON.stringify([msg, fields])),
  warn: (msg, fields) => logged.push(JSON.stringify([msg, fields])),
  error: (msg, fields) => logged.push(JSON.stringify([msg, fields])),
};

const stackFor = stackPerTest();
let relay: Relay;
let s: TestStack;
let cf: { base: string; seen: { path: string; authorization?: string; body: Record<string, unknown> }[] };
let cfServer: Server;

beforeAll(async () => {
  relay = await startRelay();
  cf = { base: '', seen: [] };
  cfServer = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
    cf.seen.push({ path: req.url ?? '', authorization: req.headers.authorization, body });
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        success: true,
        errors: [],
        messages: [],
        result: { delivered: [], queued: [...(body.to ?? [])], permanent_bounces: [] },
      }),
    );
  });
  await new Promise<void>((r) => cfServer.listen(0, '127.0.0.1', () => r()));
  cf.base = `http://127.0.0.1:${(cfServer.address() as AddressInfo).port}/client/v4`;
  s = await stackFor({
    seed: { mode: 'live' },
    log: capture,
    smtp: { tlsCa: [relay.cert] },
    cloudflare: { apiBase: cf.base, apiToken: 'cf-token' },
  });
});
afterAll(async () => {
  await relay.close();
  await new Promise<void>((r) => {
    cfServer.closeAllConnections();
    cfServer.close(() => r());
  });
});

let n = 0;
const freshName = () => `r${Date.now().toString(36)}${++n}.example.com`;
const base = () => `/v1/tenants/${s.tenantId}/domains`;
const CF_ACCOUNT = '0123456789abcdef0123456789abcdef';

/** An identity on `domain`, created through the identities API as the README walkthrough does. */
async function identityOn(domain: string) {
  const res = await s.call('POST', `/v1/tenants/${s.tenantId}/identities`, {
    body: { username: `agent${++n}`, owner: { name: 'Owner', email: 'owner@example.com' }, domain },
    headers: { 'idempotency-key': `idn-${domain}-${n}` },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { id: res.body.id as string, address: res.body.primary_address as string };
}

/** A relay copy's MAIL FROM is the sender's own return path (a `+` sub-address of it: docs/guides/domains.md › SMTP relay). */
const isFrom = (mailFrom: string, address: string) =>
  normaliseRecipient(mailFrom)?.address === normaliseRecipient(address)?.address;

const sendFrom = (identityId: string, key: string, subject: string) =>
  s.call('POST', `/v1/identities/${identityId}/messages`, {
    body: { to: ['ann@dest.example'], subject, text: 'hello through the relay' },
    headers: { 'idempotency-key': key },
  });

/** The domain item exactly as stored (D#{domain}). */
async function storedItem(name: string) {
  const out = await s.deps.db.get({
    TableName: s.deps.db.table,
    Key: keys.domain(name),
    ConsistentRead: true,
  });
  return out.Item;
}

const smtpBody = (name: string, password: string) => ({
  name,
  transport: 'smtp',
  smtp: { host: 'localhost', port: relay.port, username: RELAY_USER, password },
});

describe('an smtp domain through the domains API', () => {
  it('is verifying until the probe passes, then healthy, and a send from it reaches the relay once; the password is write-only', async () => {
    const name = freshName();
    const answers: unknown[] = [];
    const created = await s.call('POST', base(), { body: smtpBody(name, RELAY_PASSWORD) });
    answers.push(created.body);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name,
      transport: 'smtp',
      state: 'verifying',
      state_reason: 'smtp_probe_pending',
      smtp: {
        host: 'localhost',
        port: relay.port,
        tls: null,
        username: RELAY_USER,
        auth: 'password',
        credentials_stored: true,
      },
      ses: null,
      cloudflare: null,
      dns_records: [],
    });
    const id = created.body.id as string;

    // Verifying: a send is refused before anything is queued.
    const agent = await identityOn(name);
    const early = await sendFrom(agent.id, `early-${name}`, 'Too early');
    expect(early.status).toBe(409);
    expect(early.body.error.code).toBe('domain_not_ready');
    const connectionsBefore = relay.connections;

    const verified = await s.call('POST', `${base()}/${id}/verify`);
    answers.push(verified.body);
    expect(verified.status).toBe(200);
    expect(verified.body).toMatchObject({ state: 'healthy', state_reason: null });
    expect(verified.body.checked_at).not.toBeNull();
    // The probe logged in and sent no message.
    expect(relay.connections).toBe(connectionsBefore + 1);
    expect(relay.auths.at(-1)).toEqual({ method: expect.any(String), user: RELAY_USER });
    expect(relay.messages.filter((m) => isFrom(m.from, agent.address))).toHaveLength(0);

    const sent = await sendFrom(agent.id, `first-${name}`, 'Through the tenant relay');
    expect(sent.status).toBe(202);
    await s.settle();
    const m = await s.message(agent.id, sent.body.id);
    expect(
      m,
      JSON.stringify({
        reason: m?.status_reason,
        deliveries: m?.deliveries,
        copies: relay.messages.filter((r) => isFrom(r.from, agent.address)).length,
      }),
    ).toMatchObject({ status: 'submitted', provider: 'smtp' });
    const copies = relay.messages.filter((r) => isFrom(r.from, agent.address));
    expect(copies).toHaveLength(1);
    expect(copies[0]?.to).toEqual(['ann@dest.example']);

    answers.push((await s.call('GET', `${base()}/${id}`)).body);
    answers.push((await s.call('GET', base())).body);
    // Only the reference is on the domain; the secret store holds the password.
    const item = await storedItem(name);
    expect(item?.smtp).toEqual({
      host: 'localhost',
      port: relay.port,
      username: RELAY_USER,
      secret_ref: `pmail/smtp/${name}`,
    });
    expect(JSON.stringify(item)).not.toContain(RELAY_PASSWORD);
    expect(JSON.parse((await s.secrets.read(`pmail/smtp/${name}`)) ?? '{}')).toEqual({
      password: RELAY_PASSWORD,
    });
    for (const a of answers) expect(JSON.stringify(a)).not.toContain(RELAY_PASSWORD);
    expect(logged.join('\n')).not.toContain(RELAY_PASSWORD);
  });

  it('a wrong password: the probe says smtp_auth_failed, sends get 409; PATCH replaces the secret and the next probe passes', async () => {
    const name = freshName();
    const created = (await s.call('POST', base(), { body: smtpBody(name, WRONG_PASSWORD) })).body;
    const failed = await s.call('POST', `${base()}/${created.id}/verify`);
    expect(failed.body).toMatchObject({ state: 'verifying', state_reason: 'smtp_auth_failed' });
    const agent = await identityOn(name);
    const refused = await sendFrom(agent.id, `bad-pw-${name}`, 'With a wrong password');
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('domain_not_ready');
    expect(relay.messages.filter((m) => isFrom(m.from, agent.address))).toHaveLength(0);

    const patched = await s.call('PATCH', `${base()}/${created.id}`, {
      body: { smtp: { host: 'localhost', port: relay.port, username: RELAY_USER, password: RELAY_PASSWORD } },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ state: 'verifying', state_reason: 'smtp_probe_pending' });
    expect(JSON.stringify(patched.body)).not.toContain(RELAY_PASSWORD);
    expect(JSON.parse((await s.secrets.read(`pmail/smtp/${name}`)) ?? '{}')).toEqual({
      password: RELAY_PASSWORD,
    });
    const ok = await s.call('POST', `${base()}/${created.id}/verify`);
    expect(ok.body).toMatchObject({ state: 'healthy', state_reason: null });
    expect(logged.join('\n')).not.toContain(WRONG_PASSWORD);
  });

  it('XOAUTH2: the access token is stored write-only and the probe logs in with it', async () => {
    const name = freshName();
    const created = await s.call('POST', base(), {
      body: {
        name,
        transport: 'smtp',
        smtp: {
          host: 'localhost',
          port: relay.port,
          username: RELAY_USER,
          auth: 'xoauth2',
          access_token: RELAY_TOKEN,
        },
      },
    });
    expect(created.status).toBe(201);
    expect(created.body.smtp.auth).toBe('xoauth2');
    expect(JSON.stringify(created.body)).not.toContain(RELAY_TOKEN);
    const ok = await s.call('POST', `${base()}/${created.body.id}/verify`);
    expect(ok.body.state).toBe('healthy');
    expect(relay.auths.at(-1)).toEqual({ method: 'XOAUTH2', user: RELAY_USER });
  });

  it('a healthy domain whose relay stops answering is failing (smtp_unreachable) after the check', async () => {
    const other = await startRelay();
    try {
      const name = freshName();
      const created = (
        await s.call('POST', base(), {
          body: {
            ...smtpBody(name, RELAY_PASSWORD),
            smtp: { ...smtpBody(name, RELAY_PASSWORD).smtp, port: other.port },
          },
        })
      ).body;
      expect((await s.call('POST', `${base()}/${created.id}/verify`)).body.state).toBe('healthy');
      await other.close();
      // What the scheduled check does for each domain (functions/domains/lifecycle.ts › checkAllDomains).
      const smtpOptions = { secrets: s.secrets, smtp: { tlsCa: [relay.cert] } };
      const probeSmtp = localSmtpProbe(
        s.deps.db,
        localSmtpPorts(s.deps, smtpOptions),
        localSmtpSettings(smtpOptions),
      );
      const d = await getDomain(s.deps.db, name);
      const checked = await checkDomain(s.deps, { identities: autoVerifyingIdentities(), probeSmtp }, d!);
      expect(checked).toMatchObject({ state: 'failing', state_reason: 'smtp_unreachable' });
      expect((await s.call('GET', `${base()}/${created.id}`)).body.state).toBe('failing');
    } finally {
      await other.close();
    }
  });

  it('refuses bad settings with 400 and a path', async () => {
    const cases: [unknown, string][] = [
      [{ name: freshName(), transport: 'smtp' }, 'smtp'],
      [
        { name: freshName(), transport: 'smtp', smtp: { host: 'localhost', port: 587, username: 'u' } },
        'smtp.password',
      ],
      [
        {
          name: freshName(),
          transport: 'smtp',
          smtp: { host: 'localhost', port: 587, auth: 'xoauth2', password: 'p', username: 'u' },
        },
        'smtp.password',
      ],
      [{ name: freshName(), transport: 'smtp', smtp: { host: 'bad host', port: 587 } }, 'smtp.host'],
      [{ name: freshName(), transport: 'ses', smtp: { host: 'localhost', port: 587 } }, 'smtp'],
      [
        { name: freshName(), transport: 'cloudflare', cloudflare: { account_id: 'nope' } },
        'cloudflare.account_id',
      ],
    ];
    for (const [body, path] of cases) {
      const res = await s.call('POST', base(), { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe('invalid_request');
      expect(res.body.error.details.errors.map((e: { path: string }) => e.path)).toContain(path);
    }
  });

  it('without the local opt-out, a relay on a loopback, link-local or private address or a port not allowed is refused at create time', async () => {
    const strict = await stackFor({ seed: { mode: 'live' }, smtp: { allowLocalRelays: false } });
    const strictBase = `/v1/tenants/${strict.tenantId}/domains`;
    const cases: [string, number, string][] = [
      ['127.0.0.1', 587, 'smtp.host'],
      ['localhost', 587, 'smtp.host'],
      ['169.254.169.254', 465, 'smtp.host'],
      ['10.1.2.3', 25, 'smtp.host'],
      ['93.184.216.34', 8025, 'smtp.port'],
    ];
    for (const [host, port, path] of cases) {
      const name = freshName();
      const res = await strict.call('POST', strictBase, {
        body: { name, transport: 'smtp', smtp: { host, port, username: 'u', password: 'p' } },
      });
      expect(res.status, host).toBe(400);
      expect(res.body.error).toMatchObject({
        code: 'invalid_request',
        details: { errors: [{ path, message: expect.any(String) }] },
      });
      // Nothing was kept: no domain, no secret.
      expect(await storedItem(name)).toBeUndefined();
      expect(await strict.secrets.read(`pmail/smtp/${name}`)).toBeUndefined();
    }
  });

  it('a password rotated at the relay: the first send refused with 535 makes the domain failing (smtp_auth_failed) in the API at once; PATCH and verify make it healthy', async () => {
    const name = freshName();
    const created = (await s.call('POST', base(), { body: smtpBody(name, RELAY_PASSWORD) })).body;
    expect((await s.call('POST', `${base()}/${created.id}/verify`)).body.state).toBe('healthy');
    const agent = await identityOn(name);
    // The relay no longer takes the stored password (what a rotation at the relay looks like).
    await writeSmtpSecret(s.secrets, LOCAL_SECRET_PREFIX, name, { password: WRONG_PASSWORD });
    const sent = await sendFrom(agent.id, `rotated-${name}`, 'After a rotation');
    expect(sent.status).toBe(202);
    await s.settle();
    expect(await s.message(agent.id, sent.body.id)).toMatchObject({ status: 'rejected' });
    const failing = await s.call('GET', `${base()}/${created.id}`);
    expect(failing.body).toMatchObject({ state: 'failing', state_reason: 'smtp_auth_failed' });
    expect(failing.body.checked_at).not.toBeNull();

    await s.call('PATCH', `${base()}/${created.id}`, {
      body: { smtp: { host: 'localhost', port: relay.port, username: RELAY_USER, password: RELAY_PASSWORD } },
    });
    const ok = await s.call('POST', `${base()}/${created.id}/verify`);
    expect(ok.body).toMatchObject({ state: 'healthy', state_reason: null });
    expect(logged.join('\n')).not.toContain(WRONG_PASSWORD);
  });

  it('a relay refusal reported for settings a PATCH has replaced since the send read them leaves the domain as the PATCH wrote it', async () => {
    const name = freshName();
    const created = (await s.call('POST', base(), { body: smtpBody(name, RELAY_PASSWORD) })).body;
    await s.call('POST', `${base()}/${created.id}/verify`);
    const readBySend = await getDomain(s.deps.db, name);
    expect(readBySend?.state).toBe('healthy');
    const patched = await s.call('PATCH', `${base()}/${created.id}`, {
      body: { smtp: { host: 'localhost', port: relay.port, username: RELAY_USER, password: RELAY_PASSWORD } },
    });
    expect(patched.body).toMatchObject({ state: 'verifying', state_reason: 'smtp_probe_pending' });
    const auth535 = {
      type: 'rejected',
      provider: 'smtp',
      reason: 'sender_domain_unavailable',
      code: 'smtp_auth_failed',
      detail: '535 bad login',
    } as const;
    await failDomainOnRelayRefusal(s.deps, readBySend!, auth535);
    expect(await getDomain(s.deps.db, name)).toMatchObject({
      state: 'verifying',
      state_reason: 'smtp_probe_pending',
    });
    // The domain as it is now is not sending (verifying): a refusal moves nothing either.
    await failDomainOnRelayRefusal(s.deps, (await getDomain(s.deps.db, name))!, auth535);
    expect((await getDomain(s.deps.db, name))?.state).toBe('verifying');
  });

  it('the local runtime lifts the port rule with the address rule: a relay on a port outside 25/465/587/2525 is created and probed', async () => {
    expect(SMTP_ALLOWED_PORTS).not.toContain(relay.port);
    const created = await s.call('POST', base(), { body: smtpBody(freshName(), RELAY_PASSWORD) });
    expect(created.status).toBe(201);
    expect(created.body.smtp.port).toBe(relay.port);
    expect((await s.call('POST', `${base()}/${created.body.id}/verify`)).body.state).toBe('healthy');
  });

  it("another tenant's key sees 404, and cannot verify or change the domain", async () => {
    const created = (await s.call('POST', base(), { body: smtpBody(freshName(), RELAY_PASSWORD) })).body;
    const other = await stackFor({ seed: { mode: 'live' } });
    for (const [method, path] of [
      ['GET', `${base()}/${created.id}`],
      ['POST', `${base()}/${created.id}/verify`],
      ['GET', `/v1/tenants/${other.tenantId}/domains/${created.id}`],
      ['POST', `/v1/tenants/${other.tenantId}/domains/${created.id}/verify`],
    ] as const) {
      const res = await other.call(method, path);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(['tenant_not_found', 'domain_not_found']).toContain(res.body.error.code);
    }
    const patch = await other.call('PATCH', `/v1/tenants/${other.tenantId}/domains/${created.id}`, {
      body: { smtp: { host: 'localhost', port: 25, username: 'x', password: 'hijack' } },
    });
    expect(patch.status).toBe(404);
    expect(JSON.parse((await s.secrets.read(`pmail/smtp/${created.name}`)) ?? '{}')).toEqual({
      password: RELAY_PASSWORD,
    });
  });

  it('DELETE removes the relay secret', async () => {
    const created = (await s.call('POST', base(), { body: smtpBody(freshName(), RELAY_PASSWORD) })).body;
    expect(await s.secrets.read(`pmail/smtp/${created.name}`)).toBeDefined();
    const del = await s.call('DELETE', `${base()}/${created.id}`);
    expect(del.body.state).toBe('removed');
    expect(await s.secrets.read(`pmail/smtp/${created.name}`)).toBeUndefined();
  });
});

describe('a cloudflare domain through the domains API', () => {
  it('is healthy at once (unchecked) and a send from it reaches the Cloudflare API once', async () => {
    const name = freshName();
    const created = await s.call('POST', base(), {
      body: { name, transport: 'cloudflare', cloudflare: { account_id: CF_ACCOUNT } },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      transport: 'cloudflare',
      state: 'healthy',
      state_reason: 'cloudflare_unchecked',
      cloudflare: { account_id: CF_ACCOUNT },
      smtp: null,
      ses: null,
    });
    const verified = await s.call('POST', `${base()}/${created.body.id}/verify`);
    expect(verified.body).toMatchObject({ state: 'healthy', state_reason: 'cloudflare_unchecked' });

    const agent = await identityOn(name);
    const before = cf.seen.length;
    const sent = await sendFrom(agent.id, `cf-${name}`, 'Through Cloudflare');
    expect(sent.status).toBe(202);
    await s.settle();
    const m = await s.message(agent.id, sent.body.id);
    expect(m).toMatchObject({ status: 'submitted', provider: 'cloudflare' });
    const requests = cf.seen.slice(before);
    expect(requests).toHaveLength(1);
    expect(requests[0]?.path).toBe(`/client/v4/accounts/${CF_ACCOUNT}/email/sending/send`);
    expect(requests[0]?.authorization).toBe('Bearer cf-token');
    expect(requests[0]?.body.to).toEqual(['ann@dest.example']);
  });
});
