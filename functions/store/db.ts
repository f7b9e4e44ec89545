import { randomBytes } from 'node:crypto';
import type {
  BatchGetCommandInput,
  BatchGetCommandOutput,
  DeleteCommandInput,
  DeleteCommandOutput,
  GetCommandInput,
  GetCommandOutput,
  PutCommandInput,
  PutCommandOutput,
  QueryCommandInput,
  QueryCommandOutput,
  TransactWriteCommandInput,
  TransactWriteCommandOutput,
  UpdateCommandInput,
  UpdateCommandOutput,
} from '@aws-sdk/lib-dynamodb';

/** An answer as the store reads it: the document client's output shapes, plain values, no SDK metadata. */
type Answer<T> = Omit<T, '$metadata'>;

/**
 * The single table (docs/architecture.md › Items and their keys) as a narrow port: the calls the
 * store makes, each with DynamoDB's own input and answer shapes in plain values (items, keys and
 * expression values as JavaScript values, as the AWS SDK's document client takes them). One
 * adapter implements it (store/dynamodb.ts), on DynamoDB and DynamoDB Local alike; only store/
 * sends calls through it, and every call follows the retry policy of docs/lost-answers.md.
 */
export interface Db {
  /** The table's name, for the `TableName` of each call. */
  readonly table: string;
  get(input: GetCommandInput): Promise<Answer<GetCommandOutput>>;
  batchGet(input: BatchGetCommandInput): Promise<Answer<BatchGetCommandOutput>>;
  query(input: QueryCommandInput): Promise<Answer<QueryCommandOutput>>;
  put(input: PutCommandInput): Promise<Answer<PutCommandOutput>>;
  update(input: UpdateCommandInput): Promise<Answer<UpdateCommandOutput>>;
  delete(input: DeleteCommandInput): Promise<Answer<DeleteCommandOutput>>;
  /** TransactWriteItems; the adapter gives it a ClientRequestToken unless the caller did. */
  transact(input: TransactWriteCommandInput): Promise<Answer<TransactWriteCommandOutput>>;
}

/** The DynamoDB operations behind the port's calls. */
export type DbOperation =
  | 'GetItem'
  | 'BatchGetItem'
  | 'Query'
  | 'PutItem'
  | 'UpdateItem'
  | 'DeleteItem'
  | 'TransactWriteItems';

/** Any call's answer, as a hook sees it (store/dynamodb.ts › DbLayer). */
export type DbOutput = Record<string, unknown> & {
  ConsumedCapacity?: { CapacityUnits?: number } | { CapacityUnits?: number }[];
};

/** Errors that prove the request never reached DynamoDB (nothing was applied). */
const NEVER_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

/**
 * What became of a failed call, as far as its sender can tell: DynamoDB `refused` it (a 4xx: a
 * condition, a throttle, validation; nothing written), it was `never-sent` (no connection was
 * made), it went `unanswered` (a timeout, a reset connection, a 5xx: it may have been applied), or
 * the error is `local` (thrown before anything was sent, or by the process itself).
 */
export type CallFate = 'refused' | 'never-sent' | 'unanswered' | 'local';

export function fateOf(err: unknown): CallFate {
  const e = err as { name?: string; code?: string; $metadata?: { httpStatusCode?: number } };
  if (!e || typeof e !== 'object') return 'local';
  if (e.name === 'WriteOutcomeUnknown') return 'unanswered';
  const status = e.$metadata?.httpStatusCode;
  if (status !== undefined) return status >= 500 ? 'unanswered' : 'refused';
  if (NEVER_SENT.has(e.code ?? '') || NEVER_SENT.has(e.name ?? '')) return 'never-sent';
  return e.name === 'TimeoutError' || e.code !== undefined ? 'unanswered' : 'local';
}

/** Whether a failed write may have been applied (`fateOf` › unanswered). */
export const outcomeUnknown = (err: unknown): boolean => fateOf(err) === 'unanswered';

/**
 * A single-item write whose answer was lost: DynamoDB may have applied it, or not. The table's
 * retry policy does not resend it (store/dynamodb.ts); the store function that sent it decides what an unknown outcome means for its write
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
    const out = await db.query({
      TableName: db.table,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :sk)',
      ExpressionAttributeValues: { ':pk': pk, ':sk': prefix },
      ExclusiveStartKey: start,
    });
    items.push(...(out.Items ?? []));
    start = out.LastEvaluatedKey;
  } while (start);
  return items;
}

/** One item of a TransactWriteItems, as the DocumentClient takes it. */
export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/**
 * Run a TransactWriteItems whose first item carries the condition that decides (the item must
 * exist, be absent, be in a state): true when written, false when that condition failed; any other
 * failure (another item's condition included) is thrown. A lost answer is the table client's to resend, with
 * the same ClientRequestToken (docs/lost-answers.md › transaction): DynamoDB answers the resend as
 * the first send, so a guard this transaction passed never reads as failed by its own write.
 * `send` runs the transaction (store/feed.store.ts › transactAt for one that positions items).
 */
export async function transactGuarded(
  db: Db,
  items: TransactItem[],
  send: (items: TransactItem[]) => Promise<unknown> = (TransactItems) => db.transact({ TransactItems }),
): Promise<boolean> {
  try {
    await send(items);
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
 * The item a refused write found (`ReturnValuesOnConditionCheckFailure: 'ALL_OLD'`), in plain values
 * as the adapter answers it (store/dynamodb.ts).
 */
export function oldItem<T>(err: unknown): T | undefined {
  return (err as { Item?: T }).Item;
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
  const command = (): PutCommandInput => ({
    ConditionExpression: 'attribute_not_exists(pk)',
    ...input,
    TableName: db.table,
    Item: { ...input.Item, [WRITER]: token },
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
  });
  for (let send = 1; ; send++) {
    try {
      await db.put(command());
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
