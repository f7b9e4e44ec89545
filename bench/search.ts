import { BatchWriteItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { ulid } from 'ulid';
import { bodyOf } from '../functions/core/message-body.ts';
import type { MessageRecord } from '../functions/core/model.ts';
import {
  documentTokens,
  parseSearchQuery,
  type SearchTerm,
  searchFieldsOf,
  searchShard,
} from '../functions/core/search-text.ts';
import { changeMessageLabels } from '../functions/labels/change-labels.ts';
import { adminClient } from '../functions/local/table.ts';
import { searchMessages } from '../functions/search/search-messages.ts';
import type { Db } from '../functions/store/db.ts';
import { listMessages, messagePutItem } from '../functions/store/messages.store.ts';
import { tableSearchIndex } from '../functions/store/search.store.ts';
import { machineLine } from './env.ts';
import { PRICES } from './prices.ts';
import { type BenchStack, startBenchStack } from './stack.ts';
import { fixed, ratio, summarize, table } from './stats.ts';

/**
 * `npm run bench:search`: full-text search (docs/design/search.md › Full text) on DynamoDB Local.
 * One identity is filled with SIZES messages (received records with ~80-120-word bodies from a
 * skewed vocabulary, a few rare words and a phrase planted, and their search documents, written by
 * BatchWriteItem), then QUERIES queries of each kind run through the search use case, each timed
 * and its read units counted (ReturnConsumedCapacity), beside a bare Query of one page of the list
 * in the same run. Then a tenant-wide search over TENANT_IDENTITIES identities of TENANT_EACH
 * messages each. Write units per stored message: its document's put, measured on a sample.
 */
/**
 * 10,000 then 50,000 messages by default: loading 100,000 takes over 3 minutes on a 2-core machine
 * (SEARCH_BENCH_SIZES=10000,100000 runs it).
 */
const SIZES = (process.env.SEARCH_BENCH_SIZES ?? '10000,50000').split(',').map(Number);
const QUERIES = 50;
const TENANT_IDENTITIES = 10;
const TENANT_EACH = 1000;
const LIMIT = 25;

/** A small seeded generator, so every run fills the same mail. */
function rng(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SYLLABLES = [
  'ka',
  'lo',
  'mi',
  'ter',
  'san',
  'vo',
  'ril',
  'den',
  'pa',
  'shu',
  'gor',
  'ne',
  'tal',
  'bi',
  'fen',
];
/** 3,000 words; a word's rank decides how often it is drawn (Zipf-like: rank 0 in most messages). */
const VOCAB = Array.from({ length: 3000 }, (_, i) => {
  let w = '';
  let n = i + 1;
  while (n > 0) {
    w += SYLLABLES[n % SYLLABLES.length];
    n = Math.floor(n / SYLLABLES.length);
  }
  return w;
});
const RARE = 'quasarflux';
const PHRASE = ['harbor', 'lantern'];

function body(r: () => number, i: number): { subject: string; text: string } {
  const n = 80 + Math.floor(r() * 41);
  const words = Array.from({ length: n }, () => VOCAB[Math.floor(r() ** 3 * VOCAB.length)]!);
  // 1 in 1,000 holds the rare word; 1 in 100 the phrase; its words apart in 1 in 50.
  if (i % 1000 === 7) words[Math.floor(r() * n)] = RARE;
  if (i % 100 === 3) words.splice(Math.floor(r() * n), 0, ...PHRASE);
  if (i % 50 === 11) words.splice(Math.floor(r() * n), 0, PHRASE[1]!, 'and', PHRASE[0]!);
  return { subject: words.slice(0, 5).join(' '), text: words.join(' ') };
}

function record(
  identity: { id: string; address: string },
  tenantId: string,
  i: number,
  at: number,
): MessageRecord {
  const r = rng(i * 7919 + 1);
  const { subject, text } = body(r, i);
  const id = `msg_${ulid(at).toLowerCase()}`;
  const from = `sender${i % 400}@company${i % 60}.example`;
  return {
    id,
    tenant_id: tenantId,
    identity_id: identity.id,
    thread_id: `thr_${id.slice(4)}`,
    direction: 'inbound',
    status: 'received',
    from: { address: from, name: `Sender ${i % 400}` },
    to: [{ address: identity.address }],
    cc: [],
    bcc: [],
    reply_to: [],
    subject,
    kind: 'transactional',
    labels: [],
    flags: [],
    rfc_message_id: `<${id}@bench.example>`,
    raw_key: '',
    raw_size: 2000,
    created_at: at,
    updated_at: at,
    version: 0,
    inbound: {
      ses_message_id: id,
      received_at: at,
      envelope_from: from,
      envelope_recipient: identity.address,
      routed_to: identity.address,
      dedupe_key: id,
      canonical: { from, to: [identity.address], cc: [], reply_to: [] },
      parse: 'parsed',
      threaded_by: 'new',
      text,
      extracted_text: text,
      headers: [],
      attachments: [],
      verdicts: {},
    },
  };
}

const docItem = (m: MessageRecord) => ({
  pk: `I#${m.identity_id}#Q#${searchShard(m.id)}`,
  sk: m.id,
  h: documentTokens(searchFieldsOf({ ...m, ...bodyOf(m) })),
  d: 'i',
});

/** Write `count` messages and their documents, 25 items a BatchWriteItem, 16 at once; the ms it took. */
async function fill(
  raw: DynamoDBClient,
  db: Db,
  identity: { id: string; address: string },
  tenantId: string,
  range: { from: number; count: number; start: number },
): Promise<number> {
  const t0 = performance.now();
  const items: Record<string, unknown>[] = [];
  for (let i = range.from; i < range.from + range.count; i++) {
    const m = record(identity, tenantId, i, range.start + i * 1000);
    items.push(messagePutItem(db, m, 0).Put.Item as Record<string, unknown>, docItem(m));
  }
  const batches: Record<string, unknown>[][] = [];
  for (let i = 0; i < items.length; i += 25) batches.push(items.slice(i, i + 25));
  let next = 0;
  const worker = async () => {
    while (next < batches.length) {
      let pending = batches[next++]!.map((Item) => ({
        PutRequest: { Item: marshall(Item, { removeUndefinedValues: true }) },
      }));
      while (pending.length) {
        const out = await raw.send(new BatchWriteItemCommand({ RequestItems: { [db.table]: pending } }));
        pending = (out.UnprocessedItems?.[db.table] ?? []) as typeof pending;
      }
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  return performance.now() - t0;
}

interface Measured {
  kind: string;
  p50: number;
  p95: number;
  rru: number;
  results: number;
}

/** Run `q` QUERIES times (cursorless, newest page): latency and read units per query. */
async function measure(stack: BenchStack, kind: string, run: () => Promise<number>): Promise<Measured> {
  const stage = `q:${kind}:${Math.random()}`;
  stack.setPhase(stage);
  const latencies: number[] = [];
  let results = 0;
  for (let i = 0; i < QUERIES; i++) {
    const t0 = performance.now();
    results += await run();
    latencies.push(performance.now() - t0);
  }
  stack.setPhase('setup');
  const s = summarize(latencies);
  const units = stack.meter.collect().filter((t) => t.stage === stage);
  const rru = units.filter((t) => t.kind === 'read').reduce((n, t) => n + t.units, 0) / QUERIES;
  return { kind, p50: s.p50, p95: s.p95, rru, results: results / QUERIES };
}

const KINDS: [string, string][] = [
  ['common word', VOCAB[0]!],
  ['rare word', RARE],
  ['two words', `${VOCAB[2]} ${VOCAB[30]}`],
  ['phrase', `"${PHRASE.join(' ')}"`],
];

async function queries(stack: BenchStack, identityIds: string[]): Promise<Measured[]> {
  const db = stack.runtime.deps.db;
  const index = tableSearchIndex(db);
  const key = { scopes: ['messages:read'] };
  const search = (terms: SearchTerm[]) => async () =>
    (await searchMessages({ db, index }, { identityIds, terms, filter: {}, key, limit: LIMIT })).hits.length;
  const out: Measured[] = [];
  if (identityIds.length === 1)
    out.push(
      await measure(
        stack,
        'bare list page',
        async () => (await listMessages(db, identityIds[0]!, { limit: LIMIT })).data.length,
      ),
    );
  for (const [kind, q] of KINDS) out.push(await measure(stack, kind, search(parseSearchQuery(q))));
  return out;
}

/** Write units of a document's put and of a change of labels, each measured on a sample. */
async function writeUnits(stack: BenchStack, identity: { id: string; address: string }, tenantId: string) {
  const db = stack.runtime.deps.db;
  const index = tableSearchIndex(db);
  stack.setPhase('doc-put');
  const sample = Array.from({ length: 100 }, (_, i) =>
    record(identity, tenantId, 900_000 + i, Date.now() - i),
  );
  let bytes = 0;
  for (const m of sample) {
    const doc = docItem(m);
    bytes += doc.h.length;
    await index.put({ identityId: m.identity_id, messageId: m.id, direction: 'inbound', tokens: doc.h });
  }
  const docPut = stack.meter.collect().filter((t) => t.stage === 'doc-put');
  const wcu = docPut.reduce((n, t) => n + t.units, 0) / sample.length;
  stack.setPhase('labels');
  stack.meter.exactTransactions = true;
  const m = sample[0]!;
  await db.put({ TableName: db.table, Item: messagePutItem(db, m, 0).Put.Item });
  for (let i = 0; i < 10; i++)
    await changeMessageLabels(stack.runtime.deps, {
      identityId: identity.id,
      tenantId,
      key: { scopes: ['messages:write'] },
      messageId: m.id,
      change: { add: [`l${i}`], remove: [] },
    });
  stack.meter.exactTransactions = false;
  const labels = stack.meter.collect().filter((t) => t.stage === 'labels' && t.kind === 'write');
  const labelWcu = labels.reduce((n, t) => n + t.corrected, 0) / 10;
  stack.setPhase('setup');
  return { docWcu: wcu, docBytes: bytes / sample.length, labelWcu };
}

const dollars = (rru: number) => `$${(rru * PRICES.dynamoReadUnit * 1000).toFixed(4)}`;

function print(title: string, rows: Measured[]) {
  const bare = rows.find((r) => r.kind === 'bare list page');
  console.log(`\n${title}`);
  console.log(
    table(
      ['query', 'p50 ms', 'p95 ms', 'p95 vs bare page', 'RRU/query', '$/1,000 queries', 'results'],
      rows.map((r) => [
        r.kind,
        fixed(r.p50),
        fixed(r.p95),
        bare ? ratio(r.p95, bare.p95, 1) : 'n/a',
        fixed(r.rru, 1),
        dollars(r.rru),
        fixed(r.results, 1),
      ]),
      [1, 2, 3, 4, 5, 6],
    ),
  );
}

async function main() {
  process.env.JAVA_TOOL_OPTIONS ??= '-Xmx1g -XX:TieredStopAtLevel=1';
  const tenantNames = Array.from({ length: TENANT_IDENTITIES }, (_, i) => `t${i}`);
  const stack = await startBenchStack({ identities: ['search', ...tenantNames] });
  const raw = adminClient({ table: stack.runtime.deps.db.table, endpoint: stack.endpoint });
  try {
    stack.setAttribution(false);
    const db = stack.runtime.deps.db;
    const [primary, ...others] = stack.tenant.identities;
    const start = Date.now() - 200_000_000;
    console.log(machineLine());
    let loaded = 0;
    for (const size of SIZES) {
      const ms = await fill(raw, db, primary!, stack.tenant.tenantId, {
        from: loaded,
        count: size - loaded,
        start,
      });
      console.log(`loaded ${size - loaded} messages + documents in ${(ms / 1000).toFixed(1)} s`);
      loaded = size;
      print(
        `one identity, ${size} messages (limit ${LIMIT}, ${QUERIES} queries each)`,
        await queries(stack, [primary!.id]),
      );
    }
    for (const [n, o] of others.entries())
      await fill(raw, db, o, stack.tenant.tenantId, { from: n * TENANT_EACH, count: TENANT_EACH, start });
    print(
      `tenant-wide, ${TENANT_IDENTITIES} identities × ${TENANT_EACH} messages`,
      await queries(
        stack,
        others.map((o) => o.id),
      ),
    );
    const w = await writeUnits(stack, primary!, stack.tenant.tenantId);
    console.log(
      `\nper stored message: search document ${fixed(w.docWcu, 2)} WCU (${fixed(w.docBytes, 0)} B of tokens); labels 0 WCU until changed, a change ${fixed(w.labelWcu, 1)} WCU as billed`,
    );
  } finally {
    raw.destroy();
    await stack.close();
  }
}

await main();
