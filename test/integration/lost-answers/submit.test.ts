import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../../functions/core/fingerprint.ts';
import { localDay } from '../../../functions/core/quota.ts';
import { keys } from '../../../functions/store/keys.ts';
import { readDailyCounts } from '../../../functions/store/quota.store.ts';
import { faults, writes } from '../../support/faults.ts';
import { stackPerTest, type TestStack } from '../../support/local.ts';

/**
 * The submit path's conditional writes, each with its answer lost inside the SDK's retry after
 * DynamoDB applied it (docs/lost-answers.md): alone, and with another writer's write landing before
 * whatever sends it again. Each recognises its own earlier send, so the end state is one message,
 * one email where a send is involved, the day counted once, and replays identical.
 */
const stack = stackPerTest();

async function clocked() {
  const at = { now: Date.now() };
  const s = await stack({ clock: () => at.now });
  return { s, at, f: faults(s.deps.db) };
}

const body = (s: TestStack, subject = 'Lost answers') => ({
  to: [s.peer.address],
  subject,
  text: 'the body',
});
const outbound = (s: TestStack) => s.mailbox(s.agent.id, 'outbound');
const counted = async (s: TestStack, now: number) =>
  (await readDailyCounts(s.deps.db, s.tenantId, s.agent.id, localDay(now, 'UTC'))).identity;
const keyItem = async (s: TestStack, key: string) =>
  (
    await s.deps.db.doc.send(
      new GetCommand({
        TableName: s.deps.db.table,
        Key: keys.idempotency(s.agent.id, sha256Hex(key)),
        ConsistentRead: true,
      }),
    )
  ).Item;

/** One message for the key, delivered once, its own MIME object kept. */
async function deliveredOnce(s: TestStack, id: string) {
  await s.settle();
  const sent = await outbound(s);
  expect(sent.map((m) => m.id)).toEqual([id]);
  expect(sent[0].status).toBe('delivered');
  expect(await s.deps.blobs.get(sent[0].raw_key)).toBeTruthy();
  expect(await s.mailbox(s.peer.id, 'inbound')).toHaveLength(1);
}

describe('messages.store.ts › putAcceptedMessage: the commit point recognises its own message', () => {
  it('its answer lost: the put is sent again, finds its own message, and the send is accepted once', async () => {
    const { s, at, f } = await clocked();
    const rule = f.loseAnswerInRetry(writes.message);
    const first = await s.send(body(s), 'lost-put');
    expect(first.status).toBe(202);
    expect(first.body.deduplicated).toBe(false);
    expect(f.sent(rule)).toBe(2);
    expect(await counted(s, at.now)).toBe(1);
    expect(await keyItem(s, 'lost-put')).toMatchObject({ state: 'completed', message_id: first.body.id });
    expect((await s.send(body(s), 'lost-put')).body).toEqual({ ...first.body, deduplicated: true });
    await deliveredOnce(s, first.body.id);
  });

  it('its answer lost and the message canceled before the resend: still its own; the MIME kept, nothing sent', async () => {
    const { s, at, f } = await clocked();
    f.loseAnswerInRetry(writes.message, {
      then: async () => {
        const [m] = await outbound(s);
        const canceled = await s.call('POST', `/v1/identities/${s.agent.id}/messages/${m.id}/cancel`);
        expect(canceled.status).toBe(200);
      },
    });
    const first = await s.send(body(s), 'lost-put-canceled');
    expect(first.status).toBe(202);
    expect(first.body.deduplicated).toBe(false);
    expect((await s.send(body(s), 'lost-put-canceled')).body).toEqual({ ...first.body, deduplicated: true });
    await s.settle();
    const sent = await outbound(s);
    expect(sent.map((m) => [m.id, m.status])).toEqual([[first.body.id, 'canceled']]);
    expect(await s.deps.blobs.get(sent[0].raw_key)).toBeTruthy();
    // The cancel gave the day's count back, once.
    expect(await counted(s, at.now)).toBe(0);
    expect(await s.mailbox(s.peer.id, 'inbound')).toHaveLength(0);
  });
});
