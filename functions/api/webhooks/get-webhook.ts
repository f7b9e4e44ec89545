import { toWebhookView } from '../../core/webhooks.ts';
import { json } from '../http.ts';
import { endpointOf, type WebhooksRoute } from './endpoint.ts';

/** GET /v1/webhooks/{webhook_id}: one endpoint of the tenant (never its secret). */
export const getWebhookRoute: WebhooksRoute = {
  permission: 'webhooks:read',
  handle: async (deps, { tenantId, params, requestId }) =>
    json(200, toWebhookView(await endpointOf(deps.db, tenantId, params.webhook_id)), requestId),
};
