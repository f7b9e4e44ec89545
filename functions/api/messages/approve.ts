import { approveRefusal } from '../../core/guardrails.ts';
import { toApiMessage } from '../../core/message-view.ts';
import { approveSend } from '../../send/approval.ts';
import { json } from '../http.ts';
import type { ScopedRoute } from './operation.ts';

/** POST …/messages/{id}/approve: a person's decision on a send waiting for approval: the send goes on to the provider (send/approval.ts). */
export const approveMessageRoute: ScopedRoute = {
  permission: 'messages:approve',
  handle: async (deps, { key, identity, tenant, params, requestId }) => {
    const refusal = approveRefusal(key.scope);
    if (refusal) throw refusal;
    const m = await approveSend(deps, { tenant, identity, messageId: params.message_id, actor: key.key_id });
    return json(200, toApiMessage(m), requestId);
  },
};
