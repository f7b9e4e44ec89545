import { documentMayMatch, SEARCH_SHARDS, searchShard } from '../core/search-text.ts';
import { type Db, isOutcomeUnknown, type TransactItem } from './db.ts';

/**
 * The search index's port and its adapter on the table (docs/design/search.md › Full text): one
 * small search document per message, `I#{identity}#Q#{shard}` / `{message id}`, holding the sorted
 * 3-byte hashes of its words (`h`, Binary) and its direction (`d`), so a query reads the identity's
 * SEARCH_SHARDS partitions newest first and keeps the documents that hold every word's hash. A
 * managed search service (OpenSearch Serverless) or a semantic index of embeddings would be other
 * adapters of the same port.
 */
export interface SearchIndex {
  /** Store a message's document (written again with the same content: harmless). */
  put(doc: SearchDoc): Promise<void>;
  /** Remove a message's document (gone already: nothing happens). */
  remove(identityId: string, messageId: string): Promise<void>;
  /** The messages whose documents may match, newest first by message id (collisions included: verify them). */
  query(q: SearchIndexQuery): AsyncGenerator<SearchCandidate>;
}

export interface SearchDoc {
  identityId: string;
  messageId: string;
  direction: 'inbound' | 'outbound';
  /** core/search-text.ts › documentTokens. */
  tokens: Uint8Array;
}

export interface SearchIndexQuery {
  identityIds: readonly string[];
  /** core/search-text.ts › termHashes: a document must hold all of them. */
  hashes: readonly number[];
  direction?: 'inbound' | 'outbound';
  /** Only message ids below this one (the cursor), and from `low` up (a time range). */
  before?: string;
  low?: string;
}

export interface SearchCandidate {
  identityId: string;
  messageId: string;
}

const docKey = (identityId: string, messageId: string) => ({
  pk: `I#${identityId}#Q#${searchShard(messageId)}`,
  sk: messageId,
});

/** How often a document put whose answers keep getting lost is sent before the error goes up. */
const DOC_SENDS = 3;

/** The first page a shard is read by; each next page of it is PAGE_GROWTH times larger (1 MB at most). */
const FIRST_PAGE = 32;
const PAGE_GROWTH = 4;

/** The document's Delete, for a transaction that deletes its message. */
export function searchDocDeleteItem(db: Db, identityId: string, messageId: string): TransactItem {
  return { Delete: { TableName: db.table, Key: docKey(identityId, messageId) } };
}

/** The search index on the table `db`. */
export function tableSearchIndex(db: Db): SearchIndex {
  return {
    put: (doc) => putDoc(db, doc),
    remove: async (identityId, messageId) => {
      await db.delete({ TableName: db.table, Key: docKey(identityId, messageId) });
    },
    query: (q) => mergedCandidates(db, q),
  };
}

/**
 * An idempotent write (docs/lost-answers.md › Idempotent update): an unconditional put of the same
 * item, whose second application changes nothing, so an unknown outcome sends it again, at most
 * DOC_SENDS times. A message without a word has no document.
 */
async function putDoc(db: Db, doc: SearchDoc): Promise<void> {
  if (doc.tokens.length === 0) return;
  const item = {
    ...docKey(doc.identityId, doc.messageId),
    h: doc.tokens,
    d: doc.direction === 'inbound' ? 'i' : 'o',
  };
  for (let send = 1; ; send++) {
    try {
      await db.put({ TableName: db.table, Item: item });
      return;
    } catch (err) {
      if (!isOutcomeUnknown(err) || send >= DOC_SENDS) throw err;
    }
  }
}

/** One partition being read: the candidates read and not yet handed out, where its next page starts. */
interface Shard {
  identityId: string;
  pk: string;
  buffered: SearchCandidate[];
  next?: Record<string, unknown>;
  done: boolean;
  pageSize: number;
}

/**
 * Every shard of every identity read newest first, merged by message id: a candidate is handed out
 * once every shard that is not exhausted holds a buffered one (the largest of their heads is the
 * next newest); the shards that hold none are read a page further, in parallel.
 */
async function* mergedCandidates(db: Db, q: SearchIndexQuery): AsyncGenerator<SearchCandidate> {
  const shards: Shard[] = q.identityIds.flatMap((identityId) =>
    Array.from({ length: SEARCH_SHARDS }, (_, n) => ({
      identityId,
      pk: `I#${identityId}#Q#${n}`,
      buffered: [],
      done: false,
      pageSize: FIRST_PAGE,
    })),
  );
  for (;;) {
    const empty = shards.filter((s) => !s.done && s.buffered.length === 0);
    if (empty.length) {
      await Promise.all(empty.map((s) => readPage(db, s, q)));
      continue;
    }
    let best: Shard | undefined;
    for (const s of shards) {
      if (s.buffered.length && (!best || s.buffered[0].messageId > best.buffered[0].messageId)) best = s;
    }
    if (!best) return;
    yield best.buffered.shift()!;
  }
}

/** One page of a shard, newest first, its documents that may match buffered. */
async function readPage(db: Db, s: Shard, q: SearchIndexQuery): Promise<void> {
  const range = q.before !== undefined && q.low !== undefined;
  const out = await db.query({
    TableName: db.table,
    KeyConditionExpression: range
      ? 'pk = :pk AND sk BETWEEN :low AND :high'
      : q.before !== undefined
        ? 'pk = :pk AND sk < :high'
        : q.low !== undefined
          ? 'pk = :pk AND sk >= :low'
          : 'pk = :pk',
    ExpressionAttributeValues: {
      ':pk': s.pk,
      // BETWEEN is inclusive: the cursor itself is left out below.
      ...(q.before !== undefined ? { ':high': q.before } : {}),
      ...(q.low !== undefined ? { ':low': q.low } : {}),
    },
    ProjectionExpression: 'sk, h, d',
    ScanIndexForward: false,
    Limit: s.pageSize,
    ExclusiveStartKey: s.next,
  });
  s.pageSize *= PAGE_GROWTH;
  s.next = out.LastEvaluatedKey;
  s.done = !s.next;
  const want = q.direction === undefined ? undefined : q.direction === 'inbound' ? 'i' : 'o';
  for (const item of out.Items ?? []) {
    const id = item.sk as string;
    if (id === q.before || (want && item.d !== want)) continue;
    if (documentMayMatch(asBytes(item.h), q.hashes))
      s.buffered.push({ identityId: s.identityId, messageId: id });
  }
}

const asBytes = (v: unknown): Uint8Array => (v instanceof Uint8Array ? v : new Uint8Array(0));
