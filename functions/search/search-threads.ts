import { type ListFilter, threadMatches } from '../core/list-filter.ts';
import type { Highlight } from '../core/search-text.ts';
import { toApiThreadSummary } from '../core/threads.ts';
import { batchedReads } from '../store/batch-reads.ts';
import type { BlobStore } from '../store/blobs.ts';
import type { Db } from '../store/db.ts';
import { getLabelsOf } from '../store/labels.store.ts';
import type { SearchIndex } from '../store/search.store.ts';
import { getThreadSummary } from '../store/thread-list.store.ts';
import { type SearchRequest, searchMessages } from './search-messages.ts';

/** How many matching messages one thread search reads per wanted thread (bounded by the search's own cap). */
const HITS_PER_THREAD = 4;

/**
 * The threads holding a matching message (docs/guides/receiving.md › Search), newest matching
 * message first, each shown as the thread list shows it with the highlight of its newest matching
 * message; the list filters apply to the thread (core/list-filter.ts › threadMatches). `next` is the
 * message id the next page goes on below: a thread whose older messages match too may show again
 * on a later page.
 */
export async function searchThreads(
  ports: { db: Db; index: SearchIndex; blobs?: BlobStore },
  r: Omit<SearchRequest, 'filter' | 'identityIds'> & { identityId: string; filter: ListFilter },
): Promise<{
  threads: (ReturnType<typeof toApiThreadSummary> & { highlight: Highlight })[];
  next: string | null;
}> {
  const page = await searchMessages(ports, {
    ...r,
    identityIds: [r.identityId],
    filter: {},
    limit: Math.min(100, r.limit * HITS_PER_THREAD),
  });
  const firsts = new Map<string, Highlight>();
  let next = page.next;
  for (const [i, hit] of page.hits.entries()) {
    if (firsts.has(hit.message.thread_id)) continue;
    if (firsts.size === r.limit) {
      next = page.hits[i - 1]!.message.id;
      break;
    }
    firsts.set(hit.message.thread_id, hit.highlight);
  }
  const ids = [...firsts.keys()];
  const reads = batchedReads(ports.db);
  const [summaries, labels] = await Promise.all([
    Promise.all(ids.map((id) => getThreadSummary(reads, r.identityId, id))),
    getLabelsOf(
      ports.db,
      ids.map((id) => ({ identityId: r.identityId, id })),
    ),
  ]);
  const threads = summaries.flatMap((t) => {
    if (!t) return [];
    const view = toApiThreadSummary(t, labels.get(t.id));
    return threadMatches(view, r.filter) ? [{ ...view, highlight: firsts.get(t.id)! }] : [];
  });
  return { threads, next };
}
