import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { WebhookEndpoint } from '../core/webhooks.ts';
import {
  conditionally,
  countUnderLimit,
  type Db,
  deleteCounted,
  queryPrefix,
  transactGuarded,
} from './db.ts';

/**
 * Webhook endpoints (issue 5): `T#{ten}` / `WH#{whk_id}`, the secret only sealed
 * (core/webhooks.sealSecret), never in plain text. The tenant's endpoint count lives in
 * `T#{ten}` / `WHN`, so the per-tenant limit holds under concurrent creates: the count and the
 * endpoint are one transaction.
 */
const SK = 'WH#';
export const webhookKey = (tenantId: string, webhookId: string) => ({
  pk: `T#${tenantId}`,
  sk: `${SK}${webhookId}`,
});
const countKey = (tenantId: string) => ({ pk: `T#${tenantId}`, sk: 'WHN' });

export interface StoredWebhook extends WebhookEndpoint {
  secret_sealed: string;
}

function fromItem(item: Record<string, unknown>): StoredWebhook {
  const { pk: _pk, sk: _sk, type: _type, ...rest } = item;
  return rest as unknown as StoredWebhook;
}

/** Create the endpoint unless the tenant already has `limit`: `limit_reached` then, nothing written. */
export async function createWebhook(
  db: Db,
  w: StoredWebhook,
  limit: number,
): Promise<{ created: true } | { created: false; reason: 'limit_reached' }> {
  const written = await transactGuarded(db, [
    countUnderLimit(db, countKey(w.tenant_id), limit, 'webhook_count'),
    {
      Put: {
        TableName: db.table,
        Item: { ...webhookKey(w.tenant_id, w.id), type: 'webhook', ...w },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  ]);
  return written ? { created: true } : { created: false, reason: 'limit_reached' };
}

export async function getWebhook(
  db: Db,
  tenantId: string,
  webhookId: string,
): Promise<StoredWebhook | undefined> {
  const out = await db.doc.send(
    new GetCommand({ TableName: db.table, Key: webhookKey(tenantId, webhookId), ConsistentRead: true }),
  );
  return out.Item ? fromItem(out.Item) : undefined;
}

/** Every endpoint of the tenant (at most the limit, so one page), oldest first. */
export async function listWebhooks(db: Db, tenantId: string): Promise<StoredWebhook[]> {
  return (await queryPrefix(db, `T#${tenantId}`, SK)).map(fromItem);
}

/** Delete the endpoint and give its place back; false when there was none. */
export async function deleteWebhook(db: Db, tenantId: string, webhookId: string): Promise<boolean> {
  return deleteCounted(db, webhookKey(tenantId, webhookId), countKey(tenantId));
}

/** An endpoint that answered 410 Gone: active → disabled (once; false if not active any more). */
export async function disableWebhook(
  db: Db,
  tenantId: string,
  webhookId: string,
  reason: 'gone',
  now: number,
): Promise<boolean> {
  return conditionally(
    db.doc.send(
      new UpdateCommand({
        TableName: db.table,
        Key: webhookKey(tenantId, webhookId),
        UpdateExpression: 'SET #status = :disabled, disabled_reason = :reason, updated_at = :now',
        ConditionExpression: '#status = :active',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':disabled': 'disabled',
          ':active': 'active',
          ':reason': reason,
          ':now': now,
        },
      }),
    ),
  );
}
