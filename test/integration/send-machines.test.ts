import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { type TestStack, testStack } from '../support/local.ts';

/**
 * The two machines of DESIGN § 6 run locally (functions/local/state-machine.ts): back-off in the
 * Standard machine with its 24-hour end, scheduled sends, cancel, resolve and the sweeper. The
 * Standard machine's waits take no real time (`waitTimeOverrides`); where the 24-hour line matters,
 * the injected clock moves instead.
 */
const NO_WAITS = { Backoff: 0, WaitUntilSendAt: 0 };

async function outbox(s: TestStack, type: string) {
  const out = await s.deps.db.doc.send(
    new QueryCommand({
      TableName: s.deps.db.table,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :e)',
      ExpressionAttributeValues: { ':pk': `T#${s.tenantId}`, ':e': 'E#' },
    }),
  );
  return (out.Items ?? []).map((i) => i.event).filter((e) => e.type === type);
}

describe('back-off in the Standard send machine', () => {
  it('backs off a rate-limited send and delivers it on the retry, under the execution named on the message', async () => {
    const s = await testStack({ waitTimeOverrides: NO_WAITS, config: { simEventDelaySeconds: 0 } });
    try {
      const sent = await s.send({ to: ['ratelimit@simulator.invalid'], subject: 'R', text: 'x' });
      expect(sent.status).toBe(202);
      await s.settle();
      const m = await s.message(s.agent.id, sent.body.id);
      expect(m?.status).toBe('delivered');
      expect(m?.provider_message_id).toBeTruthy();
      expect(m?.backoff).toBeUndefined();
      // the Express attempt, then the Standard execution Record named on the message
      expect(s.machine.started).toEqual([`${sent.body.id}-d1`, `${sent.body.id}-s2`]);
    } finally {
      await s.close();
    }
  });

  it('ends a send that is rate-limited forever as failed (quota_exhausted) at the 24-hour line, with zero accepts', async () => {
    let t = Date.UTC(2026, 0, 5, 9);
    // every reading of the clock moves it 10 minutes: 24 hours pass in a few dozen attempts
    const s = await testStack({
      waitTimeOverrides: NO_WAITS,
      clock: () => {
        t += 10 * 60_000;
        return t;
      },
    });
    try {
      const sent = await s.send({ to: ['ratelimit-always@simulator.invalid'], subject: 'R', text: 'x' });
      expect(sent.status).toBe(202);
      await s.settle();
      const m = await s.message(s.agent.id, sent.body.id);
      expect(m).toMatchObject({ status: 'failed', status_reason: 'quota_exhausted' });
      expect(m?.deliveries?.map((d) => d.status)).toEqual(['failed']);
      expect(m?.provider_message_id).toBeUndefined();
      expect(m?.backoff).toBeUndefined();
      expect(m?.dispatch).toBeUndefined();
      expect(m!.updated_at - m!.created_at).toBeLessThanOrEqual(24 * 3600_000 + 20 * 60_000);
      const failed = await outbox(s, 'message.failed');
      expect(failed.map((e) => e.data)).toEqual([
        { message_id: sent.body.id, identity_id: s.agent.id, reason: 'quota_exhausted' },
      ]);
      // one Standard execution looped through every retry
      expect(s.machine.started).toEqual([`${sent.body.id}-d1`, `${sent.body.id}-s2`]);
    } finally {
      await s.close();
    }
  });
});
