import { loadBody } from '../../bodies/read-bodies.ts';
import { messageNotFound } from '../../core/errors.ts';
import { isId } from '../../core/ids.ts';
import { toApiMessage } from '../../core/message-view.ts';
import type { MessageRecord } from '../../core/model.ts';
import type { Db } from '../../store/db.ts';
import { getMessage } from '../../store/messages.store.ts';
import { json } from '../http.ts';
import type { ScopedRoute } from './operation.ts';

/** GET …/messages/{id}: one message of the identity, with its bodies; 404 message_not_found otherwise. */
export const getMessageRoute: ScopedRoute = {
  permission: 'messages:read',
  handle: async (deps, { identity, params, requestId }) => {
    const m = await messageOf(deps.db, identity.id, params.message_id);
    if (!m) throw messageNotFound();
    return json(200, toApiMessage(m, await loadBody(deps, m)), requestId);
  },
};

/** The identity's message by its id; undefined for an id that is not a message id. */
export async function messageOf(
  db: Db,
  identityId: string,
  messageId: string,
): Promise<MessageRecord | undefined> {
  return isId('message', messageId) ? await getMessage(db, identityId, messageId) : undefined;
}
