import { loadBody } from '../../bodies/read-bodies.ts';
import { messageNotFound } from '../../core/errors.ts';
import { maySee } from '../../core/hold.ts';
import { isId } from '../../core/ids.ts';
import { toApiMessage } from '../../core/message-view.ts';
import type { MessageRecord } from '../../core/model.ts';
import type { Db } from '../../store/db.ts';
import { withStoredLabels } from '../../store/labels.store.ts';
import { getMessage } from '../../store/messages.store.ts';
import { json } from '../http.ts';
import type { ScopedRoute } from './operation.ts';

/** GET …/messages/{id}: one message of the identity, with its bodies; 404 message_not_found otherwise. */
export const getMessageRoute: ScopedRoute = {
  permission: 'messages:read',
  handle: async (deps, { key, identity, params, requestId }) => {
    const m = await messageOf(deps.db, identity.id, params.message_id, key);
    if (!m) throw messageNotFound();
    const [labelled] = await withStoredLabels(deps.db, [m]);
    return json(200, toApiMessage(labelled!, await loadBody(deps, m)), requestId);
  },
};

/**
 * The identity's message by its id, as this key may see it: undefined for an id that is not a
 * message id, and for held mail unless the key holds messages:hold (core/hold.ts › maySee), so a
 * held message answers exactly as a missing one.
 */
export async function messageOf(
  db: Db,
  identityId: string,
  messageId: string,
  key: { scopes: readonly string[] },
): Promise<MessageRecord | undefined> {
  const m = isId('message', messageId) ? await getMessage(db, identityId, messageId) : undefined;
  return m && maySee(key, m) ? m : undefined;
}
