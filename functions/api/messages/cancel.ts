import { toApiMessage } from '../../core/message-view.ts';
import { cancelSend } from '../../send/actions.ts';
import { json } from '../http.ts';
import type { ScopedRoute } from './operation.ts';

/** POST …/messages/{id}/cancel: a send not yet handed to the provider is canceled (send/actions.ts). */
export const cancelMessageRoute: ScopedRoute = {
  permission: 'messages:send',
  handle: async (deps, { key, identity, tenant, params, requestId }) => {
    const m = await cancelSend(deps, {
      tenant,
      identityId: identity.id,
      messageId: params.message_id,
      actor: key.key_id,
    });
    return json(200, toApiMessage(m), requestId);
  },
};
