import { toApiMessage } from '../../core/message-view.ts';
import { releaseMessage } from '../../inbound/held.ts';
import { json } from '../http.ts';
import type { ScopedRoute } from './operation.ts';

/**
 * POST …/messages/{id}/release: a held message is shown from now on, `message.received` at a new
 * position in the identity's feed (functions/inbound/held.ts). `messages:hold`.
 */
export const releaseMessageRoute: ScopedRoute = {
  permission: 'messages:hold',
  handle: async (deps, { key, identity, params, requestId }) => {
    const m = await releaseMessage(deps, {
      identityId: identity.id,
      messageId: params.message_id,
      actor: key.key_id,
    });
    return json(200, toApiMessage(m), requestId);
  },
};
