import { toWebhookView } from '../../core/webhooks.ts';
import { listWebhooks } from '../../store/webhooks.store.ts';
import { json } from '../http.ts';
import type { WebhooksRoute } from './endpoint.ts';

/** GET /v1/webhooks: the tenant's endpoints, newest first, on one page. */
export const listWebhooksRoute: WebhooksRoute = {
  permission: 'webhooks:read',
  handle: async (deps, { tenantId, requestId }) => {
    const all = await listWebhooks(deps.db, tenantId);
    return json(200, { data: all.reverse().map(toWebhookView), next_cursor: null }, requestId);
  },
};
