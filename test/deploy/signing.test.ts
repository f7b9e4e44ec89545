import { createHash, createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import {
  BatchGetCommand,
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { SignatureV4 } from '@smithy/signature-v4';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { readSecretString } from '../../functions/adapters/secrets.ts';
import type { DbOperation } from '../../functions/store/db.ts';
import { createDb } from '../../functions/store/dynamodb.ts';

/**
 * The requests pmail signs with `@aws-lite/client` (every operation of the table's port, and the
 * keys secret's GetSecretValue) carry the Authorization header AWS's own signer computes for the
 * same request (`@smithy/signature-v4`, the AWS SDK's), with a session token, in two Regions, for
 * payloads from a few bytes to most of DynamoDB's 400 KB item; and their target, content type and
 * body are what the AWS SDK serialises for the same input. Both clients send to one local capture
 * server through the production configuration (credentials and endpoint from the environment).
 */

interface Captured {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

let captured: Captured[] = [];
let url = '';
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    captured.push({
      method: req.method ?? '',
      path: req.url ?? '',
      headers: req.headers,
      body: Buffer.concat(chunks).toString('utf8'),
    });
    const target = String(req.headers['x-amz-target'] ?? '');
    res.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' });
    res.end(target.startsWith('secretsmanager.') ? '{"SecretString":"{}"}' : '{}');
  });
});

const CREDENTIALS = {
  accessKeyId: 'ASIAEXAMPLEKEY123456',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
  sessionToken: 'IQoJb3JpZ2luX2VjEXAMPLE//////////wEaCXVzLWVhc3QtMSJHMEUCIQD-session-token',
};
const NOW = new Date('2026-12-07T10:00:00Z');

beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllEnvs();
  captured = [];
});

/** The AWS SDK's SHA-256 interface over node:crypto (hash, or HMAC with a secret). */
class Sha256 {
  private readonly h;
  constructor(secret?: unknown) {
    this.h =
      secret === undefined ? createHash('sha256') : createHmac('sha256', Buffer.from(secret as Uint8Array));
  }
  update(data: unknown) {
    this.h.update(typeof data === 'string' ? Buffer.from(data, 'utf8') : Buffer.from(data as Uint8Array));
  }
  async digest() {
    return new Uint8Array(this.h.digest());
  }
}

/**
 * The Authorization header `@smithy/signature-v4` computes for a captured request, signed over the
 * same headers (aws4 signs content-length, content-type, host, x-amz-date, x-amz-security-token and
 * x-amz-target; smithy signs whichever it is given, so `host` is passed, and no payload checksum
 * header is added: TOOLCHAIN facts of this repository's setup are in docs/deploying.md).
 */
async function smithyAuthorization(c: Captured, service: string, region: string): Promise<string> {
  const signer = new SignatureV4({
    service,
    region,
    credentials: CREDENTIALS,
    sha256: Sha256,
    applyChecksum: false,
  });
  const headers = Object.fromEntries(
    Object.entries(c.headers)
      .filter(([k]) => k !== 'authorization')
      .map(([k, v]) => [k, String(v)]),
  );
  const [hostname, port] = String(c.headers.host).split(':');
  const signed = await signer.sign(
    {
      method: c.method,
      protocol: 'http:',
      hostname,
      port: Number(port),
      path: c.path,
      query: {},
      headers,
      body: c.body,
    },
    { signingDate: NOW },
  );
  return String(signed.headers.authorization);
}

function signingEnvironment(region: string) {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(NOW);
  vi.stubEnv('AWS_ACCESS_KEY_ID', CREDENTIALS.accessKeyId);
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', CREDENTIALS.secretAccessKey);
  vi.stubEnv('AWS_SESSION_TOKEN', CREDENTIALS.sessionToken);
  vi.stubEnv('AWS_REGION', region);
  vi.stubEnv('AWS_ENDPOINT_URL', url);
}

/** A plain item of about `bytes` bytes: strings, numbers, a map, a list, binary. */
function item(bytes: number, i = 0): Record<string, unknown> {
  return {
    pk: `I#idn_${i}`,
    sk: 'M#msg_01',
    type: 'message',
    count: 3,
    ratio: 0.25,
    flags: ['a', 'b'],
    meta: { nested: { deep: true }, empty: '' },
    body: 'x'.repeat(Math.max(0, bytes - 200)),
    raw: new Uint8Array([0, 1, 2, 250]),
  };
}

const TABLE = 'pmail-signing';

/** Each table operation pmail sends, with an input of about `bytes` bytes, and the SDK command for it. */
function operations(bytes: number): { op: DbOperation; input: Record<string, unknown>; sdk: () => object }[] {
  const key = { pk: 'I#idn_0', sk: 'M#msg_01' };
  const put = { TableName: TABLE, Item: item(bytes), ConditionExpression: 'attribute_not_exists(pk)' };
  const update = {
    TableName: TABLE,
    Key: key,
    UpdateExpression: 'SET #b = :b, #c = #c + :one',
    ExpressionAttributeNames: { '#b': 'body', '#c': 'count' },
    ExpressionAttributeValues: { ':b': 'y'.repeat(Math.max(1, bytes - 100)), ':one': 1 },
    ReturnValues: 'ALL_NEW',
  };
  const query = {
    TableName: TABLE,
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :p AND begins_with(gsi1sk, :s)',
    ExpressionAttributeValues: { ':p': `P#${'z'.repeat(Math.min(1000, bytes))}`, ':s': 'M#' },
    ExclusiveStartKey: key,
    Limit: 25,
  };
  const transact = {
    TransactItems: [
      { Put: put },
      { Update: { ...update, ReturnValues: undefined } },
      { Delete: { TableName: TABLE, Key: { pk: 'X', sk: 'Y' } } },
      { ConditionCheck: { TableName: TABLE, Key: key, ConditionExpression: 'attribute_exists(pk)' } },
    ].map((x) => JSON.parse(JSON.stringify(x, (_k, v) => (v instanceof Uint8Array ? undefined : v)))),
    ClientRequestToken: 'a1b2c3d4-0000-4000-8000-000000000001',
  };
  const batch = {
    RequestItems: { [TABLE]: { Keys: [key, { pk: 'I#idn_1', sk: 'M#msg_02' }], ConsistentRead: true } },
  };
  return [
    {
      op: 'GetItem',
      input: { TableName: TABLE, Key: key, ConsistentRead: true },
      sdk: () => new GetCommand({ TableName: TABLE, Key: key, ConsistentRead: true }),
    },
    { op: 'BatchGetItem', input: batch, sdk: () => new BatchGetCommand(batch as never) },
    { op: 'Query', input: query, sdk: () => new QueryCommand(query) },
    { op: 'PutItem', input: put, sdk: () => new PutCommand(put) },
    { op: 'UpdateItem', input: update, sdk: () => new UpdateCommand(update as never) },
    {
      op: 'DeleteItem',
      input: { TableName: TABLE, Key: key, ReturnValues: 'ALL_OLD' },
      sdk: () => new DeleteCommand({ TableName: TABLE, Key: key, ReturnValues: 'ALL_OLD' }),
    },
    { op: 'TransactWriteItems', input: transact, sdk: () => new TransactWriteCommand(transact as never) },
  ];
}

const call: Record<DbOperation, keyof ReturnType<typeof createDb>> = {
  GetItem: 'get',
  BatchGetItem: 'batchGet',
  Query: 'query',
  PutItem: 'put',
  UpdateItem: 'update',
  DeleteItem: 'delete',
  TransactWriteItems: 'transact',
};

describe('the table’s requests (store/dynamodb.ts, @aws-lite/client)', () => {
  for (const region of ['us-east-1', 'eu-west-1'])
    for (const bytes of [64, 10_000, 350_000])
      it(`sign as @smithy/signature-v4 does, and serialise as the AWS SDK does, in ${region} at ${bytes} bytes`, async () => {
        signingEnvironment(region);
        const db = createDb({ table: TABLE, maxAttempts: 1 });
        const sdk = DynamoDBDocumentClient.from(
          new DynamoDBClient({ region, endpoint: url, credentials: CREDENTIALS, maxAttempts: 1 }),
          { marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false } },
        );
        for (const o of operations(bytes)) {
          captured = [];
          await (db[call[o.op]] as (i: object) => Promise<unknown>)(o.input);
          await sdk.send(o.sdk() as never);
          const [lite, aws] = captured;
          expect(lite.headers['x-amz-target'], o.op).toBe(`DynamoDB_20120810.${o.op}`);
          expect(lite.headers['x-amz-security-token']).toBe(CREDENTIALS.sessionToken);
          expect(lite.headers.authorization, o.op).toBe(await smithyAuthorization(lite, 'dynamodb', region));
          expect(lite.headers.authorization).toContain(`/${region}/dynamodb/aws4_request`);
          expect(
            {
              target: lite.headers['x-amz-target'],
              type: lite.headers['content-type'],
              path: lite.path,
              method: lite.method,
            },
            o.op,
          ).toEqual({
            target: aws.headers['x-amz-target'],
            type: aws.headers['content-type'],
            path: aws.path,
            method: aws.method,
          });
          expect(JSON.parse(lite.body), o.op).toEqual(JSON.parse(aws.body));
          expect(Number(lite.headers['content-length'])).toBe(Buffer.byteLength(lite.body));
        }
        db.destroy();
        sdk.destroy();
      });
});

describe('the keys secret’s GetSecretValue (adapters/secrets.ts, @aws-lite/client)', () => {
  for (const region of ['us-east-1', 'eu-west-1'])
    for (const id of [
      'pmail/keys',
      `arn:aws:secretsmanager:${region}:123456789012:secret:${'k'.repeat(400)}-AbCdEf`,
    ])
      it(`signs as @smithy/signature-v4 does and serialises as the AWS SDK does, in ${region}, id of ${id.length} characters`, async () => {
        signingEnvironment(region);
        await readSecretString(id);
        const sdk = new SecretsManagerClient({
          region,
          endpoint: url,
          credentials: CREDENTIALS,
          maxAttempts: 1,
        });
        await sdk.send(new GetSecretValueCommand({ SecretId: id }));
        sdk.destroy();
        const [lite, aws] = captured;
        expect(lite.headers.authorization).toBe(await smithyAuthorization(lite, 'secretsmanager', region));
        expect(lite.headers['x-amz-security-token']).toBe(CREDENTIALS.sessionToken);
        expect([lite.headers['x-amz-target'], lite.headers['content-type']]).toEqual([
          aws.headers['x-amz-target'],
          aws.headers['content-type'],
        ]);
        expect(JSON.parse(lite.body)).toEqual(JSON.parse(aws.body));
      });
});
