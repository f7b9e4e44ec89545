import * as z from 'zod';
import { loadBodies } from '../../bodies/read-bodies.ts';
import { invalidQuery, threadNotFound } from '../../core/errors.ts';
import { isId } from '../../core/ids.ts';
import {
  THREAD_MAX_CHARS_DEFAULT,
  THREAD_MAX_CHARS_MAX,
  THREAD_MAX_CHARS_MIN,
} from '../../core/thread-budget.ts';
import { toApiThread } from '../../core/thread-view.ts';
import { viewedMessageIds } from '../../core/threads.ts';
import type { DepsFor } from '../../lambda-ports.ts';
import { getLabels, withStoredLabels } from '../../store/labels.store.ts';
import { getMessages, getThreadSummary } from '../../store/thread-list.store.ts';
import { json } from '../http.ts';
import type { IdentityRoute } from '../operation.ts';
import { zodErrors } from '../send.schema.ts';

/** GET …/threads/{thread_id} query: the text budget (core/thread-budget.ts). */
export const getThreadQuerySchema = z.strictObject({
  max_chars: z.coerce
    .number()
    .int()
    .min(THREAD_MAX_CHARS_MIN)
    .max(THREAD_MAX_CHARS_MAX)
    .default(THREAD_MAX_CHARS_DEFAULT),
  text: z.enum(['whole', 'extracted']).default('whole'),
});

/**
 * GET /v1/identities/{identity_id}/threads/{thread_id}: one conversation, its messages oldest first
 * with their text both ways, under the text budget (core/thread-view.ts).
 */
export const getThreadRoute: IdentityRoute<DepsFor<'api-threads'>> = {
  handle: async (deps, { event, identity, params, requestId }) => {
    const q = getThreadQuerySchema.safeParse(event.queryStringParameters ?? {});
    if (!q.success) throw invalidQuery(zodErrors(q.error));
    const thread = isId('thread', params.thread_id)
      ? await getThreadSummary(deps.db, identity.id, params.thread_id)
      : undefined;
    if (!thread) throw threadNotFound();
    const [messages, labels] = await Promise.all([
      getMessages(deps.db, identity.id, viewedMessageIds(thread.message_ids)).then((ms) =>
        withStoredLabels(deps.db, ms),
      ),
      getLabels(deps.db, { identityId: identity.id, id: thread.id }),
    ]);
    const bodies = await loadBodies(deps, messages, { mime: true });
    const budget = { max_chars: q.data.max_chars, prefer: q.data.text };
    return json(200, toApiThread(thread, messages, bodies, budget, labels?.labels), requestId);
  },
};
