import { changeThreadLabels } from '../../labels/change-labels.ts';
import { bodyOf, json } from '../http.ts';
import { labelChangeSchema } from '../labels.schema.ts';
import type { IdentityRoute } from '../operation.ts';
import { parseBody } from '../parse.ts';

/**
 * POST …/threads/{id}/labels: add and remove the conversation's labels, answering them after the
 * change (functions/labels/change-labels.ts). `messages:write`.
 */
export const labelThreadRoute: IdentityRoute = {
  permission: 'messages:write',
  handle: async (deps, { event, key, identity, params, requestId }) => {
    const change = parseBody(bodyOf(event), labelChangeSchema);
    const labels = await changeThreadLabels(deps, {
      identityId: identity.id,
      tenantId: identity.tenant_id,
      threadId: params.thread_id,
      key,
      change,
    });
    return json(200, { thread_id: params.thread_id, labels }, requestId);
  },
};
