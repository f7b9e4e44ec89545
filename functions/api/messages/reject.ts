import { toApiMessage } from '../../core/message-view.ts';
import { rejectSend } from '../../send/approval.ts';
import { json } from '../http.ts';
import type { ScopedRoute } from './operation.ts';

/** POST …/messages/{id}/reject: a person's decision on a send waiting for approval: the send is never made (send/approval.ts). */
export const rejectMessageRoute: ScopedRoute = {
  permission: 'messages:approve',
  handle: async (deps, { key, identity, tenant, params, requestId }) => {
    const m = await rejectSend(deps, { tenant, identity, messageId: params.message_id, actor: key.key_id });
    return json(200, toApiMessage(m), requestId);
  },
};
