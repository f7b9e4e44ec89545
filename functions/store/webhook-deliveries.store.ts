import { DELIVERY_ATTEMPT_KEEP_MS, type DeliveryAttempt, WEBHOOK_TEST_KEEP_MS } from '../core/webhooks.ts';
import type { Db } from './db.ts';
import type { OutboxEvent } from './events.store.ts';

/**
 * What webhooks keep besides the endpoints (functions/store/webhooks.store.ts):
 *
 * - test events, `T#{ten}` / `WT#{evt_id}`: a `webhook.test` event meant for one endpoint. Kept
 *   out of the outbox (`E#…`), so `GET /v1/events` and the other endpoints never see it; its insert
 *   reaches the fan-out through the table's stream like an outbox insert (fan-out.ts).
 * - delivery attempts, `T#{ten}` / `WD#{whk_id}#{time}#{evt_id}#{attempt}`: one per POST the
 *   deliverer made, newest last in key order, each expiring after DELIVERY_ATTEMPT_KEEP_MS.
 *
 * Both are plain puts of items whose keys are new (a fresh event id; the attempt's own time, event
 * and number): a resend after a lost answer writes the same item again, nothing else.
 */
const TEST_SK = 'WT#';
const ATTEMPT_SK = 'WD#';

export const TEST_EVENT_TYPE = 'webhook_test';

export async function putTestEvent(db: Db, e: OutboxEvent, webhookId: string): Promise<void> {
  await db.put({
    TableName: db.table,
    Item: {
      pk: `T#${e.tenant_id}`,
      sk: `${TEST_SK}${e.id}`,
      type: TEST_EVENT_TYPE,
      webhook_id: webhookId,
      event: e,
      ttl: Math.ceil((e.created_at + WEBHOOK_TEST_KEEP_MS) / 1000),
    },
  });
}

/** The test event `eventId` meant for `webhookId`, or undefined (another endpoint's, or expired). */
export async function getTestEvent(
  db: Db,
  tenantId: string,
  webhookId: string,
  eventId: string,
  now: number,
): Promise<OutboxEvent | undefined> {
  const out = await db.get({ TableName: db.table, Key: { pk: `T#${tenantId}`, sk: `${TEST_SK}${eventId}` } });
  const item = out.Item;
  if (!item || item.webhook_id !== webhookId || Number(item.ttl) * 1000 <= now) return undefined;
  return item.event as OutboxEvent;
}

const attemptPrefix = (webhookId: string) => `${ATTEMPT_SK}${webhookId}#`;

export async function recordAttempt(db: Db, tenantId: string, a: DeliveryAttempt): Promise<void> {
  const at = new Date(a.attempted_at).toISOString();
  await db.put({
    TableName: db.table,
    Item: {
      pk: `T#${tenantId}`,
      sk: `${attemptPrefix(a.webhook_id)}${at}#${a.event_id}#${a.attempt}`,
      type: 'webhook_attempt',
      attempt: a,
      ttl: Math.ceil((a.attempted_at + DELIVERY_ATTEMPT_KEEP_MS) / 1000),
    },
  });
}

/** The endpoint's most recent attempts, newest first, at most `limit`, none past its expiry. */
export async function listAttempts(
  db: Db,
  tenantId: string,
  webhookId: string,
  limit: number,
  now: number,
): Promise<DeliveryAttempt[]> {
  const out = await db.query({
    TableName: db.table,
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :sk)',
    ExpressionAttributeValues: { ':pk': `T#${tenantId}`, ':sk': attemptPrefix(webhookId) },
    ScanIndexForward: false,
    Limit: limit,
  });
  // Expired items may linger until DynamoDB's TTL sweep removes them.
  return (out.Items ?? []).filter((i) => Number(i.ttl) * 1000 > now).map((i) => i.attempt as DeliveryAttempt);
}
