import { deleteHeldMessage } from '../../inbound/held.ts';
import { noContent } from '../http.ts';
import type { ScopedRoute } from './operation.ts';

/**
 * DELETE …/messages/{id}: a held message and its raw copy are deleted (functions/inbound/held.ts);
 * any other message is 409 message_not_held. `messages:hold`.
 */
export const deleteMessageRoute: ScopedRoute = {
  permission: 'messages:hold',
  handle: async (deps, { key, identity, params, requestId }) => {
    await deleteHeldMessage(deps, {
      identityId: identity.id,
      messageId: params.message_id,
      actor: key.key_id,
    });
    return noContent(requestId);
  },
};
