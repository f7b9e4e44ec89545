import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { resolveMessage } from '../../functions/core/message-actions.ts';
import type { DeliveryStatus, MessageRecord, MessageStatus } from '../../functions/core/model.ts';
import { RECONCILE_MIN_AGE_MS, reconcilable } from '../../functions/core/reconcile.ts';
import {
  CLAIM_STALE_MS,
  deadAttemptOutcome,
  decideClaim,
  recordedClaim,
  recordOutcome,
  sendingRefusal,
} from '../../functions/core/send-attempt.ts';
import { ORPHAN_AGE_MS } from '../../functions/events/consume.ts';
import { outboundMessage } from '../support/records.ts';

/** The pure rules behind the guarantee (docs/design/invariants.md), row by row. */
const message = (status: MessageStatus, deliveries: DeliveryStatus[], over: Partial<MessageRecord> = {}) =>
  outboundMessage({
    id: 'msg_01',
    tenant_id: 'ten',
    identity_id: 'idn',
    status,
    deliveries: deliveries.map((s, i) => ({
      address: `r${i}@example.net`,
      field: 'to' as const,
      status: s,
      updated_at: 0,
    })),
    ...over,
  });

const unknown = { type: 'unknown', reason: 'transport_connection_lost', detail: 'killed' } as const;

describe('Record(unknown) over deliveries that events may already have settled', () => {
  it.each<[MessageStatus, DeliveryStatus[], MessageStatus, DeliveryStatus[]]>([
    ['queued', ['queued'], 'uncertain', ['uncertain']],
    ['queued', ['queued', 'delivered'], 'uncertain', ['uncertain', 'delivered']],
    ['delivered', ['delivered'], 'delivered', ['delivered']],
    ['delivered', ['delivered', 'suppressed'], 'delivered', ['delivered', 'suppressed']],
    ['bounced', ['bounced', 'delivered'], 'bounced', ['bounced', 'delivered']],
    ['deferred', ['deferred'], 'deferred', ['deferred']],
    ['complained', ['complained'], 'complained', ['complained']],
  ])('%s %j → %s %j', (status, deliveries, expected, expectedDeliveries) => {
    const out = recordOutcome(
      message(status, deliveries, { claim: { token: 't', at: 0, sending: true } }),
      unknown,
      9,
    );
    expect(out.message.status).toBe(expected);
    expect(out.message.deliveries!.map((d) => d.status)).toEqual(expectedDeliveries);
    expect(out.message.claim).toBeUndefined();
    // only an attempt that made the message uncertain announces it
    expect(out.message.status_at).toBe(expected === 'uncertain' ? 9 : undefined);
  });
});

describe('resolve refuses where the deliveries already say what happened', () => {
  it.each<[MessageStatus, DeliveryStatus[], 'sent' | 'not_sent', MessageStatus | 'refused']>([
    ['uncertain', ['uncertain'], 'sent', 'submitted'],
    ['uncertain', ['uncertain'], 'not_sent', 'failed'],
    ['uncertain', ['uncertain', 'suppressed'], 'not_sent', 'failed'],
    ['uncertain', ['uncertain', 'rejected'], 'not_sent', 'failed'],
    ['uncertain', ['uncertain', 'delivered'], 'sent', 'submitted'],
    ['uncertain', ['uncertain', 'delivered'], 'not_sent', 'refused'],
    ['uncertain', ['uncertain', 'bounced'], 'not_sent', 'refused'],
    ['uncertain', ['delivered'], 'sent', 'refused'],
    ['delivered', ['delivered'], 'sent', 'refused'],
    ['delivered', ['delivered'], 'not_sent', 'refused'],
    ['submitted', ['submitted'], 'not_sent', 'refused'],
  ])('%s %j, %s → %s', (status, deliveries, outcome, expected) => {
    const m = message(status, deliveries);
    if (expected === 'refused') {
      expect(() => resolveMessage(m, outcome, 5)).toThrow(expect.objectContaining({ code: 'not_uncertain' }));
    } else {
      expect(resolveMessage(m, outcome, 5).status).toBe(expected);
    }
  });
});

describe('the transport’s claim-and-mark write, refused (its own claim: repeated; any other: lost)', () => {
  it('is a repeated invocation (unknown, recorded uncertain) only when the claim on the message is its own', () => {
    const mine = message('queued', ['queued'], { claim: { token: 'me', at: 0, sending: true } });
    expect(sendingRefusal(mine, 'me')).toBe('repeated');
    expect(sendingRefusal({ ...mine, status: 'submitted' }, 'me')).toBe('repeated');
  });

  it('is lost (no provider call, nothing recorded) under another execution’s claim, a cancel, or no message', () => {
    const other = message('queued', ['queued'], { claim: { token: 'dup', at: 0, sending: true } });
    expect(sendingRefusal(other, 'me')).toBe('lost');
    expect(sendingRefusal(message('canceled', ['queued']), 'me')).toBe('lost');
    expect(sendingRefusal(undefined, 'me')).toBe('lost');
  });

  it('lets Claim admit a queued message with no claim or its own, and nothing else', () => {
    expect(decideClaim(message('queued', ['queued']), 'me', 0)).toEqual({ type: 'claim' });
    const own = message('queued', ['queued'], { claim: { token: 'me', at: 0, sending: true } });
    expect(decideClaim(own, 'me', 0)).toEqual({ type: 'claim' });
    const live = message('queued', ['queued'], { claim: { token: 'dup', at: 0, sending: true } });
    expect(decideClaim(live, 'me', CLAIM_STALE_MS - 1)).toEqual({ type: 'already_claimed' });
    expect(decideClaim(live, 'me', CLAIM_STALE_MS)).toEqual({ type: 'stale', token: 'dup' });
    expect(decideClaim(message('canceled', ['queued']), 'me', 0)).toEqual({ type: 'not_queued' });
  });
});

describe('a dead claim (older than 5 minutes)', () => {
  it('with the sending mark becomes uncertain and gives its thread lock back', () => {
    const m = message('queued', ['queued'], {
      claim: { token: 't', at: 0, sending: true },
      dispatch: { execution: 'msg_01-d1', at: 0, n: 1 },
      holds_lock: true,
    });
    const out = deadAttemptOutcome(m, CLAIM_STALE_MS, 'd');
    expect(out.message).toMatchObject({
      status: 'uncertain',
      status_reason: 'transport_connection_lost',
    });
    expect(out.message.dispatch).toBeUndefined();
    expect(out.releaseLock).toBe(true);
  });
});

describe('what a Record keeps for a retry of itself', () => {
  it.each<[string, Parameters<typeof recordOutcome>[1], 'done' | 'wait' | 'start', object]>([
    [
      'accepted',
      { type: 'accepted', provider: 'ses', provider_message_id: 'p', refused: [], deferred: [] },
      'done',
      { next: 'done', release: true },
    ],
    [
      'rate limited, with a parent',
      { type: 'retry_later', class: 'RateLimit', code: 'E_RATE', refused: [] },
      'wait',
      { next: 'wait', seconds: 10, release: true },
    ],
    [
      'rate limited, no parent',
      { type: 'retry_later', class: 'RateLimit', code: 'E_RATE', refused: [] },
      'start',
      { next: 'start', release: true },
    ],
  ])('%s', (_name, result, next, expected) => {
    const m = message('queued', ['queued'], { claim: { token: 't', at: 0 }, holds_lock: true });
    const out = recordOutcome(m, result, 0);
    expect(recordedClaim('t', out, next)).toEqual({ token: 't', ...expected });
  });
});

describe('reconciliation waits until no Record can still come', () => {
  it.each([
    [0, false],
    [RECONCILE_MIN_AGE_MS - 1, false],
    [RECONCILE_MIN_AGE_MS, true],
    [ORPHAN_AGE_MS, true],
  ])('an event %i ms old → %s', (age, ok) => {
    expect(reconcilable({ occurred_at: 1_000_000 }, 1_000_000 + age)).toBe(ok);
  });

  it('starts after the attempt machine times out and before a not-found event is orphaned', () => {
    const asl = JSON.parse(
      readFileSync(new URL('../../statemachines/send-attempt.asl.json', import.meta.url), 'utf8'),
    ) as { TimeoutSeconds: number };
    expect(asl.TimeoutSeconds * 1000).toBeLessThan(RECONCILE_MIN_AGE_MS);
    // the consumer retries every 30 s: at least one attempt falls between the two ages
    expect(ORPHAN_AGE_MS - RECONCILE_MIN_AGE_MS).toBeGreaterThanOrEqual(30_000);
  });
});
