import * as z from 'zod';
import { invalidCursor, invalidQuery } from '../../core/errors.ts';
import { isId } from '../../core/ids.ts';
import { type ListFilter, MAX_FILTER_SCAN, threadMatches } from '../../core/list-filter.ts';
import { parseSearchQuery } from '../../core/search-text.ts';
import { decodeThreadCursor, encodeThreadCursor, toApiThreadSummary } from '../../core/threads.ts';
import { searchThreads } from '../../search/search-threads.ts';
import type { BlobStore } from '../../store/blobs.ts';
import type { Db } from '../../store/db.ts';
import { getLabelsOf } from '../../store/labels.store.ts';
import { tableSearchIndex } from '../../store/search.store.ts';
import { listThreads } from '../../store/thread-list.store.ts';
import { json } from '../http.ts';
import { anyFilter, listFilterFields, listFilterOf } from '../list-filter.schema.ts';
import type { IdentityRoute } from '../operation.ts';
import { zodErrors } from '../send.schema.ts';

/** GET …/threads query. */
const listThreadsQuerySchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(25),
  cursor: z.string().max(200).optional(),
  /** Full text: the threads holding a matching message (functions/search/search-threads.ts). */
  q: z.string().optional(),
  ...listFilterFields,
});

/**
 * GET /v1/identities/{identity_id}/threads: the identity's conversations, newest activity first,
 * those the filters match (core/list-filter.ts; docs/design/search.md › Filters).
 */
export const listThreadsRoute: IdentityRoute = {
  handle: async (deps, { event, identity, key, requestId }) => {
    const q = listThreadsQuerySchema.safeParse(event.queryStringParameters ?? {});
    if (q.success && q.data.q !== undefined)
      return json(200, await searched(deps, identity.id, q.data, key), requestId);
    const after = q.success && q.data.cursor ? decodeThreadCursor(q.data.cursor) : undefined;
    if (!q.success || (q.data.cursor && !after) || (q.success && q.data.has_attachment !== undefined)) {
      throw invalidQuery(
        !q.success
          ? zodErrors(q.error)
          : q.data.has_attachment !== undefined
            ? [{ path: 'has_attachment', message: 'filters messages, not threads' }]
            : [{ path: 'cursor', message: 'use next_cursor from a previous page' }],
      );
    }
    const page = await threadPage(deps.db, identity.id, { limit: q.data.limit, after }, listFilterOf(q.data));
    return json(
      200,
      { data: page.data, next_cursor: page.last ? encodeThreadCursor(page.last) : null },
      requestId,
    );
  },
};

/** `GET …/threads?q=`: a page of the threads holding a match; the cursor is a message id's. */
async function searched(
  { db, blobs }: { db: Db; blobs?: BlobStore },
  identityId: string,
  q: z.output<typeof listThreadsQuerySchema>,
  key: { scopes: readonly string[] },
) {
  if (q.has_attachment !== undefined)
    throw invalidQuery([{ path: 'has_attachment', message: 'filters messages, not threads' }]);
  const cursor = q.cursor ? Buffer.from(q.cursor, 'base64url').toString('utf8') : undefined;
  if (cursor !== undefined && !isId('message', cursor)) throw invalidCursor();
  const page = await searchThreads(
    { db, index: tableSearchIndex(db), blobs },
    { identityId, terms: parseSearchQuery(q.q ?? ''), filter: listFilterOf(q), key, limit: q.limit, cursor },
  );
  return {
    data: page.threads,
    next_cursor: page.next ? Buffer.from(page.next).toString('base64url') : null,
  };
}

type Summary = ReturnType<typeof toApiThreadSummary>;

/**
 * A page of the threads the filter matches, with their labels: the list read a page at a time
 * until `limit` match or MAX_FILTER_SCAN threads were read; `last` is where the next page goes on
 * from. Without a filter, one read of the list. A `since` stops the read at the first older thread
 * (the list is newest activity first).
 */
async function threadPage(
  db: Db,
  identityId: string,
  opts: { limit: number; after?: string },
  filter: ListFilter,
): Promise<{ data: Summary[]; last?: string }> {
  const data: Summary[] = [];
  let after = opts.after;
  let scanned = 0;
  for (;;) {
    const limit = anyFilter(filter) ? Math.min(100, MAX_FILTER_SCAN - scanned) : opts.limit;
    const page = await listThreads(db, identityId, { limit, after });
    const labels = await getLabelsOf(
      db,
      page.data.map((t) => ({ identityId, id: t.id })),
    );
    for (const [i, t] of page.data.entries()) {
      scanned++;
      const view = toApiThreadSummary(t, labels.get(t.id));
      if (filter.since !== undefined && Date.parse(view.last_message_at) < filter.since) return { data };
      if (!threadMatches(view, filter)) continue;
      data.push(view);
      if (data.length === opts.limit) {
        const end = i === page.data.length - 1 && !page.last;
        return { data, ...(end ? {} : { last: page.keys[i] }) };
      }
    }
    if (!page.last || scanned >= MAX_FILTER_SCAN) return { data, ...(page.last ? { last: page.last } : {}) };
    after = page.last;
  }
}
