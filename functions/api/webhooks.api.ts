import { tenantKeyRequired } from '../core/errors.ts';
import type { DepsFor } from '../lambda-ports.ts';
import { type Caller, type Permission, requirePermission } from './auth.ts';
import { operationGroup } from './operation.ts';
import { ownTenant } from './scope.ts';
import { createWebhookRoute } from './webhooks/create-webhook.ts';
import { deleteWebhookRoute } from './webhooks/delete-webhook.ts';
import type { WebhooksRoute } from './webhooks/endpoint.ts';
import { getWebhookRoute } from './webhooks/get-webhook.ts';
import { listWebhookDeliveriesRoute } from './webhooks/list-webhook-deliveries.ts';
import { listWebhooksRoute } from './webhooks/list-webhooks.ts';
import { testWebhookRoute } from './webhooks/test-webhook.ts';

/** The operations of the group, each behind the shared step: the key, its permission, its tenant. */
const OPERATIONS: Record<string, WebhooksRoute> = {
  createWebhook: createWebhookRoute,
  listWebhooks: listWebhooksRoute,
  getWebhook: getWebhookRoute,
  listWebhookDeliveries: listWebhookDeliveriesRoute,
  testWebhook: testWebhookRoute,
  deleteWebhook: deleteWebhookRoute,
};

/**
 * The `webhooks` route group: the tenant's webhook endpoints, one file per operation under
 * functions/api/webhooks/. A tenant-level key only; reads need `webhooks:read` or `webhooks:manage`,
 * changes `webhooks:manage`. The secret is in the 201 of the create and nowhere else.
 */
export function webhooksApi(deps: DepsFor<'api-webhooks'>) {
  return operationGroup(deps, OPERATIONS, (key, operation) => ({
    tenantId: tenantKey(key, operation.permission),
  }));
}

/** The key's tenant, for a tenant-level key holding `permission` (manage includes read). */
function tenantKey(key: Caller, permission: Permission): string {
  if (!(permission === 'webhooks:read' && key.scopes.includes('webhooks:manage')))
    requirePermission(key, permission);
  if (key.identity_ids) {
    throw tenantKeyRequired(permission);
  }
  return ownTenant(key, 'Webhook endpoints');
}
