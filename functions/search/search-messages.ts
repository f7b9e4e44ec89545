import { loadBodies } from '../bodies/read-bodies.ts';
import { maySee } from '../core/hold.ts';
import { type ListFilter, messageIdBounds, messageMatches } from '../core/list-filter.ts';
import type { MessageBody } from '../core/message-body.ts';
import { toApiMessage } from '../core/message-view.ts';
import type { MessageRecord, MessageStatus } from '../core/model.ts';
import {
  type Highlight,
  MAX_SEARCH_READS,
  matchMessage,
  type SearchTerm,
  searchFieldsOf,
  termHashes,
} from '../core/search-text.ts';
import { batchedReads } from '../store/batch-reads.ts';
import type { BlobStore } from '../store/blobs.ts';
import type { Db } from '../store/db.ts';
import { withStoredLabels } from '../store/labels.store.ts';
import { getMessage } from '../store/messages.store.ts';
import type { SearchCandidate, SearchIndex } from '../store/search.store.ts';

/**
 * Full-text search (docs/design/search.md › Full text): the index's candidates newest first by
 * message id, each read and verified on its real text (a hash collision, a phrase's adjacency),
 * left out when the key may not see it (held mail: core/hold.ts › maySee) or another filter does
 * not match (core/list-filter.ts). At most MAX_SEARCH_READS candidates are read per request: past
 * them the page ends, maybe short, with `next` the last message id examined.
 */
export interface SearchRequest {
  identityIds: readonly string[];
  terms: readonly SearchTerm[];
  filter: ListFilter;
  direction?: 'inbound' | 'outbound';
  status?: MessageStatus;
  threadId?: string;
  key: { scopes: readonly string[] };
  limit: number;
  /** A message id: the page starts below it. */
  cursor?: string;
}

/** A result: the message (with its stored labels), its body, and where it matched. */
export interface SearchHit {
  message: MessageRecord;
  body: MessageBody;
  highlight: Highlight;
}

export async function searchMessages(
  ports: { db: Db; index: SearchIndex; blobs?: BlobStore },
  r: SearchRequest,
): Promise<{ hits: SearchHit[]; next: string | null }> {
  const range = messageIdBounds(r.filter);
  const before = [r.cursor, range.high].filter((v) => v !== undefined).sort()[0];
  // An empty range (`until` before `since`, a cursor below `since`): nothing to read.
  if (before !== undefined && range.low !== undefined && before <= range.low) return { hits: [], next: null };
  const candidates = ports.index.query({
    identityIds: r.identityIds,
    hashes: termHashes(r.terms),
    direction: r.direction,
    ...(before !== undefined ? { before } : {}),
    ...(range.low !== undefined ? { low: range.low } : {}),
  });
  const hits: SearchHit[] = [];
  let examined = 0;
  let last: string | null = null;
  while (examined < MAX_SEARCH_READS) {
    const want = Math.min(MAX_SEARCH_READS - examined, Math.max(r.limit - hits.length, 10));
    const batch = await take(candidates, want);
    examined += batch.length;
    last = batch.at(-1)?.messageId ?? last;
    const verified = await verify(ports, batch, r);
    for (const [i, hit] of verified.entries()) {
      if (!hit) continue;
      hits.push(hit);
      if (hits.length === r.limit) {
        const more = i < batch.length - 1 || !(await candidates.next()).done;
        return { hits, next: more ? hit.message.id : null };
      }
    }
    if (batch.length < want) return { hits, next: null };
  }
  return { hits, next: last };
}

/** The next `n` candidates (fewer: the index has no more). */
async function take(it: AsyncGenerator<SearchCandidate>, n: number): Promise<SearchCandidate[]> {
  const out: SearchCandidate[] = [];
  while (out.length < n) {
    const next = await it.next();
    if (next.done) break;
    out.push(next.value);
  }
  return out;
}

/**
 * The candidates' messages (one BatchGetItem), bodies and labels, each the hit it is or undefined:
 * gone since it was indexed, not for this key, outside a filter, or not matching its real text. A
 * sent message whose body item never landed (its writer stopped after the commit) is read from its
 * MIME where the caller has the object store.
 */
async function verify(
  { db, blobs }: { db: Db; blobs?: BlobStore },
  batch: readonly SearchCandidate[],
  r: SearchRequest,
) {
  const reads = batchedReads(db);
  const found = await Promise.all(batch.map((c) => getMessage(reads, c.identityId, c.messageId)));
  const records = found.filter(
    (m): m is MessageRecord =>
      m !== undefined &&
      maySee(r.key, m) &&
      (r.direction === undefined || m.direction === r.direction) &&
      (r.status === undefined || m.status === r.status) &&
      (r.threadId === undefined || m.thread_id === r.threadId),
  );
  const [bodies, labelled] = await Promise.all([
    loadBodies({ db, blobs }, records, { mime: blobs !== undefined }),
    withStoredLabels(db, records),
  ]);
  const byId = new Map(labelled.map((m) => [m.id, m]));
  return batch.map((c): SearchHit | undefined => {
    const message = byId.get(c.messageId);
    const body = message && bodies.get(message.id);
    if (!message || !body || !messageMatches(toApiMessage(message, body, 'summary'), r.filter))
      return undefined;
    const highlight = matchMessage(searchFieldsOf({ ...message, ...body }), r.terms);
    return highlight ? { message, body, highlight } : undefined;
  });
}
