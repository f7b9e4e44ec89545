import { webhookNotFound } from '../../core/errors.ts';
import { WEBHOOK_ID_PATTERN } from '../../core/webhooks.ts';
import { deleteWebhook } from '../../store/webhooks.store.ts';
import { noContent } from '../http.ts';
import type { WebhooksRoute } from './endpoint.ts';

/** DELETE /v1/webhooks/{webhook_id}: the endpoint deleted; it receives no more events. 204. */
export const deleteWebhookRoute: WebhooksRoute = {
  permission: 'webhooks:manage',
  handle: async (deps, { tenantId, params, requestId }) => {
    const deleted =
      WEBHOOK_ID_PATTERN.test(params.webhook_id) &&
      (await deleteWebhook(deps.db, tenantId, params.webhook_id));
    if (!deleted) throw webhookNotFound();
    return noContent(requestId);
  },
};
