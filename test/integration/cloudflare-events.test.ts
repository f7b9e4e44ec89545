import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { journalAddress } from '../../functions/core/journal.ts';
import { addressHash } from '../../functions/core/suppressions.ts';
import { consumeDeliveryEvent } from '../../functions/events/consume.ts';
import type { Logger } from '../../functions/log.ts';
import { memoryMetrics } from '../../functions/metrics.ts';
import { getSuppression } from '../../functions/store/suppressions.store.ts';
import { type CfFacts, type CfKind, cfEvent } from '../support/cf-fixtures.ts';
import { submittedVia, type TestStack, testStack } from '../support/local.ts';

const PLATFORM = 'platform.example.com';
let s: TestStack;
beforeAll(async () => {
  s = await testStack({ config: { simEventDelaySeconds: 0, platformDomain: PLATFORM } });
});
afterAll(async () => {
  await s.settle();
  await s.close();
});

const outbox = async () => {
  const out = await s.deps.db.query({
    TableName: s.deps.db.table,
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
    ExpressionAttributeValues: { ':pk': `T#${s.tenantId}`, ':p': 'E#' },
  });
  return (out.Items ?? []).map((i) => i.event as { type: string; data: Record<string, unknown> });
};

/** Logs and metrics kept in memory, to read what a call logged and counted. */
function capture() {
  const metrics = memoryMetrics();
  const lines: Record<string, unknown>[] = [];
  const log: Logger = {
    info: (msg, f) => lines.push({ msg, ...f }),
    warn: (msg, f) => lines.push({ msg, ...f }),
    error: (msg, f) => lines.push({ msg, ...f }),
  };
  return { lines, metrics, deps: { ...s.deps, log, metrics } };
}

let n = 0;
/**
 * A message as a Cloudflare send leaves it: submitted, its delivery submitted, Cloudflare's message
 * id recorded (what Record writes when Cloudflare accepts). The recipient is a simulator `timeout`
 * address, which produces no simulator events of its own.
 */
async function cfMessage() {
  const to = `timeout+cf${++n}@simulator.invalid`;
  const sent = await submittedVia(s, 'cloudflare', {
    to: [to],
    subject: 'Your receipt',
    providerMessageId: (u) => `0101018f7d0c4d9a-msg-${u}`,
  });
  const facts = (kind: CfKind, recipient = to): CfFacts => ({
    eventId: `0190d0c4-${kind}-${sent.id.slice(-12)}-${recipient.length}`,
    messageId: sent.providerMessageId,
    sender: s.agent.address,
    recipient,
    subject: 'Your receipt',
    at: Date.now(),
  });
  return { id: sent.id, to, facts };
}

const body = (kind: CfKind, f: CfFacts) => JSON.stringify(cfEvent(kind, f));

describe('Cloudflare events through the consumer on DynamoDB Local', () => {
  it('moves a recipient to deferred, then delivered, with one outbox event each', async () => {
    const m = await cfMessage();
    expect(await consumeDeliveryEvent(s.deps, body('deferred', m.facts('deferred')))).toBe('applied');
    expect((await s.message(s.agent.id, m.id))!.status).toBe('deferred');
    expect(await consumeDeliveryEvent(s.deps, body('delivered', m.facts('delivered')))).toBe('applied');
    const after = (await s.message(s.agent.id, m.id))!;
    expect(after.status).toBe('delivered');
    expect(after.deliveries![0]).toMatchObject({
      status: 'delivered',
      smtp_code: '250',
      enhanced_code: '2.0.0',
    });
    const mine = (await outbox()).filter((e) => e.data.message_id === m.id);
    expect(mine.map((e) => e.type)).toEqual(['message.deferred', 'message.delivered']);
  });

  it('hard-bounces and suppresses the address once, even when the event comes twice', async () => {
    const m = await cfMessage();
    const b = body('bounced', m.facts('bounced'));
    expect(await consumeDeliveryEvent(s.deps, b)).toBe('applied');
    expect(await consumeDeliveryEvent(s.deps, b)).toBe('duplicate');
    const after = (await s.message(s.agent.id, m.id))!;
    expect(after.status).toBe('bounced');
    expect(after.deliveries![0]).toMatchObject({
      bounce_type: 'hard',
      smtp_code: '550',
      enhanced_code: '5.1.1',
    });
    const sup = await getSuppression(s.deps.db, s.tenantId, addressHash(s.deps.config.hashKey, m.to));
    expect(sup).toMatchObject({ reason: 'hard_bounce', source_message_id: m.id });
    expect((await outbox()).filter((e) => e.data.message_id === m.id).map((e) => e.type)).toEqual([
      'message.bounced',
    ]);
  });

  it('acks and counts an unknown Email Sending type without changing the message', async () => {
    const m = await cfMessage();
    const c = capture();
    const unknown = JSON.stringify({
      ...cfEvent('delivered', m.facts('delivered')),
      type: 'cf.email.sending.message.opened',
    });
    expect(await consumeDeliveryEvent(c.deps, unknown)).toBe('unknown_type');
    expect(c.metrics.get('delivery_unknown_type')).toBe(1);
    expect(c.lines).toContainEqual(expect.objectContaining({ type: 'cf.email.sending.message.opened' }));
    expect((await s.message(s.agent.id, m.id))!.status).toBe('submitted');
  });
});

describe('journal recipients (a copy pmail keeps is no delivery: functions/core/journal.ts)', () => {
  it('acks and ignores an event for the journal copy, while the same event for the real recipient applies', async () => {
    const m = await cfMessage();
    const journal = journalAddress(m.id, s.agent.id, PLATFORM);
    expect(journal.endsWith(`@${PLATFORM}`)).toBe(true);
    const before = (await s.message(s.agent.id, m.id))!;
    const eventsBefore = (await outbox()).length;

    for (const kind of ['bounced', 'complained'] as const) {
      const c = capture();
      expect(await consumeDeliveryEvent(c.deps, body(kind, m.facts(kind, journal)))).toBe('ignored');
      expect(c.metrics.get('delivery_journal_ignored')).toBe(1);
      expect(c.metrics.get('delivery_events')).toBe(0);
    }
    const unchanged = (await s.message(s.agent.id, m.id))!;
    expect(unchanged.status).toBe('submitted');
    expect(unchanged.deliveries).toEqual(before.deliveries);
    expect(unchanged.version).toBe(before.version);
    expect(
      await getSuppression(s.deps.db, s.tenantId, addressHash(s.deps.config.hashKey, journal)),
    ).toBeUndefined();
    expect((await outbox()).length).toBe(eventsBefore);

    expect(await consumeDeliveryEvent(s.deps, body('bounced', m.facts('bounced')))).toBe('applied');
    expect((await s.message(s.agent.id, m.id))!.status).toBe('bounced');
  });

  it('ignores journal recipients of any source, not only Cloudflare', async () => {
    const m = await cfMessage();
    const journal = journalAddress(m.id, s.agent.id, PLATFORM);
    const simulated = JSON.stringify({
      source: 'simulator',
      event_id: `sim-journal-${m.id}`,
      provider_message_id: m.facts('delivered').messageId,
      sender: s.agent.address,
      recipient: journal,
      kind: 'complained',
      occurred_at: Date.now(),
    });
    expect(await consumeDeliveryEvent(s.deps, simulated)).toBe('ignored');
    expect((await s.message(s.agent.id, m.id))!.status).toBe('submitted');
  });
});
