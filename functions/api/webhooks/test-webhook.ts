import { webhookDisabled } from '../../core/errors.ts';
import { testEventData, WEBHOOK_TEST_EVENT } from '../../core/webhooks.ts';
import { putTestEvent } from '../../store/webhook-deliveries.store.ts';
import { json } from '../http.ts';
import { endpointOf, type WebhooksRoute } from './endpoint.ts';

/**
 * POST /v1/webhooks/{webhook_id}/test: a `webhook.test` event for this endpoint only, delivered by
 * the fan-out and the deliverer as any event is (signed, retried on the schedule, kept in the
 * endpoint's recent deliveries). The answer names the event: its id is the delivery's `webhook-id`.
 */
export const testWebhookRoute: WebhooksRoute = {
  permission: 'webhooks:manage',
  handle: async (deps, { key, tenantId, params, requestId }) => {
    const endpoint = await endpointOf(deps.db, tenantId, params.webhook_id);
    if (endpoint.status !== 'active') {
      throw webhookDisabled(endpoint.disabled_reason ?? null);
    }
    const event = {
      id: `evt_${deps.newId()}`,
      type: WEBHOOK_TEST_EVENT,
      tenant_id: tenantId,
      created_at: deps.clock(),
      data: testEventData(endpoint.id, key.key_id),
    };
    await putTestEvent(deps.db, event, endpoint.id);
    const queued = {
      delivery_id: event.id,
      webhook_id: endpoint.id,
      event_type: event.type,
      status: 'queued',
    };
    return json(202, queued, requestId);
  },
};
