import { webhookNotFound } from '../../core/errors.ts';
import { WEBHOOK_ID_PATTERN } from '../../core/webhooks.ts';
import type { Db } from '../../store/db.ts';
import { getWebhook, type StoredWebhook } from '../../store/webhooks.store.ts';
import type { TenantRoute } from '../operation.ts';

/**
 * An operation of the `webhooks` group (functions/api/webhooks.api.ts): `webhooks:read` or
 * `webhooks:manage`, checked by the shared step, and its handler, given the key's tenant.
 */
export type WebhooksRoute = TenantRoute & { permission: 'webhooks:read' | 'webhooks:manage' };

/**
 * The tenant's endpoint by its id; 404 webhook_not_found for another tenant's, a missing one or a
 * malformed id.
 */
export async function endpointOf(db: Db, tenantId: string, webhookId: string): Promise<StoredWebhook> {
  const found = WEBHOOK_ID_PATTERN.test(webhookId) ? await getWebhook(db, tenantId, webhookId) : undefined;
  if (!found) throw webhookNotFound();
  return found;
}
