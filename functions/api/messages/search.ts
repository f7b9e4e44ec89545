import * as z from 'zod';
import { ID_PATTERNS } from '../../core/ids.ts';
import { toApiMessage } from '../../core/message-view.ts';
import { MESSAGE_STATUSES } from '../../core/model.ts';
import { parseSearchQuery } from '../../core/search-text.ts';
import type { BaseDeps } from '../../deps.ts';
import { searchMessages } from '../../search/search-messages.ts';
import type { BlobStore } from '../../store/blobs.ts';
import { tableSearchIndex } from '../../store/search.store.ts';
import { listFilterFields, listFilterOf } from '../list-filter.schema.ts';

/** The query of a search (`q` with the list's filters): q's own limits are core/search-text.ts's. */
export const searchQuerySchema = z.strictObject({
  q: z.string(),
  direction: z.enum(['inbound', 'outbound']).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(25),
  cursor: z.string().max(200).optional(),
  thread_id: z.string().regex(ID_PATTERNS.thread).optional(),
  status: z.enum(MESSAGE_STATUSES).optional(),
  ...listFilterFields,
});

export type SearchQuery = z.output<typeof searchQuerySchema>;

/**
 * A page of search results over `identityIds` (docs/guides/receiving.md › Search): the list's
 * summaries, newest first by message id, each with its `highlight`; `cursor` is the decoded
 * message id a previous page ended at.
 */
export async function searchPage(
  deps: BaseDeps & { blobs?: BlobStore },
  identityIds: readonly string[],
  q: SearchQuery & { cursorId?: string },
  key: { scopes: readonly string[] },
) {
  const terms = parseSearchQuery(q.q);
  const page = await searchMessages(
    { db: deps.db, index: tableSearchIndex(deps.db), blobs: deps.blobs },
    {
      identityIds,
      terms,
      filter: listFilterOf(q),
      direction: q.direction,
      status: q.status,
      threadId: q.thread_id,
      key,
      limit: q.limit,
      cursor: q.cursorId,
    },
  );
  return {
    data: page.hits.map((h) => ({ ...toApiMessage(h.message, h.body, 'summary'), highlight: h.highlight })),
    next: page.next,
  };
}
