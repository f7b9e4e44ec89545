import * as z from 'zod';
import { invalidQuery } from '../../core/errors.ts';
import { decodeThreadCursor, encodeThreadCursor, toApiThreadSummary } from '../../core/threads.ts';
import { getLabelsOf } from '../../store/labels.store.ts';
import { listThreads } from '../../store/thread-list.store.ts';
import { json } from '../http.ts';
import type { IdentityRoute } from '../operation.ts';
import { zodErrors } from '../send.schema.ts';

/** GET …/threads query. */
const listThreadsQuerySchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(25),
  cursor: z.string().max(200).optional(),
});

/** GET /v1/identities/{identity_id}/threads: the identity's conversations, newest activity first. */
export const listThreadsRoute: IdentityRoute = {
  handle: async (deps, { event, identity, requestId }) => {
    const q = listThreadsQuerySchema.safeParse(event.queryStringParameters ?? {});
    const after = q.success && q.data.cursor ? decodeThreadCursor(q.data.cursor) : undefined;
    if (!q.success || (q.data.cursor && !after)) {
      throw invalidQuery(
        q.success
          ? [{ path: 'cursor', message: 'use next_cursor from a previous page' }]
          : zodErrors(q.error),
      );
    }
    const page = await listThreads(deps.db, identity.id, { limit: q.data.limit, after });
    const labels = await getLabelsOf(
      deps.db,
      page.data.map((t) => ({ identityId: identity.id, id: t.id })),
    );
    return json(
      200,
      {
        data: page.data.map((t) => toApiThreadSummary(t, labels.get(t.id))),
        next_cursor: page.last ? encodeThreadCursor(page.last) : null,
      },
      requestId,
    );
  },
};
