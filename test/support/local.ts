import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateTableCommand, DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, inject } from 'vitest';
import type { ApiEvent } from '../../functions/api/http.ts';
import { matchRoute } from '../../functions/api/http.ts';
import type { MessageRecord } from '../../functions/core/model.ts';
import { startDynamoDbLocal } from '../../functions/local/dynamodb-local.ts';
import {
  createLocalRuntime,
  type LocalRuntime,
  type LocalRuntimeOptions,
} from '../../functions/local/runtime.ts';
import { type SeededTenant, seedTestTenant } from '../../functions/local/seed.ts';
import { adminClient, type TableAt } from '../../functions/local/table.ts';
import { silentLogger } from '../../functions/log.ts';
import { createDb, type DynamoDb } from '../../functions/store/dynamodb.ts';
import { getMessage, listMessages, mutateMessage } from '../../functions/store/messages.store.ts';

export interface TestStack extends LocalRuntime, SeededTenant {
  stateDir: string;
  agent: SeededTenant['identities'][number];
  peer: SeededTenant['identities'][number];
  call(
    method: string,
    path: string,
    opts?: CallOptions,
  ): Promise<{ status: number; headers: Record<string, string>; body: any }>;
  send(body: unknown, key?: string, opts?: CallOptions): ReturnType<TestStack['call']>;
  message(identityId: string, messageId: string): Promise<MessageRecord | undefined>;
  mailbox(identityId: string, direction: 'inbound' | 'outbound'): Promise<MessageRecord[]>;
  /** Poll `check` with back-off until it returns a value, or fail after `timeoutMs`. */
  eventually<T>(check: () => Promise<T | undefined | false>, timeoutMs?: number): Promise<T>;
}

export interface CallOptions {
  key?: string;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
  query?: Record<string, string>;
}

/** A table of the test's own on the shared DynamoDB Local (created by the first stack that names it). */
export const ownTable = (what = 'own'): string => `pmail-${what}-${randomBytes(4).toString('hex')}`;

/**
 * A local runtime on the shared DynamoDB Local with a fresh test tenant (agent, peer). Queue delays
 * and visibility timeouts run at 1/100 of real time so NotFound retries take milliseconds.
 */
export async function testStack(
  opts: Partial<LocalRuntimeOptions> & { seed?: Parameters<typeof seedTestTenant>[1] } = {},
): Promise<TestStack> {
  const stateDir = mkdtempSync(join(tmpdir(), 'pmail-test-'));
  // A stack that reads the table's stream gets a table of its own: on the shared one it would
  // also fan out the outbox events of test files running beside it.
  const table = opts.table ?? (opts.webhooks ? ownTable('wh') : undefined);
  const runtime = await createLocalRuntime({
    endpoint: inject('dynamoEndpoint'),
    stateDir,
    log: silentLogger,
    queueSecondsToMs: 10,
    ...opts,
    ...(table ? { table } : {}),
  });
  const seeded = await seedTestTenant(runtime.deps, opts.seed);
  const call: TestStack['call'] = async (method, path, o = {}) => {
    const headers: Record<string, string> = { 'content-type': 'application/json', ...(o.headers ?? {}) };
    if (o.key !== undefined || seeded.apiKey) headers.authorization = `Bearer ${o.key ?? seeded.apiKey}`;
    const event = {
      version: '2.0',
      routeKey: '$default',
      rawPath: path,
      rawQueryString: new URLSearchParams(o.query ?? {}).toString(),
      headers,
      queryStringParameters: o.query,
      requestContext: { http: { method, path } },
      body: o.rawBody ?? (o.body === undefined ? undefined : JSON.stringify(o.body)),
      isBase64Encoded: false,
    } as unknown as ApiEvent;
    const { route } = matchRoute(method, path);
    const res = await runtime.groups[route.group](event);
    return {
      status: res.statusCode ?? 200,
      headers: res.headers,
      body: res.body ? JSON.parse(res.body) : undefined,
    };
  };
  const [agent, peer] = seeded.identities;
  const stack: TestStack = {
    ...runtime,
    // The sweeper reads the whole table: on the shared one it would settle other files' messages
    // (a claim it finds dead under this stack's clock, a dispatch it finds lost).
    sweep: table
      ? runtime.sweep
      : () =>
          Promise.reject(
            new Error('sweep() needs a stack with a table of its own: testStack({ table: ownTable() })'),
          ),
    stateDir,
    ...seeded,
    agent,
    peer,
    call,
    send: (body, key = `k-${Math.random()}`, o = {}) =>
      call('POST', `/v1/identities/${agent.id}/messages`, {
        ...o,
        body,
        headers: { 'idempotency-key': key, ...(o.headers ?? {}) },
      }),
    message: (identityId, messageId) => getMessage(runtime.deps.db, identityId, messageId, true),
    mailbox: async (identityId, direction) =>
      (await listMessages(runtime.deps.db, identityId, { direction, limit: 100 })).data,
    eventually: async (check, timeoutMs = 10_000) => {
      const deadline = Date.now() + timeoutMs;
      let wait = 5;
      for (;;) {
        const v = await check();
        if (v !== undefined && v !== false) return v as never;
        if (Date.now() > deadline) throw new Error('condition not met in time');
        await new Promise((r) => setTimeout(r, wait));
        wait = Math.min(wait * 2, 200);
      }
    },
  };
  return stack;
}

/**
 * A GET whose answer is bytes (an attachment, a raw message), through its route group's handler
 * with the stack's key: the status, the headers and the body decoded from the API's base64.
 */
export async function getBytes(s: TestStack, path: string) {
  const { route } = matchRoute('GET', path);
  const res = await s.groups[route.group]({
    version: '2.0',
    routeKey: '$default',
    rawPath: path,
    rawQueryString: '',
    headers: { authorization: `Bearer ${s.apiKey}` },
    requestContext: { http: { method: 'GET', path } },
    isBase64Encoded: false,
  } as unknown as ApiEvent);
  const body = res.isBase64Encoded ? Buffer.from(res.body ?? '', 'base64') : Buffer.from(res.body ?? '');
  return { status: res.statusCode, headers: res.headers ?? {}, body };
}

/**
 * A message as a live provider's send leaves it: submitted, every delivery submitted, the
 * provider's message id recorded (what Record writes when the provider accepts). The recipients
 * are simulator `timeout` addresses, which produce no simulator events of their own.
 */
export async function submittedVia(
  s: TestStack,
  provider: 'ses' | 'cloudflare',
  opts: { to: string[]; subject: string; providerMessageId: (messageUlid: string) => string },
): Promise<{ id: string; providerMessageId: string }> {
  const res = await s.send({ to: opts.to, subject: opts.subject, text: 'body' });
  if (res.status !== 202) throw new Error(`send answered ${res.status}`);
  await s.settle();
  const providerMessageId = opts.providerMessageId(res.body.id.slice(4));
  await mutateMessage(s.deps.db, s.agent.id, res.body.id, (m) => ({
    next: {
      ...m,
      status: 'submitted',
      provider,
      provider_message_id: providerMessageId,
      status_reason: undefined,
      deliveries: m.deliveries!.map((d) => ({ ...d, status: 'submitted' as const })),
    },
    result: undefined,
  }));
  // The timeout script announced message.uncertain; a live send that was accepted would not have.
  const events = await s.deps.db.query({
    TableName: s.deps.db.table,
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :e)',
    ExpressionAttributeValues: { ':pk': `T#${s.tenantId}`, ':e': 'E#' },
  });
  for (const e of events.Items ?? []) {
    if (e.event.type === 'message.uncertain' && e.event.data.message_id === res.body.id)
      await s.deps.db.delete({ TableName: s.deps.db.table, Key: { pk: e.pk, sk: e.sk } });
  }
  return { id: res.body.id as string, providerMessageId };
}

/**
 * `stack()` for a test file: a fresh testStack per call (simulator events without delay, unless
 * `opts` says otherwise), all settled and closed after the file.
 */
export function stackPerTest(
  each: { ownTable?: boolean } = {},
): (opts?: Parameters<typeof testStack>[0]) => Promise<TestStack> {
  const stacks: TestStack[] = [];
  afterAll(async () => {
    for (const s of stacks) {
      await s.settle();
      await s.close();
    }
  });
  return async (opts = {}) => {
    const s = await testStack({
      ...(each.ownTable ? { table: ownTable('sweeps') } : {}),
      ...opts,
      config: { simEventDelaySeconds: 0, ...opts.config },
    });
    stacks.push(s);
    return s;
  };
}

/** A table as an older pmail created it: keys only, no indexes, no stream, no TTL. */
/**
 * A DynamoDB Local of the test's own (in memory), for tests that change a table's shape (add an
 * index, enable a stream): an index build queues behind every other file's requests on the shared
 * instance, and took minutes there on a loaded 2-core machine. Stopped after `fn`.
 */
export async function withOwnDynamoDb<T>(fn: (db: DynamoDb, endpoint: string) => Promise<T>): Promise<T> {
  const local = await startDynamoDbLocal();
  try {
    return await fn(
      createDb({ table: `own-${Date.now().toString(36)}`, endpoint: local.endpoint }),
      local.endpoint,
    );
  } finally {
    await local.stop();
  }
}

/** The table's description as DynamoDB Local gives it. */
export async function describeTable(at: TableAt) {
  const admin = adminClient(at);
  try {
    return await admin.send(new DescribeTableCommand({ TableName: at.table }));
  } finally {
    admin.destroy();
  }
}

export async function createOldTable(at: TableAt): Promise<void> {
  const admin = adminClient(at);
  await admin.send(
    new CreateTableCommand({
      TableName: at.table,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [
        { AttributeName: 'pk', AttributeType: 'S' },
        { AttributeName: 'sk', AttributeType: 'S' },
      ],
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
    }),
  );
  admin.destroy();
}

/** The items of the test tenant's partition whose sort key starts with `prefix` (E#, AU#, S#…). */
export async function tenantItems(s: TestStack, prefix: string): Promise<Record<string, any>[]> {
  const out = await s.deps.db.query({
    TableName: s.deps.db.table,
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
    ExpressionAttributeValues: { ':pk': `T#${s.tenantId}`, ':p': prefix },
  });
  return out.Items ?? [];
}
