import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeliveryEvent } from '../../functions/core/deliveries.ts';
import { ORPHAN_AGE_MS } from '../../functions/events/consume.ts';
import { type TestStack, testStack } from '../support/local.ts';

let s: TestStack;
beforeAll(async () => {
  s = await testStack({ config: { simEventDelaySeconds: 0 } });
});
afterAll(async () => {
  await s.settle();
  await s.close();
});

async function sendAndSettle(to: string[], key = `k-${Math.random()}`) {
  const res = await s.send({ to, subject: 'Script', text: 'body' }, key);
  expect(res.status).toBe(202);
  await s.settle();
  return (await s.message(s.agent.id, res.body.id))!;
}

describe('simulator and loopback, end to end through the events queue', () => {
  it.each([
    ['delivered@simulator.invalid', 'delivered', 'delivered', undefined],
    ['bounce+1@simulator.invalid', 'bounced', 'bounced', 'hard'],
    ['softbounce@simulator.invalid', 'bounced', 'bounced', 'soft'],
    ['complaint@simulator.invalid', 'complained', 'complained', undefined],
    ['deferred@simulator.invalid', 'deferred', 'deferred', undefined],
    ['reject@simulator.invalid', 'rejected', 'rejected', undefined],
    ['timeout@simulator.invalid', 'uncertain', 'uncertain', undefined],
  ])('%s ends %s', async (to, status, delivery, bounce) => {
    const m = await sendAndSettle([to]);
    expect(m.status).toBe(status);
    expect(m.deliveries![0].status).toBe(delivery);
    expect(m.deliveries![0].bounce_type).toBe(bounce);
    if (status !== 'uncertain' && status !== 'rejected') {
      expect(m).toMatchObject({ provider: 'simulator', provider_message_id: `test-${m.id.slice(4)}` });
    }
  });

  it('rejects the whole message when one simulator recipient rejects, and loopback never delivers', async () => {
    const m = await sendAndSettle([s.peer.address, 'reject@simulator.invalid']);
    expect(m.status).toBe('rejected');
    expect(m.status_reason).toBe('provider_validation');
    expect(m.deliveries!.map((d) => d.status)).toEqual(['rejected', 'rejected']);
    expect(
      (await s.mailbox(s.peer.id, 'inbound')).filter((i) => i.loopback_of?.message_id === m.id),
    ).toHaveLength(0);
  });

  it('delivers loopback mail as an inbound copy with the composed MIME and Message-ID, without Bcc', async () => {
    const res = await s.send(
      {
        to: [s.peer.address],
        bcc: ['delivered@simulator.invalid'],
        subject: 'Copy me',
        html: '<p>Hello <b>peer</b></p>',
        attachments: [
          {
            filename: 'a.txt',
            content_type: 'text/plain',
            content_base64: Buffer.from('attached').toString('base64'),
          },
        ],
      },
      'loopback-copy',
    );
    await s.settle();
    const sent = (await s.message(s.agent.id, res.body.id))!;
    expect(sent.status).toBe('delivered');
    const [copy] = (await s.mailbox(s.peer.id, 'inbound')).filter(
      (i) => i.loopback_of?.message_id === sent.id,
    );
    expect(copy).toMatchObject({
      direction: 'inbound',
      status: 'received',
      rfc_message_id: sent.rfc_message_id,
      bcc: [],
    });
    expect(copy.id).not.toBe(sent.id);

    const stored = await s.deps.blobs.get(sent.raw_key);
    expect(stored?.metadata).toMatchObject({
      tenant: s.tenantId,
      identity: s.agent.id,
      message: sent.id,
      operation: 'send',
    });
    expect(stored?.metadata.idem_key_sha256).toMatch(/^[0-9a-f]{64}$/);
    const mail = await simpleParser(Buffer.from(stored!.body));
    expect(mail.messageId).toBe(sent.rfc_message_id);
    expect(mail.date?.getTime()).toBe(Math.floor(sent.created_at / 1000) * 1000);
    expect(mail.headers.has('bcc')).toBe(false);
    expect(mail.text?.trim()).toBe('Hello peer');
    expect(mail.attachments.map((a) => a.content.toString())).toEqual(['attached']);
    expect(mail.headers.get('x-pmail-hop')).toBe('1');
    const inbound = await s.deps.blobs.get(copy.raw_key);
    expect(Buffer.from(inbound!.body).equals(Buffer.from(stored!.body))).toBe(true);
  });
});

describe('the delivery-events consumer', () => {
  function eventFor(messageId: string, over: Partial<DeliveryEvent>): DeliveryEvent {
    return {
      source: 'simulator',
      event_id: 'e',
      provider_message_id: `test-${messageId.slice(4)}`,
      sender: s.agent.address,
      recipient: 'deferred@simulator.invalid',
      kind: 'deferred',
      occurred_at: Date.now(),
      ...over,
    };
  }

  it('applies each event exactly once when delivered three times and out of order', async () => {
    const m = await sendAndSettle(['deferred@simulator.invalid']);
    const delivered = eventFor(m.id, {
      event_id: 'ev-delivered',
      kind: 'delivered',
      smtp_response: '250 ok',
    });
    const lateDeferred = eventFor(m.id, {
      event_id: 'ev-deferred-2',
      kind: 'deferred',
      smtp_response: '451 again',
    });
    const before = (await s.message(s.agent.id, m.id))!.version;
    await s.queue.publish([delivered, lateDeferred, delivered, delivered, lateDeferred, lateDeferred], 0);
    await s.settle();
    const after = (await s.message(s.agent.id, m.id))!;
    expect(after.status).toBe('delivered');
    expect(after.deliveries![0]).toMatchObject({ status: 'delivered', smtp_response: '250 ok' });
    const ids = after.deliveries![0].event_ids!;
    expect(ids.filter((i) => i === 'ev-delivered')).toHaveLength(1);
    // one write for the delivered event, at most one for remembering the stale deferred id
    expect(after.version - before).toBeLessThanOrEqual(2);
    expect(after.version - before).toBeGreaterThanOrEqual(1);
  });

  it('retries an event for a message it cannot find yet, then acks it as orphaned by age', async () => {
    const ghost = `msg_${'7'.repeat(26)}`;
    const young = eventFor(ghost, { event_id: 'young' });
    s.queue.sendRaw(JSON.stringify(young));
    await s.eventually(async () => s.queue.consumed.filter((c) => c.body.includes('"young"')).length >= 3);
    const old = eventFor(ghost, { event_id: 'old', occurred_at: Date.now() - ORPHAN_AGE_MS - 1 });
    s.queue.sendRaw(JSON.stringify(old));
    await s.eventually(async () => s.queue.consumed.some((c) => c.body.includes('"old"')));
    await new Promise((r) => setTimeout(r, 50));
    expect(s.queue.consumed.filter((c) => c.body.includes('"old"'))).toHaveLength(1);
  });

  it('acks an event of unknown type and one from an unknown sender without retrying', async () => {
    s.queue.sendRaw('{"type":"something-else"}');
    s.queue.sendRaw(
      JSON.stringify(eventFor(`msg_${'8'.repeat(26)}`, { event_id: 'nobody', sender: 'nobody@example.com' })),
    );
    await s.eventually(async () => s.queue.consumed.some((c) => c.body.includes('"nobody"')));
    await new Promise((r) => setTimeout(r, 50));
    expect(s.queue.consumed.filter((c) => c.body.includes('something-else'))).toHaveLength(1);
    expect(s.queue.consumed.filter((c) => c.body.includes('"nobody"'))).toHaveLength(1);
  });
});
