import { threadNotFound } from '../../core/errors.ts';
import { isId } from '../../core/ids.ts';
import { toApiMessage } from '../../core/message-view.ts';
import { MAX_THREAD_VIEW_MESSAGES, toApiThreadSummary, viewedMessageIds } from '../../core/threads.ts';
import { getMessages, getThreadSummary } from '../../store/thread-list.store.ts';
import { json } from '../http.ts';
import type { IdentityRoute } from '../operation.ts';

/** GET /v1/identities/{identity_id}/threads/{thread_id}: one conversation and its messages, in order. */
export const getThreadRoute: IdentityRoute = {
  handle: async (deps, { identity, params, requestId }) => {
    const thread = isId('thread', params.thread_id)
      ? await getThreadSummary(deps.db, identity.id, params.thread_id)
      : undefined;
    if (!thread) throw threadNotFound();
    const messages = await getMessages(deps.db, identity.id, viewedMessageIds(thread.message_ids));
    return json(
      200,
      {
        ...toApiThreadSummary(thread),
        messages_truncated: thread.message_ids.length > MAX_THREAD_VIEW_MESSAGES,
        messages: messages.map((m) => toApiMessage(m, { bodies: false, extracted: true })),
      },
      requestId,
    );
  },
};
