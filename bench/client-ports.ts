/**
 * The DynamoDB clients `bench/clients.ts` compares (the AWS SDK v3, @aws-lite/client with its DynamoDB
 * plugin, aws4fetch, and pmail's own table port over @aws-lite/client), each behind the same small port: the five
 * calls of the hot paths, a seed, and the capabilities pmail's store relies on (docs/lost-answers.md),
 * checked by making each happen. Items are plain objects; each client marshals as it does itself.
 */
import awsLite from '@aws-lite/client';
import dynamodbPlugin from '@aws-lite/dynamodb';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { AwsClient } from 'aws4fetch';
import type { Db } from '../functions/store/db.ts';
import { createDb } from '../functions/store/dynamodb.ts';

export const OPERATIONS = ['GetItem', 'PutItem', 'BatchGetItem', 'UpdateItem', 'TransactWriteItems'] as const;
export type Operation = (typeof OPERATIONS)[number];

export interface ClientPort {
  name: string;
  run(op: Operation, n: number): Promise<unknown>;
  seed(): Promise<void>;
  capabilities(): Promise<{ allOld: boolean; reasons: boolean; capacity: boolean }>;
}

/** One DynamoDB call as its JSON-protocol input (plain, unmarshalled values). */
type Call = { target: string; input: Record<string, unknown> };
/** A client's whole difference: how it sends one call and what its errors look like. */
type Send = (call: Call) => Promise<Record<string, unknown>>;

const PAD = 'x'.repeat(200);
const SEEDED = { pk: 'bench#seed', sk: '1', n: 0, pad: PAD };

/** The five calls, and the checks, as JSON-protocol inputs for table `table` and writer `who`. */
function calls(table: string, who: string) {
  const fresh = (n: number, part = '') => ({ pk: `bench#${who}#${n}${part}`, sk: '1', pad: PAD });
  const notThere = 'attribute_not_exists(pk)';
  return {
    GetItem: (): Call => ({
      target: 'GetItem',
      input: { TableName: table, Key: { pk: SEEDED.pk, sk: '1' }, ConsistentRead: true },
    }),
    PutItem: (n: number): Call => ({
      target: 'PutItem',
      input: { TableName: table, Item: fresh(n), ConditionExpression: notThere },
    }),
    BatchGetItem: (): Call => ({
      target: 'BatchGetItem',
      input: {
        RequestItems: {
          [table]: {
            Keys: [
              { pk: SEEDED.pk, sk: '1' },
              { pk: 'bench#seed2', sk: '1' },
            ],
            ConsistentRead: true,
          },
        },
      },
    }),
    UpdateItem: (): Call => ({
      target: 'UpdateItem',
      input: {
        TableName: table,
        Key: { pk: `bench#${who}#counter`, sk: '1' },
        UpdateExpression: 'ADD #n :one',
        ExpressionAttributeNames: { '#n': 'n' },
        ExpressionAttributeValues: { ':one': 1 },
      },
    }),
    TransactWriteItems: (n: number): Call => ({
      target: 'TransactWriteItems',
      input: {
        TransactItems: [
          { Put: { TableName: table, Item: fresh(n, 'a'), ConditionExpression: notThere } },
          { Put: { TableName: table, Item: fresh(n, 'b'), ConditionExpression: notThere } },
        ],
      },
    }),
    refusedPut: (): Call => ({
      target: 'PutItem',
      input: {
        TableName: table,
        Item: SEEDED,
        ConditionExpression: notThere,
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      },
    }),
    refusedTransaction: (n: number): Call => ({
      target: 'TransactWriteItems',
      input: {
        TransactItems: [
          { Put: { TableName: table, Item: fresh(n, 'c') } },
          { Put: { TableName: table, Item: SEEDED, ConditionExpression: notThere } },
        ],
      },
    }),
    counted: (): Call => ({
      target: 'GetItem',
      input: { ...calls(table, who).GetItem().input, ReturnConsumedCapacity: 'TOTAL' },
    }),
    seed: (): Call[] =>
      [SEEDED, { ...SEEDED, pk: 'bench#seed2' }].map((Item) => ({
        target: 'PutItem',
        input: { TableName: table, Item },
      })),
  };
}

/** The port over a client's `send`; `errorOf` reads a refusal the way that client reports it. */
function port(
  name: string,
  table: string,
  send: Send,
  errorOf: (err: unknown) => Record<string, unknown>,
): ClientPort {
  const c = calls(table, name.replace(/\W+/g, ''));
  return {
    name,
    run: (op, n) => send(c[op](n)),
    async seed() {
      for (const call of c.seed()) await send(call);
    },
    async capabilities() {
      const refused = await send(c.refusedPut()).then((): Record<string, unknown> => ({}), errorOf);
      const item = refused.Item as { pk?: unknown } | undefined;
      const cancelled = await send(c.refusedTransaction(0)).then(
        (): Record<string, unknown> => ({}),
        errorOf,
      );
      const reasons = cancelled.CancellationReasons as { Code?: string }[] | undefined;
      const read = await send(c.counted());
      const capacity = read.ConsumedCapacity as { CapacityUnits?: number } | undefined;
      return {
        allOld: item?.pk === SEEDED.pk,
        reasons: reasons?.[1]?.Code === 'ConditionalCheckFailed',
        capacity: typeof capacity?.CapacityUnits === 'number',
      };
    },
  };
}

/** An error body with its refused item (`Item`, marshalled on the wire) unmarshalled. */
function withItem(err: unknown): Record<string, unknown> {
  const e = err as Record<string, unknown>;
  return e.Item ? { ...e, Item: unmarshall(e.Item as never) } : e;
}

const COMMANDS = {
  GetItem: GetCommand,
  PutItem: PutCommand,
  BatchGetItem: BatchGetCommand,
  UpdateItem: UpdateCommand,
  TransactWriteItems: TransactWriteCommand,
} as const;

/** The AWS SDK v3 document client, configured as a team would (retries off, local credentials). */
async function sdkPort(table: string, endpoint: string): Promise<ClientPort> {
  const client = new DynamoDBClient({
    region: 'us-east-1',
    endpoint,
    maxAttempts: 1,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  const doc = DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
  });
  const send: Send = (call) => {
    const Command = COMMANDS[call.target as keyof typeof COMMANDS] as unknown as new (i: unknown) => never;
    return doc.send(new Command(call.input)) as Promise<Record<string, unknown>>;
  };
  // The refused item is on the error as `Item`, still marshalled even through the document client.
  return port('aws-sdk v3', table, send, withItem);
}

async function litePort(table: string, endpoint: string): Promise<ClientPort> {
  const aws = await awsLite({
    region: 'us-east-1',
    endpoint,
    accessKeyId: 'local',
    secretAccessKey: 'local',
    plugins: [dynamodbPlugin],
    autoloadPlugins: false,
    retries: 0,
    keepAlive: true,
  });
  const ddb = (
    aws as unknown as { DynamoDB: Record<string, (i: unknown) => Promise<Record<string, unknown>>> }
  ).DynamoDB;
  const send: Send = (call) => ddb[call.target]!(call.input);
  // aws-lite spreads DynamoDB's error body, still marshalled, onto the error.
  return port('@aws-lite/client', table, send, withItem);
}

const PORT_CALLS: Record<Operation, keyof Omit<Db, 'table'>> = {
  GetItem: 'get',
  PutItem: 'put',
  BatchGetItem: 'batchGet',
  UpdateItem: 'update',
  TransactWriteItems: 'transact',
};

/** pmail's table port (store/dynamodb.ts: @aws-lite/client, its own retry policy), retries off. */
async function pmailPort(table: string, endpoint: string): Promise<ClientPort> {
  const db = createDb({ table, endpoint, maxAttempts: 1 });
  const send: Send = (call) => {
    const method = db[PORT_CALLS[call.target as Operation]] as (
      i: unknown,
    ) => Promise<Record<string, unknown>>;
    return method(call.input);
  };
  // The port answers a refusal's item in plain values already.
  return port('pmail table port', table, send, (err) => err as Record<string, unknown>);
}

/** Marshal the values of a JSON-protocol input that carry items, keys and expression values. */
function marshalled(value: unknown, key = ''): unknown {
  if (['Item', 'Key', 'ExpressionAttributeValues'].includes(key)) return marshall(value as never);
  if (key === 'Keys') return (value as object[]).map((k) => marshall(k as never));
  if (Array.isArray(value)) return value.map((v) => marshalled(v));
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, marshalled(v, k)]));
  return value;
}

async function fetchPort(table: string, endpoint: string): Promise<ClientPort> {
  const aws = new AwsClient({
    accessKeyId: 'local',
    secretAccessKey: 'local',
    region: 'us-east-1',
    service: 'dynamodb',
    retries: 0,
  });
  const send: Send = async (call) => {
    const res = await aws.fetch(endpoint, {
      method: 'POST',
      headers: {
        'X-Amz-Target': `DynamoDB_20120810.${call.target}`,
        'Content-Type': 'application/x-amz-json-1.0',
      },
      body: JSON.stringify(marshalled(call.input)),
    });
    const body = (await res.json()) as Record<string, unknown>;
    if (!res.ok) throw Object.assign(new Error(String(body.__type)), { body });
    return withItem(body);
  };
  return port('aws4fetch', table, send, (err) => withItem((err as { body?: unknown }).body ?? {}));
}

/** The clients, first the one the others are compared against; each made for an endpoint. */
export function clientPorts(table: string): ((endpoint: string) => Promise<ClientPort>)[] {
  return [
    (e) => sdkPort(table, e),
    (e) => litePort(table, e),
    (e) => fetchPort(table, e),
    (e) => pmailPort(table, e),
  ];
}
