import { randomUUID } from 'node:crypto';
import awsLite from '@aws-lite/client';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { type Db, type DbOperation, type DbOutput, fateOf, WriteOutcomeUnknown } from './db.ts';

/**
 * The table port (`Db`, store/db.ts) over DynamoDB's JSON protocol: `@aws-lite/client` signs and
 * sends each request on a kept-alive connection, `@aws-sdk/util-dynamodb` turns plain values into
 * attribute values and back (as the AWS SDK's document client does), and the retry policy is
 * pmail's own (docs/lost-answers.md › The rule). On DynamoDB Local and on AWS alike.
 *
 * Why not the AWS SDK's client: per call it costs about twice the CPU and five times the module
 * load (docs/design/cost.md › The DynamoDB client), and its retry resends writes unless told not to.
 */

export interface DbSettings {
  table: string;
  /** DynamoDB Local's address; on AWS the Region's endpoint. */
  endpoint?: string;
  /** Default `AWS_REGION`, else us-east-1. */
  region?: string;
  /** Sends of one call, its retries included. Default 3. */
  maxAttempts?: number;
}

/**
 * One step around a call: `next` sends it on (to the next step, the policy, or DynamoDB), as it
 * came or as the step changed it.
 */
export type DbLayer = (
  operation: DbOperation,
  input: Record<string, unknown>,
  next: (input?: Record<string, unknown>) => Promise<DbOutput>,
) => Promise<DbOutput>;

/**
 * Where the local runtime, the bench and the fault tests look into the table's calls:
 * `aroundCall` sees each call as a store made it, in plain values, outside the retry policy;
 * `aroundAttempt` each request as it goes to DynamoDB, inside the policy (a resend is seen again),
 * with its items, keys and values as attribute values and its answer as DynamoDB wrote it. Each
 * returns its removal.
 */
export interface DbHooks {
  aroundCall(layer: DbLayer): () => void;
  aroundAttempt(layer: DbLayer): () => void;
}

/** The port as `createDb` builds it: the port, its hooks, and its address for the local tools. */
export interface DynamoDb extends Db, DbHooks {
  readonly endpoint?: string;
  readonly region: string;
  destroy(): void;
}

/** A table's hooks, also through a wrapper of it (store/batch-reads.ts). */
const HOOKS = new WeakMap<Db, DbHooks>();

export function hooksOf(db: Db): DbHooks {
  const hooks = HOOKS.get(db);
  if (!hooks) throw new Error('this Db was not built by createDb');
  return hooks;
}

/** A wrapper of `db` that sends through it shares its hooks. */
export function sharesHooks(wrapper: Db, db: Db): void {
  const hooks = HOOKS.get(db);
  if (hooks) HOOKS.set(wrapper, hooks);
}

/** The errors DynamoDB throttles or asks to come back with: a resend is a new chance. */
const THROTTLED = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'LimitExceededException',
  'TransactionInProgressException',
]);

/** Base of the back-off between sends (full jitter, doubling): 100 ms, 500 ms after a throttle. */
const BACKOFF_MS = 100;
const THROTTLED_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 20_000;

const SINGLE_ITEM_WRITES = new Set<DbOperation>(['PutItem', 'UpdateItem', 'DeleteItem']);

/**
 * Whether to send a failed call again (docs/lost-answers.md › The rule): a single-item write whose
 * outcome is unknown never (it becomes `WriteOutcomeUnknown`, for its store function to decide); a
 * read, or a transaction with its ClientRequestToken, that went unanswered, yes; anything never
 * sent, yes; a refusal only when DynamoDB throttled it.
 */
function policy(operation: DbOperation, err: unknown): 'resend' | 'unknown' | 'stop' {
  const fate = fateOf(err);
  if (fate === 'unanswered') return SINGLE_ITEM_WRITES.has(operation) ? 'unknown' : 'resend';
  if (fate === 'never-sent') return 'resend';
  return fate === 'refused' && THROTTLED.has((err as { name?: string }).name ?? '') ? 'resend' : 'stop';
}

const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

function backoff(send: number, err: unknown): number {
  const base = THROTTLED.has((err as { name?: string }).name ?? '') ? THROTTLED_BACKOFF_MS : BACKOFF_MS;
  return Math.floor(Math.random() * Math.min(MAX_BACKOFF_MS, base * 2 ** (send - 1)));
}

export function createDb(settings: DbSettings): DynamoDb {
  const region = settings.region ?? process.env.AWS_REGION ?? 'us-east-1';
  const maxAttempts = settings.maxAttempts ?? 3;
  const wire = dynamoWire(region, settings.endpoint);
  const calls: DbLayer[] = [];
  const attempts: DbLayer[] = [];
  type Last = (input: Record<string, unknown>) => Promise<DbOutput>;
  const through = (layers: DbLayer[], operation: DbOperation, input: Record<string, unknown>, last: Last) => {
    const run = (at: number, given: Record<string, unknown>): Promise<DbOutput> =>
      at === layers.length ? last(given) : layers[at](operation, given, (next = given) => run(at + 1, next));
    return run(0, input);
  };

  const withPolicy = async (operation: DbOperation, input: Record<string, unknown>): Promise<DbOutput> => {
    const request = toWire(operation, input);
    for (let send = 1; ; send++) {
      try {
        return fromWire(await through(attempts, operation, request, (sent) => wire.send(operation, sent)));
      } catch (err) {
        const next = policy(operation, err);
        if (next === 'unknown') throw new WriteOutcomeUnknown(operation, err);
        if (next === 'stop' || send >= maxAttempts) throw err;
        await delay(backoff(send, err));
      }
    }
  };
  const call = (operation: DbOperation, given: object): Promise<DbOutput> => {
    // A transaction keeps one ClientRequestToken across its sends: DynamoDB applies it once.
    const input =
      operation === 'TransactWriteItems' && !('ClientRequestToken' in given)
        ? { ...given, ClientRequestToken: randomUUID() }
        : (given as Record<string, unknown>);
    return through(calls, operation, input, (sent) => withPolicy(operation, sent));
  };
  const add = (list: DbLayer[]) => (layer: DbLayer) => {
    list.push(layer);
    return () => {
      const at = list.indexOf(layer);
      if (at >= 0) list.splice(at, 1);
    };
  };
  const db: DynamoDb = {
    table: settings.table,
    endpoint: settings.endpoint,
    region,
    get: (input) => call('GetItem', input),
    batchGet: (input) => call('BatchGetItem', input),
    query: (input) => call('Query', input),
    put: (input) => call('PutItem', input),
    update: (input) => call('UpdateItem', input),
    delete: (input) => call('DeleteItem', input),
    transact: (input) => call('TransactWriteItems', input),
    aroundCall: add(calls),
    aroundAttempt: add(attempts),
    destroy: () => wire.destroy(),
  } as DynamoDb;
  HOOKS.set(db, db);
  return db;
}

/** What the wire sends: one request in DynamoDB's JSON, its answer as it came, its error as DynamoDB named it. */
interface Wire {
  send(operation: DbOperation, request: Record<string, unknown>): Promise<DbOutput>;
  destroy(): void;
}

type LiteClient = (params: Record<string, unknown>) => Promise<{ payload: unknown; statusCode: number }>;

/**
 * One request to DynamoDB through `@aws-lite/client`: its own retries off (the policy above owns
 * them), the answer read as plain JSON (DynamoDB's attribute values are turned into values here,
 * only where the protocol carries items).
 */
function dynamoWire(region: string, endpoint: string | undefined): Wire {
  let client: Promise<LiteClient> | undefined;
  const open = () => {
    client ??= awsLite({
      region,
      ...(endpoint ? { endpoint, accessKeyId: 'local', secretAccessKey: 'local' } : {}),
      autoloadPlugins: false,
      plugins: [],
      retries: 0,
      keepAlive: true,
      responseContentType: 'application/json',
    }) as unknown as Promise<LiteClient>;
    return client;
  };
  return {
    async send(operation, request) {
      const aws = await open();
      const body = JSON.stringify(request);
      try {
        const out = await aws({
          service: 'dynamodb',
          method: 'POST',
          path: '/',
          headers: {
            'X-Amz-Target': `DynamoDB_20120810.${operation}`,
            'content-type': 'application/x-amz-json-1.0',
          },
          body,
        });
        return (out.payload ?? {}) as DbOutput;
      } catch (err) {
        throw dynamoError(err);
      }
    },
    destroy() {
      client = undefined;
    },
  };
}

const MARSHALL = { removeUndefinedValues: true, convertClassInstanceToMap: false } as const;
type Plain = Record<string, unknown>;
type AttributeMap = Record<string, unknown>;

/**
 * Binary values cross the wire as base64 (DynamoDB's JSON protocol): `marshall` leaves bytes as
 * bytes, and `unmarshall` takes them as bytes, so each direction converts `B` and `BS`, in maps and
 * lists too.
 */
function binaries(map: AttributeMap, convert: (b: unknown) => unknown): AttributeMap {
  if (!Object.values(map).some(holdsBinary)) return map;
  const value = (v: unknown): unknown => {
    const av = v as { B?: unknown; BS?: unknown[]; M?: AttributeMap; L?: unknown[] };
    if (av.B !== undefined) return { B: convert(av.B) };
    if (av.BS !== undefined) return { BS: av.BS.map(convert) };
    if (av.M !== undefined) return { M: binaries(av.M, convert) };
    if (av.L !== undefined) return { L: av.L.map(value) };
    return v;
  };
  return Object.fromEntries(Object.entries(map).map(([k, v]) => [k, value(v)]));
}

/** Whether an attribute value is or holds a binary one (most items hold none: they pass as they are). */
function holdsBinary(v: unknown): boolean {
  const av = v as { B?: unknown; BS?: unknown; M?: AttributeMap; L?: unknown[] };
  if (av.B !== undefined || av.BS !== undefined) return true;
  if (av.M !== undefined) return Object.values(av.M).some(holdsBinary);
  return av.L !== undefined && av.L.some(holdsBinary);
}
const toBase64 = (b: unknown) => Buffer.from(b as Uint8Array).toString('base64');
const fromBase64 = (b: unknown) => new Uint8Array(Buffer.from(String(b), 'base64'));

const toAttrs = (v: unknown) =>
  v === undefined ? undefined : binaries(marshall(v as Plain, MARSHALL), toBase64);
const fromAttrs = (v: unknown) =>
  v === undefined ? undefined : unmarshall(binaries(v as AttributeMap, fromBase64) as never);

/** The item-carrying fields of a request as attribute values (what the document client marshals). */
function toWire(operation: DbOperation, input: Plain): Plain {
  if (operation === 'BatchGetItem') {
    const items = input.RequestItems as Record<string, Plain & { Keys: Plain[] }>;
    const RequestItems = Object.fromEntries(
      Object.entries(items).map(([t, r]) => [t, { ...r, Keys: r.Keys.map((k) => toAttrs(k)) }]),
    );
    return { ...input, RequestItems };
  }
  if (operation === 'TransactWriteItems') {
    const TransactItems = (input.TransactItems as Plain[]).map((item) =>
      Object.fromEntries(Object.entries(item).map(([kind, write]) => [kind, itemFields(write as Plain)])),
    );
    return { ...input, TransactItems };
  }
  return itemFields(input);
}

function itemFields(input: Plain): Plain {
  const out: Plain = { ...input };
  for (const field of ['Item', 'Key', 'ExpressionAttributeValues', 'ExclusiveStartKey'])
    if (out[field] !== undefined) out[field] = toAttrs(out[field]);
  return out;
}

/** The item-carrying fields of an answer (or of a refusal's body) as plain values. */
function fromWire(out: Plain): DbOutput {
  const plain: Plain = { ...out };
  for (const field of ['Item', 'Attributes', 'LastEvaluatedKey'])
    if (plain[field] !== undefined) plain[field] = fromAttrs(plain[field]);
  if (Array.isArray(plain.Items)) plain.Items = plain.Items.map(fromAttrs);
  if (plain.Responses)
    plain.Responses = Object.fromEntries(
      Object.entries(plain.Responses as Record<string, unknown[]>).map(([t, items]) => [
        t,
        items.map(fromAttrs),
      ]),
    );
  if (plain.UnprocessedKeys)
    plain.UnprocessedKeys = Object.fromEntries(
      Object.entries(plain.UnprocessedKeys as Record<string, Plain & { Keys: unknown[] }>).map(([t, r]) => [
        t,
        { ...r, Keys: r.Keys.map(fromAttrs) },
      ]),
    );
  return plain as DbOutput;
}

/** Connection errors aws-lite reports by message only. */
const CONNECTION =
  /\b(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|ECONNRESET|EPIPE|ETIMEDOUT)\b/;

/**
 * DynamoDB's refusal as the store reads it (store/db.ts): `name` the short error type, the HTTP
 * status as `$metadata.httpStatusCode`, a refused write's item (`Item`) and a cancelled
 * transaction's reasons as plain values; a request that got no answer keeps its connection error
 * as `code` (no status: its outcome is unknown unless it never connected).
 */
function dynamoError(err: unknown): Error {
  const e = err as Error & Plain & { statusCode?: number; __type?: string };
  const status = typeof e.statusCode === 'number' ? e.statusCode : undefined;
  const type = String(e.__type ?? e.code ?? e.name ?? '');
  const name = status === undefined ? 'TimeoutError' : type.slice(type.indexOf('#') + 1) || 'DynamoDBError';
  const message = String(e.message ?? e.Message ?? name).replace(/^@aws-lite\/client: dynamodb: /, '');
  const out = new Error(message) as Error & Plain;
  out.name = name;
  out.$metadata = { httpStatusCode: status };
  if (status === undefined) out.code = CONNECTION.exec(String(e.message))?.[1] ?? 'ECONNRESET';
  if (e.Item) out.Item = fromAttrs(e.Item);
  if (Array.isArray(e.CancellationReasons))
    out.CancellationReasons = (e.CancellationReasons as Plain[]).map((r) =>
      r.Item ? { ...r, Item: fromAttrs(r.Item) } : r,
    );
  return out;
}
