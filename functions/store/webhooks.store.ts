import type { UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import type { WebhookEndpoint } from '../core/webhooks.ts';
import {
  countUnderLimit,
  type Db,
  deleteCounted,
  isConditionFailed,
  isOutcomeUnknown,
  oldItem,
  queryPrefix,
  transactGuarded,
  writeToken,
} from './db.ts';

/**
 * Webhook endpoints: `T#{ten}` / `WH#{whk_id}`, the secret only sealed
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
  /** The token of the `disableWebhook` call that disabled the endpoint. */
  disabled_by?: string;
}

function fromItem(item: Record<string, unknown>): StoredWebhook {
  const { pk: _pk, sk: _sk, type: _type, ...rest } = item;
  return rest as unknown as StoredWebhook;
}

/**
 * Create the endpoint unless the tenant already has `limit`: `limit_reached` then, nothing written.
 * A transaction (docs/lost-answers.md): the table's client resends it under its ClientRequestToken, which
 * DynamoDB applies once, so a lost answer neither counts the endpoint twice nor refuses it.
 */
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
  const out = await db.get({
    TableName: db.table,
    Key: webhookKey(tenantId, webhookId),
    ConsistentRead: true,
  });
  return out.Item ? fromItem(out.Item) : undefined;
}

/** Every endpoint of the tenant (at most the limit, so one page), oldest first. */
export async function listWebhooks(db: Db, tenantId: string): Promise<StoredWebhook[]> {
  return (await queryPrefix(db, `T#${tenantId}`, SK)).map(fromItem);
}

/**
 * Delete the endpoint and give its place back; false when there was none. A transaction
 * (docs/lost-answers.md): the table client's resend under the same ClientRequestToken is answered as the
 * first send, so a delete that landed never answers `webhook_not_found` nor gives a place back twice.
 */
export async function deleteWebhook(db: Db, tenantId: string, webhookId: string): Promise<boolean> {
  return deleteCounted(db, webhookKey(tenantId, webhookId), countKey(tenantId));
}

/** How often `disableWebhook` sends its update while the answers keep getting lost. */
const DISABLE_SENDS = 3;

/**
 * An endpoint that answered 410 Gone: active → disabled (once; false if not active any more).
 *
 * An owned transition (docs/lost-answers.md): the update leaves this call's token on the endpoint
 * (`disabled_by`). Its answer lost, it is sent again: a refusal by an endpoint that carries the
 * token is this call's own earlier send (true); an endpoint disabled by another call, or deleted,
 * is false. The condition never creates an endpoint that was deleted meanwhile.
 */
export async function disableWebhook(
  db: Db,
  tenantId: string,
  webhookId: string,
  reason: 'gone',
  now: number,
  token: string = writeToken(),
): Promise<boolean> {
  const command = (): UpdateCommandInput => ({
    TableName: db.table,
    Key: webhookKey(tenantId, webhookId),
    UpdateExpression:
      'SET #status = :disabled, disabled_reason = :reason, disabled_by = :token, updated_at = :now',
    ConditionExpression: '#status = :active',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: {
      ':disabled': 'disabled',
      ':active': 'active',
      ':reason': reason,
      ':token': token,
      ':now': now,
    },
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
  });
  for (let send = 1; ; send++) {
    try {
      await db.update(command());
      return true;
    } catch (err) {
      if (isConditionFailed(err)) return oldItem<StoredWebhook>(err)?.disabled_by === token;
      if (!isOutcomeUnknown(err) || send >= DISABLE_SENDS) throw err;
    }
  }
}
