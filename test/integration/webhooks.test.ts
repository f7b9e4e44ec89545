import { createServer as createTcpServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../functions/core/fingerprint.ts';
import { type DeliveryJob, RETRY_SCHEDULE_S, verifyWebhook } from '../../functions/core/webhooks.ts';
import { seedTestTenant } from '../../functions/local/seed.ts';
import { LocalStreamPoller } from '../../functions/local/stream.ts';
import { ensureTable } from '../../functions/local/table.ts';
import { silentLogger } from '../../functions/log.ts';
import { putApiKey } from '../../functions/store/directory.store.ts';
import { appendEvent } from '../../functions/store/events.store.ts';
import { deliverJob } from '../../functions/webhooks/deliver.ts';
import { fanOut, outboxInsert } from '../../functions/webhooks/fan-out.ts';
import { httpPoster } from '../../functions/webhooks/http-client.ts';
import { listEvents } from '../support/feeds.ts';
import {
  createOldTable,
  describeTable,
  type TestStack,
  testStack,
  withOwnDynamoDb,
} from '../support/local.ts';
import { webhookReceiver } from '../support/webhook-receiver.ts';

/**
 * Webhooks end to end on DynamoDB Local: endpoints created through the API, outbox events
 * read from DynamoDB Local's own stream, fanned out to the in-process deliveries queue, POSTed to a
 * real HTTP receiver on 127.0.0.1 and verified as a receiver verifies them. The retry schedule runs
 * at 1/1000 of real time.
 */

let s: TestStack;
let base = '';
const receiver = webhookReceiver();
const { script } = receiver;

beforeAll(async () => {
  base = await receiver.listen();
  s = await testStack({ webhooks: true, webhookScheduleScale: 0.001, config: { simEventDelaySeconds: 0 } });
});

afterAll(async () => {
  await s?.settle();
  await s?.close();
  await receiver.close();
});

const { at } = receiver;
let paths = 0;
const newPath = () => `/hook/${++paths}`;

async function createEndpoint(body: Record<string, unknown>, key?: string) {
  const res = await s.call('POST', '/v1/webhooks', { body, key });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; secret: string; status: string };
}

async function sendTo(to: string) {
  const res = await s.send({ to: [to], subject: 'Webhook test', text: 'body' });
  expect(res.status).toBe(202);
  return res.body.id as string;
}

const eventsOf = (path: string, messageId: string) =>
  at(path).filter((r) => r.json.data.message_id === messageId);

/** Wait until nothing more can arrive for a while: the queue is empty and stays so. */
async function quiet() {
  await s.settle();
  await new Promise((r) => setTimeout(r, 300));
  await s.settle();
}

describe('webhook endpoints API', () => {
  it('shows the secret once, on create, and never on GET or list', async () => {
    const created = await createEndpoint({
      url: `${base}/api-check?token=abc`,
      event_types: ['message.delivered'],
      description: 'Orders service',
    });
    expect(created).toMatchObject({
      id: expect.stringMatching(/^whk_[0-9a-z]{26}$/),
      url: `${base}/api-check?token=abc`,
      event_types: ['message.delivered'],
      description: 'Orders service',
      status: 'active',
      disabled_reason: null,
    });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const one = await s.call('GET', `/v1/webhooks/${created.id}`);
    expect(one.status).toBe(200);
    expect(one.body).toEqual({ ...created, secret: undefined });
    expect(JSON.stringify(one.body)).not.toContain(created.secret);
    const list = await s.call('GET', '/v1/webhooks');
    expect(list.status).toBe(200);
    expect(list.body.data.map((w: { id: string }) => w.id)).toContain(created.id);
    expect(JSON.stringify(list.body)).not.toContain('whsec_');
    expect(list.body.next_cursor).toBeNull();
  });

  it('refuses a plain-http URL off this machine, unknown fields and bad event types', async () => {
    for (const body of [
      { url: 'http://hooks.example.com/x' },
      { url: 'ftp://hooks.example.com/x' },
      { url: `${base}/x`, extra: true },
      { url: `${base}/x`, event_types: ['Not A Type'] },
      { url: `${base}/x`, event_types: [] },
    ]) {
      const res = await s.call('POST', '/v1/webhooks', { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe('invalid_request');
    }
    const res = await s.call('POST', '/v1/webhooks', { body: { url: 'http://hooks.example.com/x' } });
    expect(res.body.error.details.errors[0].path).toBe('url');
  });

  it('answers 403 to an identity-scoped key and to a key without the permission', async () => {
    const scoped = `pm_test_scoped_${Math.random()}`;
    await putApiKey(s.deps.db, sha256Hex(scoped), {
      key_id: `key_${s.deps.newId()}`,
      tenant_id: s.tenantId,
      scopes: ['webhooks:manage', 'webhooks:read'],
      identity_ids: [s.agent.id],
    });
    const readOnly = `pm_test_ro_${Math.random()}`;
    await putApiKey(s.deps.db, sha256Hex(readOnly), {
      key_id: `key_${s.deps.newId()}`,
      tenant_id: s.tenantId,
      scopes: ['webhooks:read'],
    });
    const denied = await s.call('GET', '/v1/webhooks', { key: scoped });
    expect(denied.status).toBe(403);
    expect(denied.body.error.details.reason).toBe('tenant_key_required');
    expect((await s.call('GET', '/v1/webhooks', { key: readOnly })).status).toBe(200);
    const create = await s.call('POST', '/v1/webhooks', { key: readOnly, body: { url: `${base}/ro` } });
    expect(create.status).toBe(403);
    expect(create.body.error.details.required).toBe('webhooks:manage');
  });

  it('answers 404 webhook_not_found for an unknown id, and another tenant’s endpoint', async () => {
    const other = await seedTestTenant(s.deps);
    const theirs = await createEndpoint({ url: `${base}/theirs` }, other.apiKey);
    for (const id of [theirs.id, `whk_${'0'.repeat(26)}`, 'nope']) {
      const res = await s.call('GET', `/v1/webhooks/${id}`);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('webhook_not_found');
      expect((await s.call('DELETE', `/v1/webhooks/${id}`)).status).toBe(404);
    }
    expect((await s.call('GET', `/v1/webhooks/${theirs.id}`, { key: other.apiKey })).status).toBe(200);
  });

  it('refuses the 21st endpoint of a tenant with 422 webhook_limit_reached, and frees a place on delete', async () => {
    const t = await seedTestTenant(s.deps);
    const ids: string[] = [];
    for (let i = 0; i < 20; i++)
      ids.push((await createEndpoint({ url: `https://hooks.example.com/${i}` }, t.apiKey)).id);
    const over = await s.call('POST', '/v1/webhooks', {
      key: t.apiKey,
      body: { url: 'https://hooks.example.com/21' },
    });
    expect(over.status).toBe(422);
    expect(over.body.error).toMatchObject({ code: 'webhook_limit_reached', details: { limit: 20 } });
    expect((await s.call('DELETE', `/v1/webhooks/${ids[0]}`, { key: t.apiKey })).status).toBe(204);
    await createEndpoint({ url: 'https://hooks.example.com/21' }, t.apiKey);
    // These endpoints point nowhere reachable: delete them so no event of this tenant is tried.
    for (const id of ids.slice(1)) await s.call('DELETE', `/v1/webhooks/${id}`, { key: t.apiKey });
  });
});

describe('webhook deliveries', () => {
  it('delivers every outbox event of the tenant once per endpoint, signed and verifiable', async () => {
    const path = newPath();
    const { secret } = await createEndpoint({ url: `${base}${path}` });
    const msg = await sendTo('delivered@simulator.invalid');
    await s.eventually(async () => eventsOf(path, msg).some((r) => r.json.type === 'message.delivered'));
    // message.sent: a person resolves an uncertain send as sent.
    const uncertain = await sendTo('timeout@simulator.invalid');
    await s.eventually(async () => (await s.message(s.agent.id, uncertain))?.status === 'uncertain');
    const resolved = await s.call('POST', `/v1/identities/${s.agent.id}/messages/${uncertain}/resolve`, {
      body: { outcome: 'sent' },
      headers: { 'idempotency-key': `r-${uncertain}` },
    });
    expect(resolved.status).toBe(200);
    await s.eventually(async () => eventsOf(path, uncertain).some((r) => r.json.type === 'message.sent'));
    await quiet();

    const deliveries = at(path);
    for (const r of deliveries) {
      const ok = verifyWebhook(
        secret,
        {
          id: String(r.headers['webhook-id']),
          timestamp: String(r.headers['webhook-timestamp']),
          signature: String(r.headers['webhook-signature']),
        },
        r.body,
        Math.floor(Date.now() / 1000),
      );
      expect(ok).toBe(true);
      expect(r.headers['webhook-id']).toBe(r.json.id);
      expect(r.headers['content-type']).toBe('application/json');
      expect(r.json).toMatchObject({
        api_version: '2026-10-01',
        tenant_id: s.tenantId,
        identity_id: s.agent.id,
      });
    }
    // Each event once, and exactly the tenant's outbox events about these two messages.
    const ids = deliveries.map((r) => r.json.id);
    expect(new Set(ids).size).toBe(ids.length);
    const outbox = (await listEvents(s.deps.db, s.tenantId, { limit: 100 })).data.filter((e) =>
      [msg, uncertain].includes(e.data.message_id as string),
    );
    expect(outbox.length).toBeGreaterThanOrEqual(2);
    expect(
      deliveries
        .filter((r) => [msg, uncertain].includes(r.json.data.message_id as string))
        .map((r) => r.json.id)
        .sort(),
    ).toEqual(outbox.map((e) => e.id).sort());
    expect(outbox.find((e) => e.type === 'message.delivered')).toBeDefined();
  });

  it('retries a failing endpoint with the same webhook-id: 500, 500, then 200', async () => {
    const path = newPath();
    script.set(path, [500, 500]);
    await createEndpoint({ url: `${base}${path}`, event_types: ['message.delivered'] });
    const msg = await sendTo('delivered@simulator.invalid');
    await s.eventually(async () => eventsOf(path, msg).length >= 3);
    await quiet();
    const tries = eventsOf(path, msg);
    expect(tries).toHaveLength(3);
    expect(new Set(tries.map((r) => r.headers['webhook-id'])).size).toBe(1);
    expect(tries[0].body).toBe(tries[2].body);
    expect(script.get(path)).toEqual([]);
  });

  it('disables an endpoint that answers 410 and delivers nothing more to it', async () => {
    const path = newPath();
    script.set(path, [410]);
    const { id } = await createEndpoint({ url: `${base}${path}` });
    const first = await sendTo('delivered@simulator.invalid');
    await s.eventually(async () => eventsOf(path, first).length >= 1);
    await s.eventually(async () => (await s.call('GET', `/v1/webhooks/${id}`)).body.status === 'disabled');
    expect((await s.call('GET', `/v1/webhooks/${id}`)).body).toMatchObject({
      status: 'disabled',
      disabled_reason: 'gone',
    });
    // A second endpoint of the tenant proves the next event was fanned out and delivered.
    const witness = newPath();
    await createEndpoint({ url: `${base}${witness}`, event_types: ['message.delivered'] });
    const second = await sendTo('delivered@simulator.invalid');
    await s.eventually(async () => eventsOf(witness, second).length >= 1);
    await quiet();
    expect(eventsOf(path, second)).toEqual([]);
  });

  it('stops delivering to a deleted endpoint', async () => {
    const path = newPath();
    const { id } = await createEndpoint({ url: `${base}${path}`, event_types: ['message.delivered'] });
    const witness = newPath();
    await createEndpoint({ url: `${base}${witness}`, event_types: ['message.delivered'] });
    expect((await s.call('DELETE', `/v1/webhooks/${id}`)).status).toBe(204);
    expect((await s.call('GET', `/v1/webhooks/${id}`)).status).toBe(404);
    const msg = await sendTo('delivered@simulator.invalid');
    await s.eventually(async () => eventsOf(witness, msg).length >= 1);
    await quiet();
    expect(eventsOf(path, msg)).toEqual([]);
  });

  it("never delivers one tenant's events to another tenant's endpoint", async () => {
    const other = await seedTestTenant(s.deps);
    const theirs = newPath();
    await createEndpoint({ url: `${base}${theirs}` }, other.apiKey);
    const mine = newPath();
    await createEndpoint({ url: `${base}${mine}`, event_types: ['message.delivered'] });
    const msg = await sendTo('delivered@simulator.invalid');
    await s.eventually(async () => eventsOf(mine, msg).length >= 1);
    await quiet();
    expect(at(theirs)).toEqual([]);
    expect(at(mine).every((r) => r.json.tenant_id === s.tenantId)).toBe(true);
  });

  it('delivers only the event types an endpoint lists', async () => {
    const bounces = newPath();
    await createEndpoint({ url: `${base}${bounces}`, event_types: ['message.bounced'] });
    const all = newPath();
    await createEndpoint({ url: `${base}${all}` });
    const delivered = await sendTo('delivered@simulator.invalid');
    const bounced = await sendTo('bounce+77@simulator.invalid');
    await s.eventually(async () => eventsOf(all, bounced).some((r) => r.json.type === 'message.bounced'));
    await s.eventually(async () => eventsOf(all, delivered).some((r) => r.json.type === 'message.delivered'));
    await s.eventually(async () => eventsOf(bounces, bounced).length >= 1);
    await quiet();
    expect(at(bounces).map((r) => r.json.type)).toEqual(['message.bounced']);
    expect(eventsOf(bounces, delivered)).toEqual([]);
  });
});

describe('the local table stream', () => {
  it('is enabled on a table kept from an older version, and carries outbox inserts to the poller', {
    timeout: 120_000,
  }, async () => {
    await withOwnDynamoDb(async (db, endpoint) => {
      await createOldTable(db);
      await ensureTable(db);
      const out = await describeTable(db);
      expect(out.Table?.StreamSpecification).toEqual({ StreamEnabled: true, StreamViewType: 'NEW_IMAGE' });
      const seen: string[] = [];
      // The poller's own errors, so a failure below says what the stream answered.
      const errors: string[] = [];
      const poller = new LocalStreamPoller(db, {
        endpoint,
        log: { ...silentLogger, error: (msg, fields) => errors.push(`${msg} ${JSON.stringify(fields)}`) },
        handler: async (records) => {
          for (const r of records) {
            const e = outboxInsert(r);
            if (e) seen.push(e.id);
          }
          return { batchItemFailures: [] };
        },
      });
      await poller.start();
      try {
        const e = {
          id: `evt_${s.deps.newId()}`,
          type: 'message.delivered',
          tenant_id: 'ten_x',
          created_at: 1,
          data: {},
        };
        expect(await appendEvent(db, e, Date.now())).toBe(true);
        // A second write of the same id is refused (conditional put): no second insert reaches the stream.
        expect(await appendEvent(db, e, Date.now())).toBe(false);
        await s
          .eventually(async () => seen.includes(e.id))
          .catch((err) => {
            throw new Error(`${err.message}; stream poller errors: ${errors.join(' | ') || 'none'}`);
          });
        await new Promise((r) => setTimeout(r, 200));
        expect(seen).toEqual([e.id]);
      } finally {
        await poller.stop();
      }
    });
  });
});

describe('the deliverer, driven attempt by attempt', () => {
  it('retries on the schedule, holds an early job until its due time, and after attempt 13 logs it dead with hashed ids only', async () => {
    const path = newPath();
    const { id, secret } = await createEndpoint({
      url: `${base}${path}?token=do-not-log`,
      event_types: ['webhook.test'],
    });
    const event = {
      id: `evt_${s.deps.newId()}`,
      type: 'webhook.test',
      tenant_id: s.tenantId,
      created_at: 1,
      data: {},
    };
    expect(await appendEvent(s.deps.db, event, Date.now())).toBe(true);
    let now = Date.now();
    const lines: string[] = [];
    const log = {
      info: (m: string, f?: object) => lines.push(JSON.stringify({ m, ...f })),
      warn: (m: string, f?: object) => lines.push(JSON.stringify({ m, ...f })),
      error: (m: string, f?: object) => lines.push(JSON.stringify({ m, ...f })),
    };
    const queued: { job: DeliveryJob; delaySeconds: number }[] = [];
    const posts: string[] = [];
    const ports = {
      queue: {
        send: async (jobs: { job: DeliveryJob; delaySeconds: number }[]) => void queued.push(...jobs),
      },
      post: async (req: { url: string; body: string }) => {
        posts.push(req.body);
        return { status: 503 };
      },
      jitter: () => 0.5,
    };
    const deps = { ...s.deps, clock: () => now, log };
    let job: DeliveryJob = { tenant_id: s.tenantId, webhook_id: id, event_id: event.id, attempt: 1 };
    const waits: number[] = [];
    for (let attempt = 1; attempt <= 12; attempt++) {
      expect(await deliverJob(deps, ports, job)).toBe('retry');
      const next = queued.shift()!;
      expect(next.job.attempt).toBe(attempt + 1);
      waits.push(Math.round((next.job.due_at! - now) / 1000));
      expect(next.delaySeconds).toBe(Math.min(900, waits[waits.length - 1]));
      if (attempt === 5) {
        // Delivered by SQS after its 15-minute delay, an hour early: it waits again, nothing is sent.
        now += 900_000;
        const sent = posts.length;
        expect(await deliverJob(deps, ports, next.job)).toBe('requeued');
        expect(posts).toHaveLength(sent);
        expect(queued.shift()).toEqual({ job: next.job, delaySeconds: 900 });
      }
      now = next.job.due_at!;
      job = next.job;
    }
    expect(waits).toEqual([...RETRY_SCHEDULE_S]);
    expect(await deliverJob(deps, ports, job)).toBe('dead');
    expect(queued).toEqual([]);
    expect(posts).toHaveLength(13);
    expect(new Set(posts).size).toBe(1);
    const dead = lines.map((l) => JSON.parse(l)).find((l) => l.m === 'webhook delivery dead');
    expect(dead).toMatchObject({ attempts: 13, status: 503 });
    expect(dead.webhook).toMatch(/^[0-9a-f]{16}$/);
    // No log line holds the secret, the URL's query or a body; the dead line names no id in the clear.
    const all = lines.join('\n');
    for (const never of [secret, 'do-not-log', posts[0]]) expect(all).not.toContain(never);
    for (const hashed of [event.id, id, s.tenantId]) expect(JSON.stringify(dead)).not.toContain(hashed);
  });
});

describe('endpoint addresses under the production rule (no local http)', () => {
  let prod: TestStack;
  beforeAll(async () => {
    prod = await testStack({ config: { webhookAllowLocalHttp: false } });
  });
  afterAll(async () => {
    await prod?.close();
  });

  it('refuses an endpoint URL that names an internal address or name, with the url path named', async () => {
    for (const url of [
      'https://localhost./hook',
      'https://foo.localhost./hook',
      'https://metadata.google.internal/computeMetadata/v1/',
      'https://[::127.0.0.1]/hook',
      'https://[64:ff9b::7f00:1]/hook',
      'https://[fec0::1]/hook',
      'https://[2002:7f00:1::]/hook',
      'https://198.18.0.1/hook',
      'https://224.0.0.1/hook',
      'https://255.255.255.255/hook',
      'https://169.254.169.254/latest/meta-data',
      `${base}/hook`,
    ]) {
      const res = await prod.call('POST', '/v1/webhooks', { body: { url } });
      expect(res.status, url).toBe(400);
      expect(res.body.error.code).toBe('invalid_request');
      expect(res.body.error.details.errors[0].path, url).toBe('url');
    }
    const ok = await prod.call('POST', '/v1/webhooks', { body: { url: 'https://hooks.example.com/ok' } });
    expect(ok.status).toBe(201);
    expect((await prod.call('DELETE', `/v1/webhooks/${ok.body.id}`)).status).toBe(204);
  });

  it('refuses at delivery a host that resolves to an internal address: nothing is connected, the job retries', async () => {
    let connections = 0;
    const tcp = createTcpServer((sock) => {
      connections++;
      sock.destroy();
    });
    await new Promise<void>((r) => tcp.listen(0, '127.0.0.1', () => r()));
    const port = (tcp.address() as { port: number }).port;
    const dns: Record<string, string[]> = {
      'hooks.example.com': ['127.0.0.1'],
      'mixed.example.net': ['8.8.8.8', '169.254.169.254'],
      'nat64.example.net': ['64:ff9b::7f00:1'],
    };
    const resolved: string[] = [];
    const post = httpPoster(async (host) => {
      resolved.push(host);
      return dns[host] ?? [];
    });
    const queued: DeliveryJob[] = [];
    const warned: Record<string, unknown>[] = [];
    const ports = {
      queue: { send: async (jobs: { job: DeliveryJob }[]) => void queued.push(...jobs.map((j) => j.job)) },
      post,
      jitter: () => 0.5,
    };
    const deps = {
      ...prod.deps,
      log: { ...silentLogger, warn: (_m: string, f?: Record<string, unknown>) => void warned.push(f ?? {}) },
    };
    try {
      for (const host of Object.keys(dns)) {
        const created = await prod.call('POST', '/v1/webhooks', {
          body: { url: `https://${host}:${port}/hook`, event_types: ['webhook.test'] },
        });
        expect(created.status).toBe(201);
        const event = {
          id: `evt_${prod.deps.newId()}`,
          type: 'webhook.test',
          tenant_id: prod.tenantId,
          created_at: 1,
          data: {},
        };
        expect(await appendEvent(prod.deps.db, event, Date.now())).toBe(true);
        const job = { tenant_id: prod.tenantId, webhook_id: created.body.id, event_id: event.id, attempt: 1 };
        expect(await deliverJob(deps, ports, job), host).toBe('retry');
        expect(warned.at(-1)).toMatchObject({ error: 'address_refused' });
        expect(queued.at(-1)).toMatchObject({ webhook_id: created.body.id, attempt: 2 });
        expect((await prod.call('DELETE', `/v1/webhooks/${created.body.id}`)).status).toBe(204);
      }
      expect(resolved).toEqual(Object.keys(dns));
      expect(connections).toBe(0);
      // The same poster with the rule lifted (the local runtime) connects to the address it resolved.
      expect(
        await post({
          url: `https://hooks.example.com:${port}/hook`,
          headers: {},
          body: '{}',
          timeoutMs: 5000,
          allowInternal: true,
        }),
      ).toMatchObject({ error: expect.any(String) });
      expect(connections).toBe(1);
    } finally {
      await new Promise((r) => tcp.close(r));
    }
  });

  it('posts to the address a name resolved to, when that address is allowed', async () => {
    const post = httpPoster(async () => ['127.0.0.1']);
    const path = newPath();
    const answer = await post({
      url: `${base.replace('127.0.0.1', 'hooks.example.com')}${path}`,
      headers: { 'content-type': 'application/json' },
      body: '{"id":"evt_x"}',
      timeoutMs: 5000,
      allowInternal: true,
    });
    expect(answer).toEqual({ status: 200 });
    expect(at(path)).toHaveLength(1);
    expect(at(path)[0].headers.host).toBe(`hooks.example.com:${new URL(base).port}`);
  });
});

describe('the fan-out', () => {
  it('stops at the first record it cannot queue and reports it, so the stream reads again from there', async () => {
    const t = await seedTestTenant(s.deps);
    await createEndpoint({ url: `${base}${newPath()}`, event_types: ['webhook.test'] }, t.apiKey);
    const record = (seq: string, eventId: string) =>
      ({
        eventName: 'INSERT',
        dynamodb: {
          SequenceNumber: seq,
          NewImage: {
            pk: { S: `T#${t.tenantId}` },
            sk: { S: `E#${eventId}` },
            type: { S: 'event' },
            event: { M: { type: { S: 'webhook.test' } } },
          },
        },
      }) as never;
    const sent: string[] = [];
    let fail = true;
    const queue = {
      send: async (jobs: { job: DeliveryJob }[]) => {
        if (jobs[0].job.event_id === 'evt_b' && fail) throw new Error('queue down');
        sent.push(...jobs.map((j) => j.job.event_id));
      },
    };
    const other = {
      eventName: 'INSERT',
      dynamodb: { SequenceNumber: '0', NewImage: { type: { S: 'message' } } },
    } as never;
    const batch = [other, record('1', 'evt_a'), record('2', 'evt_b'), record('3', 'evt_c')];
    expect(await fanOut({ ...s.deps, log: silentLogger }, queue, batch)).toEqual({
      batchItemFailures: [{ itemIdentifier: '2' }],
    });
    expect(sent).toEqual(['evt_a']);
    fail = false;
    expect(await fanOut({ ...s.deps, log: silentLogger }, queue, batch.slice(2))).toEqual({
      batchItemFailures: [],
    });
    expect(sent).toEqual(['evt_a', 'evt_b', 'evt_c']);
  });
});
