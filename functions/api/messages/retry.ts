import { toApiMessage } from '../../core/message-view.ts';
import { retrySend } from '../../send/actions.ts';
import { json } from '../http.ts';
import type { ScopedRoute } from './operation.ts';

/** POST …/messages/{id}/retry: an operator's retry of a failed send (send/actions.ts). */
export const retryMessageRoute: ScopedRoute = {
  permission: 'messages:write',
  handle: async (deps, { key, identity, params, requestId }) => {
    const m = await retrySend(deps, {
      identityId: identity.id,
      messageId: params.message_id,
      actor: key.key_id,
    });
    return json(200, toApiMessage(m), requestId);
  },
};
