import { changeMessageLabels } from '../../labels/change-labels.ts';
import { bodyOf, json } from '../http.ts';
import { labelChangeSchema } from '../labels.schema.ts';
import { parseBody } from '../parse.ts';
import type { ScopedRoute } from './operation.ts';

/**
 * POST …/messages/{id}/labels: add and remove labels, answering the message's labels after the
 * change (functions/labels/change-labels.ts). `messages:write`; held mail only with `messages:hold`.
 */
export const labelMessageRoute: ScopedRoute = {
  permission: 'messages:write',
  handle: async (deps, { event, key, identity, params, requestId }) => {
    const change = parseBody(bodyOf(event), labelChangeSchema);
    const labels = await changeMessageLabels(deps, {
      identityId: identity.id,
      tenantId: identity.tenant_id,
      messageId: params.message_id,
      key,
      change,
    });
    return json(200, { message_id: params.message_id, labels }, requestId);
  },
};
