import {
  CreateTableCommand,
  type CreateTableCommandInput,
  DescribeTableCommand,
  DynamoDBClient,
  ResourceNotFoundException,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';

/** The table as lib/data.ts declares it for AWS: pk/sk, TTL `ttl`, sparse GSIs gsi1 and gsi2. */
const TABLE = (name: string): CreateTableCommandInput => ({
  TableName: name,
  BillingMode: 'PAY_PER_REQUEST',
  AttributeDefinitions: [
    { AttributeName: 'pk', AttributeType: 'S' },
    { AttributeName: 'sk', AttributeType: 'S' },
    { AttributeName: 'gsi1pk', AttributeType: 'S' },
    { AttributeName: 'gsi1sk', AttributeType: 'S' },
    { AttributeName: 'gsi2pk', AttributeType: 'S' },
    { AttributeName: 'gsi2sk', AttributeType: 'S' },
  ],
  KeySchema: [
    { AttributeName: 'pk', KeyType: 'HASH' },
    { AttributeName: 'sk', KeyType: 'RANGE' },
  ],
  GlobalSecondaryIndexes: [
    {
      IndexName: 'gsi1',
      KeySchema: [
        { AttributeName: 'gsi1pk', KeyType: 'HASH' },
        { AttributeName: 'gsi1sk', KeyType: 'RANGE' },
      ],
      Projection: { ProjectionType: 'KEYS_ONLY' },
    },
    GSI2,
  ],
  StreamSpecification: STREAM,
});

/** The table's stream (lib/data.ts): outbox inserts feed the webhook fan-out. */
const STREAM = { StreamEnabled: true, StreamViewType: 'NEW_IMAGE' as const };

/** Sparse GSI: uncertain messages by identity (reconciliation). */
const GSI2 = {
  IndexName: 'gsi2',
  KeySchema: [
    { AttributeName: 'gsi2pk', KeyType: 'HASH' as const },
    { AttributeName: 'gsi2sk', KeyType: 'RANGE' as const },
  ],
  Projection: { ProjectionType: 'KEYS_ONLY' as const },
};

/** Where a table is: its name and DynamoDB Local's address (store/dynamodb.ts › DynamoDb has both). */
export interface TableAt {
  table: string;
  endpoint?: string;
  region?: string;
}

/** The AWS SDK's client for the table's own operations (create, describe, update), which the table port does not carry. */
export function adminClient(at: TableAt, maxAttempts?: number): DynamoDBClient {
  return new DynamoDBClient({
    maxAttempts,
    region: at.region ?? 'us-east-1',
    endpoint: at.endpoint,
    ...(at.endpoint ? { credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {}),
  });
}

type Admin = { client: DynamoDBClient; table: string };

export async function ensureTable(at: TableAt): Promise<void> {
  const db: Admin = { client: adminClient(at), table: at.table };
  try {
    await ensureWith(db);
  } finally {
    db.client.destroy();
  }
}

async function ensureWith(db: Admin): Promise<void> {
  try {
    const out = await db.client.send(new DescribeTableCommand({ TableName: db.table }));
    await addMissingIndexes(db, out.Table?.GlobalSecondaryIndexes?.map((i) => i.IndexName ?? '') ?? []);
    if (!out.Table?.StreamSpecification?.StreamEnabled) await enableStream(db);
    return;
  } catch (err) {
    if (!(err instanceof ResourceNotFoundException) && (err as Error).name !== 'ResourceNotFoundException')
      throw err;
  }
  try {
    await db.client.send(new CreateTableCommand(TABLE(db.table)));
  } catch (err) {
    // Another process created it first (test files start in parallel): wait until it is usable.
    if ((err as Error).name !== 'ResourceInUseException') throw err;
    for (let i = 0; i < 100; i++) {
      const out = await db.client.send(new DescribeTableCommand({ TableName: db.table }));
      if (out.Table?.TableStatus === 'ACTIVE') return;
      await new Promise((r) => setTimeout(r, 50));
    }
    return;
  }
  await db.client.send(
    new UpdateTimeToLiveCommand({
      TableName: db.table,
      TimeToLiveSpecification: { AttributeName: 'ttl', Enabled: true },
    }),
  );
}

/** A table kept in `.pmail/` from an older version gets the indexes added since (gsi2: the sweeper). */
async function addMissingIndexes(db: Admin, present: string[]): Promise<void> {
  const spec = TABLE(db.table);
  for (const index of spec.GlobalSecondaryIndexes ?? []) {
    if (present.includes(index.IndexName!)) continue;
    const names = index.KeySchema!.map((k) => k.AttributeName);
    const create = new UpdateTableCommand({
      TableName: db.table,
      AttributeDefinitions: spec.AttributeDefinitions!.filter((a) => names.includes(a.AttributeName)),
      GlobalSecondaryIndexUpdates: [
        { Create: { IndexName: index.IndexName, KeySchema: index.KeySchema, Projection: index.Projection } },
      ],
    });
    // DynamoDB (Local too) builds one new index at a time, and a loaded DynamoDB Local can take
    // tens of seconds: wait for each (by time, not by a count of polls) before asking for the next,
    // and ask again while the previous build still holds the table.
    const deadline = Date.now() + INDEX_BUILD_WAIT_MS;
    for (;;) {
      try {
        await db.client.send(create);
        break;
      } catch (err) {
        if ((err as Error).name !== 'LimitExceededException' || Date.now() > deadline) throw err;
        await new Promise((r) => setTimeout(r, 200));
      }
    }
    while (Date.now() < deadline) {
      const out = await db.client.send(new DescribeTableCommand({ TableName: db.table }));
      const built = out.Table?.GlobalSecondaryIndexes?.find((g) => g.IndexName === index.IndexName);
      if (built?.IndexStatus === 'ACTIVE') break;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/** How long adding one index to a kept table may take before start-up gives up. */
const INDEX_BUILD_WAIT_MS = 180_000;

/**
 * A table kept from a version before webhooks gains its stream. The update is refused while the
 * table is still updating (an index just added), so it is retried until the table is active.
 */
async function enableStream(db: Admin): Promise<void> {
  for (let i = 0; ; i++) {
    try {
      await db.client.send(new UpdateTableCommand({ TableName: db.table, StreamSpecification: STREAM }));
      return;
    } catch (err) {
      const now = await db.client.send(new DescribeTableCommand({ TableName: db.table }));
      // Another process enabled it first.
      if (now.Table?.StreamSpecification?.StreamEnabled) return;
      if (i >= 100) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}
