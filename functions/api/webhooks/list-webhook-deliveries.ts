import { RECENT_DELIVERIES_LIMIT, toDeliveryAttemptView } from '../../core/webhooks.ts';
import { listAttempts } from '../../store/webhook-deliveries.store.ts';
import { json } from '../http.ts';
import { endpointOf, type WebhooksRoute } from './endpoint.ts';

/** GET /v1/webhooks/{webhook_id}/deliveries: the endpoint's recent delivery attempts. */
export const listWebhookDeliveriesRoute: WebhooksRoute = {
  permission: 'webhooks:read',
  handle: async (deps, { tenantId, params, requestId }) => {
    const endpoint = await endpointOf(deps.db, tenantId, params.webhook_id);
    const attempts = await listAttempts(
      deps.db,
      tenantId,
      endpoint.id,
      RECENT_DELIVERIES_LIMIT,
      deps.clock(),
    );
    return json(200, { data: attempts.map(toDeliveryAttemptView), next_cursor: null }, requestId);
  },
};
