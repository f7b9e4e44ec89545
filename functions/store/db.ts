import { randomBytes } from 'node:crypto';
import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import {
  DynamoDBDocumentClient,
  PutCommand,
  type PutCommandInput,
  QueryCommand,
  TransactWriteCommand,
} from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';

/** The single table (docs/architecture.md › Items and their keys) and the client that reaches it — DynamoDB or DynamoDB Local alike. */
export interface Db {
  doc: DynamoDBDocumentClient;
  table: string;
}

export function createDb(opts: {
  table: string;
  endpoint?: string;
  region?: string;
  maxAttempts?: number;
}): Db {
  const config: DynamoDBClientConfig = {
    region: opts.region ?? process.env.AWS_REGION ?? 'us-east-1',
    maxAttempts: opts.maxAttempts ?? 3,
  };
  if (opts.endpoint) {
    config.endpoint = opts.endpoint;
    // DynamoDB Local accepts any credentials; never let a developer's real ones be looked up.
    config.credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
  }
  const client = new DynamoDBClient(config);
  client.middlewareStack.add(writesNeverResent, {
    step: 'deserialize',
    priority: 'high',
    name: 'pmailWritesNeverResent',
  });
  return {
    doc: DynamoDBDocumentClient.from(client, {
      marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
    }),
    table: opts.table,
  };
}

/**
 * The single-item writes the SDK never sends twice (docs/lost-answers.md). A transaction is not
 * among them: each carries a ClientRequestToken, with which DynamoDB applies a resent transaction
 * once.
 */
const SINGLE_ITEM_WRITES = new Set([
  'PutItemCommand',
  'UpdateItemCommand',
  'DeleteItemCommand',
  'BatchWriteItemCommand',
]);

/** Errors that prove the request never reached DynamoDB (nothing was applied). */
const NEVER_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

/**
 * Whether a failed write may have been applied: DynamoDB answered nothing we can read (a timeout, a
 * reset connection) or a 5xx. A 4xx is DynamoDB's own refusal (a condition, a throttle, validation):
 * nothing was written.
 */
export function outcomeUnknown(err: unknown): boolean {
  const e = err as { name?: string; code?: string; $metadata?: { httpStatusCode?: number } };
  if (!e || typeof e !== 'object') return true;
  const status = e.$metadata?.httpStatusCode;
  if (status !== undefined && status < 500) return false;
  return !NEVER_SENT.has(e.code ?? '') && !NEVER_SENT.has(e.name ?? '');
}

/**
 * A single-item write whose answer was lost: DynamoDB may have applied it, or not. The SDK does not
 * resend it (its name is none the SDK retries, and it has no `cause` for the SDK to look through);
 * the store function that sent it decides what an unknown outcome means for its write
 * (docs/lost-answers.md). Transient: a caller that cannot decide answers 503 or lets the state
 * machine retry.
 */
export class WriteOutcomeUnknown extends Error {
  readonly command: string;
  readonly lost: unknown;
  constructor(command: string, lost: unknown) {
    super(`the answer to ${command} was lost: it may have been applied`);
    this.name = 'WriteOutcomeUnknown';
    this.command = command;
    this.lost = lost;
  }
}

export const isOutcomeUnknown = (err: unknown): err is WriteOutcomeUnknown =>
  err instanceof Error && err.name === 'WriteOutcomeUnknown';

/**
 * Inside the SDK's retry loop, around each attempt: a single-item write whose outcome is unknown
 * becomes `WriteOutcomeUnknown`, which the SDK does not retry. Reads, transactions and definite
 * refusals (throttling among them) keep the SDK's own retry.
 */
// biome-ignore lint/suspicious/noExplicitAny: the SDK's middleware types are generic over every command
const writesNeverResent = (next: any, context: { commandName?: string }) => async (args: any) => {
  try {
    return await next(args);
  } catch (err) {
    const command = String(context.commandName);
    if (SINGLE_ITEM_WRITES.has(command) && outcomeUnknown(err)) throw new WriteOutcomeUnknown(command, err);
    throw err;
  }
};

export function isConditionFailed(err: unknown): boolean {
  return err instanceof Error && err.name === 'ConditionalCheckFailedException';
}

export function isTransactionCanceled(err: unknown): err is Error & {
  CancellationReasons?: { Code?: string; Item?: Record<string, unknown> }[];
} {
  return err instanceof Error && err.name === 'TransactionCanceledException';
}

/**
 * The items of a cancelled TransactWriteItems whose condition failed, by name: `names` names the
 * TransactItems in the order they were sent (DynamoDB answers one reason per item, in that order),
 * so callers ask "did the message's condition fail?" instead of reading a position.
 */
export function failedConditions<N extends string>(err: unknown, names: readonly N[]): Set<N> {
  const out = new Set<N>();
  if (!isTransactionCanceled(err)) return out;
  (err.CancellationReasons ?? []).forEach((r, i) => {
    if (r.Code === 'ConditionalCheckFailed' && names[i] !== undefined) out.add(names[i]);
  });
  return out;
}

type Key = { pk: string; sk: string };

/** Every item of partition `pk` whose sort key starts with `prefix`, all pages (for small, bounded sets). */
export async function queryPrefix(db: Db, pk: string, prefix: string): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const out = await db.doc.send(
      new QueryCommand({
        TableName: db.table,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :sk)',
        ExpressionAttributeValues: { ':pk': pk, ':sk': prefix },
        ExclusiveStartKey: start,
      }),
    );
    items.push(...(out.Items ?? []));
    start = out.LastEvaluatedKey;
  } while (start);
  return items;
}

/** One item of a TransactWriteItems, as the DocumentClient takes it. */
export type TransactItem = NonNullable<
  ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']
>[number];

/**
 * Run a TransactWriteItems whose first item carries the condition that decides (the item must
 * exist, be absent, be in a state): true when written, false when that condition failed; any other
 * failure (another item's condition included) is thrown. A lost answer is the SDK's to resend, with
 * the same ClientRequestToken (docs/lost-answers.md › transaction): DynamoDB answers the resend as
 * the first send, so a guard this transaction passed never reads as failed by its own write.
 */
export async function transactGuarded(db: Db, items: TransactItem[]): Promise<boolean> {
  try {
    await db.doc.send(new TransactWriteCommand({ TransactItems: items }));
    return true;
  } catch (err) {
    if (failedConditions(err, ['guard'] as const).has('guard')) return false;
    throw err;
  }
}

/**
 * The transaction item that takes a place on a counter item (`count`) for an item created against
 * `limit`: it fails the transaction when the counter is full. `deleteCounted` gives the place back.
 * Only inside a transaction, whose resend by ClientRequestToken takes the place once.
 */
export function countUnderLimit(db: Db, counter: Key, limit: number, type: string): TransactItem {
  return {
    Update: {
      TableName: db.table,
      Key: counter,
      UpdateExpression: 'SET #type = :type ADD #count :one',
      ConditionExpression: 'attribute_not_exists(#count) OR #count < :limit',
      ExpressionAttributeNames: { '#count': 'count', '#type': 'type' },
      ExpressionAttributeValues: { ':one': 1, ':limit': limit, ':type': type },
    },
  };
}

/**
 * Delete an item counted against a limit and give its place back on the counter item (`count`),
 * in one transaction; false when there was no item to delete. A resend after a lost answer carries
 * the same ClientRequestToken: the place is given back once and the delete is not answered false.
 */
export function deleteCounted(db: Db, key: Key, counter: Key): Promise<boolean> {
  return transactGuarded(db, [
    { Delete: { TableName: db.table, Key: key, ConditionExpression: 'attribute_exists(pk)' } },
    {
      Update: {
        TableName: db.table,
        Key: counter,
        UpdateExpression: 'ADD #count :minus',
        ConditionExpression: '#count > :zero',
        ExpressionAttributeNames: { '#count': 'count' },
        ExpressionAttributeValues: { ':minus': -1, ':zero': 0 },
      },
    },
  ]);
}

/**
 * Run a conditional write: true when it was written, false when its condition did not hold (a
 * domain outcome, not an error); any other failure is thrown.
 */
export async function conditionally(write: Promise<unknown>): Promise<boolean> {
  try {
    await write;
    return true;
  } catch (err) {
    if (isConditionFailed(err)) return false;
    throw err;
  }
}

/**
 * `ReturnValuesOnConditionCheckFailure: 'ALL_OLD'` hands back the old item in raw attribute-value
 * form even through the DocumentClient: unmarshall it.
 */
export function oldItem<T>(err: unknown): T | undefined {
  const item = (err as { Item?: Record<string, unknown> }).Item;
  if (!item) return undefined;
  const looksRaw = Object.values(item).every(
    (v) => v !== null && typeof v === 'object' && Object.keys(v as object).length === 1,
  );
  // biome-ignore lint/suspicious/noExplicitAny: raw attribute values from the SDK
  return (looksRaw ? unmarshall(item as any) : item) as T;
}

/** Errors a retry may cure: the state machine retries them as `StoreUnavailable` (docs/architecture.md › The send machines). */
export class StoreUnavailable extends Error {
  constructor(cause: unknown) {
    super('the table is unavailable', { cause });
    this.name = 'StoreUnavailable';
  }
}

export function isTransient(err: unknown): boolean {
  const e = err as {
    name?: string;
    $retryable?: unknown;
    $metadata?: { httpStatusCode?: number };
    code?: string;
  };
  if (!e || typeof e !== 'object') return false;
  if (e.$retryable) return true;
  if ((e.$metadata?.httpStatusCode ?? 0) >= 500) return true;
  return [
    'ProvisionedThroughputExceededException',
    'ThrottlingException',
    'RequestLimitExceeded',
    'InternalServerError',
    'ServiceUnavailable',
    'TransactionConflictException',
    'TimeoutError',
    'WriteOutcomeUnknown',
    'ECONNREFUSED',
    'ECONNRESET',
  ].includes(e.name ?? e.code ?? '');
}

/** The attribute of a created item that names the call that created it (`putOnce`). */
export const WRITER = 'wt';

/** A token for one logical write, kept across its own resends (96 random bits). */
export const writeToken = (): string => randomBytes(12).toString('base64url');

/** How often `putOnce` sends one create whose answers keep getting lost before it gives up. */
const CREATE_SENDS = 3;

/**
 * Create an item that must not exist yet, once, whatever becomes of the answers
 * (docs/lost-answers.md › Creates): the item carries the call's token (`wt`); an unknown outcome
 * sends the same put again, and a refusal whose item carries this call's token is this call's own
 * earlier send, so it answers `written`. Another writer's item answers `written: false` with that
 * item (`old`). `ConditionExpression` defaults to the item's absence.
 */
export async function putOnce(
  db: Db,
  input: Omit<PutCommandInput, 'TableName' | 'ReturnValuesOnConditionCheckFailure'>,
  token: string = writeToken(),
): Promise<{ written: true; token: string } | { written: false; old: Record<string, unknown> | undefined }> {
  const command = () =>
    new PutCommand({
      ConditionExpression: 'attribute_not_exists(pk)',
      ...input,
      TableName: db.table,
      Item: { ...input.Item, [WRITER]: token },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
  for (let send = 1; ; send++) {
    try {
      await db.doc.send(command());
      return { written: true, token };
    } catch (err) {
      if (isConditionFailed(err)) {
        const old = oldItem<Record<string, unknown>>(err);
        return old?.[WRITER] === token ? { written: true, token } : { written: false, old };
      }
      if (!isOutcomeUnknown(err) || send >= CREATE_SENDS) throw err;
    }
  }
}
