import { describe, expect, it } from 'vitest';
import {
  applyDeliveryEvent,
  type DeliveryEvent,
  type DeliveryEventKind,
  rollUp,
} from '../../functions/core/deliveries.ts';
import type { DeliveryStatus, MessageRecord, MessageStatus } from '../../functions/core/model.ts';

/**
 * How a report moves a delivery (docs/guides/events.md › How a report becomes a delivery status),
 * row for row.
 * A cell is the delivery's next status, 'ignored', or 'update' (same status, details updated).
 */
const SEED_TABLE: [DeliveryStatus[], Record<DeliveryEventKind, string>][] = [
  [
    ['queued', 'submitted', 'uncertain'],
    {
      delivered: 'delivered',
      deferred: 'deferred',
      bounced: 'bounced',
      failed: 'failed',
      rejected: 'rejected',
      complained: 'complained',
    },
  ],
  [
    ['deferred'],
    {
      delivered: 'delivered',
      deferred: 'update',
      bounced: 'bounced',
      failed: 'failed',
      rejected: 'rejected',
      complained: 'complained',
    },
  ],
  [
    ['delivered'],
    {
      delivered: 'ignored',
      deferred: 'ignored',
      bounced: 'bounced',
      failed: 'ignored',
      rejected: 'ignored',
      complained: 'complained',
    },
  ],
  [
    ['bounced'],
    {
      delivered: 'ignored',
      deferred: 'ignored',
      bounced: 'update',
      failed: 'ignored',
      rejected: 'ignored',
      complained: 'complained',
    },
  ],
  [
    ['complained', 'failed', 'rejected', 'suppressed'],
    {
      delivered: 'ignored',
      deferred: 'ignored',
      bounced: 'ignored',
      failed: 'ignored',
      rejected: 'ignored',
      complained: 'ignored',
    },
  ],
];

function message(statuses: DeliveryStatus[], status: MessageStatus = 'submitted'): MessageRecord {
  return {
    id: 'msg_01',
    tenant_id: 'ten_1',
    identity_id: 'idn_1',
    thread_id: 'thr_1',
    direction: 'outbound',
    status,
    from: { address: 'agent@example.com' },
    to: [],
    cc: [],
    bcc: [],
    reply_to: [],
    subject: 's',
    kind: 'transactional',
    labels: [],
    flags: [],
    rfc_message_id: '<x@example.com>',
    raw_key: 'k',
    raw_size: 1,
    created_at: 0,
    updated_at: 0,
    version: 1,
    deliveries: statuses.map((s, i) => ({
      address: `r${i}@example.net`,
      field: 'to',
      status: s,
      updated_at: 0,
      smtp_response: 'before',
    })),
  };
}

function event(kind: DeliveryEventKind, id = `e-${kind}`, recipient = 'r0@example.net'): DeliveryEvent {
  return {
    source: 'simulator',
    event_id: id,
    sender: 'agent@example.com',
    recipient,
    kind,
    bounce_type: kind === 'bounced' ? 'hard' : undefined,
    smtp_response: `after ${kind}`,
    occurred_at: 1,
  };
}

describe('the delivery transition table', () => {
  const cases = SEED_TABLE.flatMap(([froms, row]) =>
    froms.flatMap((from) =>
      Object.entries(row).map(([kind, to]) => [from, kind as DeliveryEventKind, to] as const),
    ),
  );

  it.each(cases)('%s + %s → %s', (from, kind, expected) => {
    const out = applyDeliveryEvent(message([from]), event(kind), 10);
    expect(out.type).toBe('applied');
    if (out.type !== 'applied') return;
    const d = out.message.deliveries![0];
    if (expected === 'ignored') {
      expect(d.status).toBe(from);
      expect(d.smtp_response).toBe('before');
      expect(out.outcome).toBeUndefined();
    } else {
      expect(d.status).toBe(expected === 'update' ? from : expected);
      expect(d.smtp_response).toBe(`after ${kind}`);
      expect(d.updated_at).toBe(10);
    }
  });

  it('treats an event id seen before as a duplicate, with the suppress flag recomputed', () => {
    const once = applyDeliveryEvent(message(['submitted']), event('bounced', 'b1'), 10);
    if (once.type !== 'applied') throw new Error('expected applied');
    expect(once.suppress).toBe(true);
    expect(applyDeliveryEvent(once.message, event('bounced', 'b1'), 11)).toEqual({
      type: 'duplicate',
      suppress: true,
    });
  });

  it('keeps only the last 20 event ids of a delivery', () => {
    let m = message(['submitted']);
    for (let i = 0; i < 25; i++) {
      const out = applyDeliveryEvent(m, event('deferred', `d${i}`), i);
      if (out.type === 'applied') m = out.message;
    }
    expect(m.deliveries![0].event_ids).toHaveLength(20);
    expect(m.deliveries![0].event_ids![0]).toBe('d5');
  });

  it('counts an event for an address the message was not sent to as a duplicate', () => {
    expect(
      applyDeliveryEvent(message(['submitted']), event('delivered', 'x', 'nobody@example.net'), 1).type,
    ).toBe('duplicate');
  });

  it('suppresses on a hard bounce and a complaint only', () => {
    const soft = applyDeliveryEvent(message(['submitted']), { ...event('bounced'), bounce_type: 'soft' }, 1);
    const hard = applyDeliveryEvent(message(['submitted']), event('bounced'), 1);
    const complaint = applyDeliveryEvent(message(['delivered']), event('complained'), 1);
    expect([soft, hard, complaint].map((r) => (r.type === 'applied' ? r.suppress : null))).toEqual([
      false,
      true,
      true,
    ]);
    expect([soft, hard, complaint].map((r) => (r.type === 'applied' ? r.outcome : null))).toEqual([
      'other',
      'bounced',
      'complained',
    ]);
  });
});

describe('the message roll-up', () => {
  it.each<[DeliveryStatus[], MessageStatus, MessageStatus]>([
    [['suppressed'], 'queued', 'suppressed'],
    [['delivered', 'complained'], 'delivered', 'complained'],
    [['queued', 'submitted'], 'queued', 'queued'],
    [['uncertain', 'delivered'], 'uncertain', 'uncertain'],
    [['uncertain', 'submitted'], 'uncertain', 'submitted'],
    [['deferred', 'submitted'], 'submitted', 'deferred'],
    [['submitted', 'delivered'], 'submitted', 'submitted'],
    [['delivered', 'bounced', 'failed'], 'submitted', 'bounced'],
    [['delivered', 'failed', 'rejected'], 'submitted', 'failed'],
    [['delivered', 'rejected'], 'submitted', 'rejected'],
    [['delivered', 'suppressed'], 'submitted', 'delivered'],
    [['delivered', 'delivered'], 'uncertain', 'delivered'],
  ])('%j in a %s message rolls up to %s', (statuses, current, expected) => {
    expect(
      rollUp(
        current,
        statuses.map((status) => ({ status })),
      ),
    ).toBe(expected);
  });

  it('moves a terminal message only delivered → bounced/complained and bounced → complained', () => {
    expect(rollUp('delivered', [{ status: 'bounced' }])).toBe('bounced');
    expect(rollUp('delivered', [{ status: 'complained' }])).toBe('complained');
    expect(rollUp('bounced', [{ status: 'complained' }])).toBe('complained');
    expect(rollUp('bounced', [{ status: 'delivered' }])).toBe('bounced');
    expect(rollUp('rejected', [{ status: 'delivered' }])).toBe('rejected');
    expect(rollUp('canceled', [{ status: 'queued' }])).toBe('canceled');
  });

  it('rolls a late bounce after delivered into a bounced message', () => {
    const out = applyDeliveryEvent(message(['delivered'], 'delivered'), event('bounced'), 5);
    expect(out.type === 'applied' && out.message.status).toBe('bounced');
  });
});
