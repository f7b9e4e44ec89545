import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../functions/core/fingerprint.ts';
import { verifyWebhook } from '../../functions/core/webhooks.ts';
import { seedTestTenant } from '../../functions/local/seed.ts';
import { putApiKey } from '../../functions/store/directory.store.ts';
import { listEvents } from '../support/feeds.ts';
import { type TestStack, testStack } from '../support/local.ts';
import { webhookReceiver } from '../support/webhook-receiver.ts';

/**
 * `POST /v1/webhooks/{webhook_id}/test` and `GET /v1/webhooks/{webhook_id}/deliveries` on the local
 * stack: DynamoDB Local's stream → the fan-out → the deliveries queue → a real HTTP receiver on
 * 127.0.0.1. The retry schedule runs at 1/1000 of real time.
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

async function endpoint(path: string, body: Record<string, unknown> = {}, key?: string) {
  const res = await s.call('POST', '/v1/webhooks', { body: { url: `${base}${path}`, ...body }, key });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; secret: string };
}

interface AttemptView {
  event_id: string;
  event_type: string;
  attempt: number;
  status_code: number | null;
  error: string | null;
  result: string;
  attempted_at: string;
  duration_ms: number;
}

const deliveries = async (id: string, key?: string) =>
  (await s.call('GET', `/v1/webhooks/${id}/deliveries`, { key })).body.data as AttemptView[];

describe('webhook test deliveries', () => {
  it('sends a signed webhook.test to that endpoint only, shown in its recent deliveries', async () => {
    const mine = await endpoint('/test/mine');
    // Another endpoint that takes every event type: the test is not for it.
    await endpoint('/test/other');
    const res = await s.call('POST', `/v1/webhooks/${mine.id}/test`);
    expect(res.status).toBe(202);
    expect(res.body).toEqual({
      delivery_id: expect.stringMatching(/^evt_[0-9a-z]{26}$/),
      webhook_id: mine.id,
      event_type: 'webhook.test',
      status: 'queued',
    });
    await s.eventually(async () => at('/test/mine').length === 1);
    await s.settle();
    const got = at('/test/mine')[0];
    expect(got.json).toMatchObject({ id: res.body.delivery_id, type: 'webhook.test', data: { test: true } });
    expect(got.headers['webhook-id']).toBe(res.body.delivery_id);
    const signed = {
      id: String(got.headers['webhook-id']),
      timestamp: String(got.headers['webhook-timestamp']),
      signature: String(got.headers['webhook-signature']),
    };
    expect(verifyWebhook(mine.secret, signed, got.body, Math.floor(Date.now() / 1000))).toBe(true);
    expect(at('/test/other')).toEqual([]);
    // Not an outbox event: GET /v1/events never shows it.
    const outbox = await listEvents(s.deps.db, s.tenantId, { limit: 1000 });
    expect(outbox.data.map((e) => e.id)).not.toContain(res.body.delivery_id);
    await s.eventually(async () => (await deliveries(mine.id)).length === 1);
    expect(await deliveries(mine.id)).toEqual([
      {
        event_id: res.body.delivery_id,
        event_type: 'webhook.test',
        attempt: 1,
        status_code: 200,
        error: null,
        result: 'delivered',
        attempted_at: expect.any(String),
        duration_ms: expect.any(Number),
      },
    ]);
  });

  it('lists every attempt of a failing delivery, newest first, with its status code and result', async () => {
    script.set('/test/flaky', [500, 503]);
    const flaky = await endpoint('/test/flaky');
    const res = await s.call('POST', `/v1/webhooks/${flaky.id}/test`);
    expect(res.status).toBe(202);
    await s.eventually(async () => (await deliveries(flaky.id)).length === 3);
    const list = await deliveries(flaky.id);
    expect(list.map((a) => [a.attempt, a.status_code, a.result])).toEqual([
      [3, 200, 'delivered'],
      [2, 503, 'retrying'],
      [1, 500, 'retrying'],
    ]);
    expect(new Set(list.map((a) => a.event_id))).toEqual(new Set([res.body.delivery_id]));
    expect(at('/test/flaky')).toHaveLength(3);
  });

  it('keeps real events in the list too, and an unreachable endpoint’s attempts with their error', async () => {
    // Port 9 on this machine: nothing listens, so the connection is refused.
    const res = await s.call('POST', '/v1/webhooks', {
      body: { url: 'http://127.0.0.1:9/refused', event_types: ['message.delivered'] },
    });
    const dead = res.body.id as string;
    const sent = await s.send({ to: ['delivered@simulator.invalid'], subject: 'Deliveries list', text: 'x' });
    expect(sent.status).toBe(202);
    await s.eventually(async () => (await deliveries(dead)).length >= 1);
    const first = (await deliveries(dead)).at(-1)!;
    expect(first).toMatchObject({ event_type: 'message.delivered', attempt: 1, status_code: null });
    expect(first.error).toMatch(/ECONNREFUSED/);
    expect(first.result).toBe('retrying');
    await s.call('DELETE', `/v1/webhooks/${dead}`);
  });

  it('answers 410 Gone by disabling the endpoint, and refuses a test of a disabled one with 409', async () => {
    script.set('/test/gone', [410]);
    const gone = await endpoint('/test/gone');
    expect((await s.call('POST', `/v1/webhooks/${gone.id}/test`)).status).toBe(202);
    await s.eventually(
      async () => (await s.call('GET', `/v1/webhooks/${gone.id}`)).body.status === 'disabled',
    );
    expect((await deliveries(gone.id)).map((a) => [a.status_code, a.result])).toEqual([[410, 'disabled']]);
    const again = await s.call('POST', `/v1/webhooks/${gone.id}/test`);
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({
      code: 'webhook_disabled',
      details: { disabled_reason: 'gone' },
    });
  });

  it('holds both routes to the webhook permissions: read lists, manage tests; 404 for another tenant', async () => {
    const hook = await endpoint('/test/perms');
    const readOnly = `pm_test_ro_${Math.random()}`;
    await putApiKey(s.deps.db, sha256Hex(readOnly), {
      key_id: `key_${s.deps.newId()}`,
      tenant_id: s.tenantId,
      scopes: ['webhooks:read'],
    });
    expect((await s.call('GET', `/v1/webhooks/${hook.id}/deliveries`, { key: readOnly })).status).toBe(200);
    const denied = await s.call('POST', `/v1/webhooks/${hook.id}/test`, { key: readOnly });
    expect(denied.status).toBe(403);
    expect(denied.body.error.details.required).toBe('webhooks:manage');
    const scoped = `pm_test_scoped_${Math.random()}`;
    await putApiKey(s.deps.db, sha256Hex(scoped), {
      key_id: `key_${s.deps.newId()}`,
      tenant_id: s.tenantId,
      scopes: ['webhooks:manage'],
      identity_ids: [s.agent.id],
    });
    expect((await s.call('POST', `/v1/webhooks/${hook.id}/test`, { key: scoped })).status).toBe(403);
    const other = await seedTestTenant(s.deps);
    for (const [method, path] of [
      ['GET', `/v1/webhooks/${hook.id}/deliveries`],
      ['POST', `/v1/webhooks/${hook.id}/test`],
      ['POST', '/v1/webhooks/nope/test'],
    ] as const) {
      const res = await s.call(method, path, { key: other.apiKey });
      expect(res.status, path).toBe(404);
      expect(res.body.error.code).toBe('webhook_not_found');
    }
    await s.settle();
    expect(at('/test/perms')).toEqual([]);
  });
});
