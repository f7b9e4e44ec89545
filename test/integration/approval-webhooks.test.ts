import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestStack, testStack } from '../support/local.ts';
import { webhookReceiver } from '../support/webhook-receiver.ts';

/**
 * The events of a person's approval reach a webhook endpoint (docs/guides/webhooks.md): the outbox
 * events written with each decision, read from DynamoDB Local's stream, fanned out and POSTed to a
 * real HTTP receiver on 127.0.0.1.
 */
let s: TestStack;
let base = '';
const receiver = webhookReceiver();
/** The bodies of the deliveries, in the order they came. */
const received = () => receiver.received.map((r) => r.json);

beforeAll(async () => {
  base = await receiver.listen();
  s = await testStack({
    webhooks: true,
    webhookScheduleScale: 0.001,
    config: { simEventDelaySeconds: 0 },
    seed: { identity: { send_policy: { require_approval: true } } },
  });
});
afterAll(async () => {
  await s?.settle();
  await s?.close();
  await receiver.close();
});

describe('approval events on webhooks', () => {
  it('delivers message.pending_approval, message.approved and message.rejected to an endpoint that asks for them', async () => {
    const types = ['message.pending_approval', 'message.approved', 'message.rejected'];
    const endpoint = await s.call('POST', '/v1/webhooks', {
      body: { url: `${base}/hook`, event_types: types },
    });
    expect(endpoint.status).toBe(201);
    const a = (await s.send({ to: [s.peer.address], subject: 'A', text: 'x' })).body.id as string;
    const b = (await s.send({ to: [s.peer.address], subject: 'B', text: 'x' })).body.id as string;
    expect((await s.call('POST', `/v1/identities/${s.agent.id}/messages/${a}/approve`)).status).toBe(200);
    expect((await s.call('POST', `/v1/identities/${s.agent.id}/messages/${b}/reject`)).status).toBe(200);
    const seen = (id: string) =>
      received()
        .filter((e) => e.data.message_id === id)
        .map((e) => e.type);
    await s.eventually(async () => seen(a).length === 2 && seen(b).length === 2, 20_000);
    expect(seen(a).sort()).toEqual(['message.approved', 'message.pending_approval']);
    expect(seen(b).sort()).toEqual(['message.pending_approval', 'message.rejected']);
    // Only the types asked for: the approved send's delivery events are not among them.
    expect(received().every((e) => types.includes(e.type))).toBe(true);
  });
});
