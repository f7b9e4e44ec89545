import {
  CreateTableCommand,
  DescribeTableCommand,
  ResourceNotFoundException,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import type { Db } from '../store/db.ts';

/** The table of DESIGN § 4, as lib/data.ts declares it for AWS: pk/sk, TTL `ttl`, sparse GSI gsi1. */
export async function ensureTable(db: Db): Promise<void> {
  try {
    await db.doc.send(new DescribeTableCommand({ TableName: db.table }));
    return;
  } catch (err) {
    if (!(err instanceof ResourceNotFoundException) && (err as Error).name !== 'ResourceNotFoundException')
      throw err;
  }
  await db.doc.send(
    new CreateTableCommand({
      TableName: db.table,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [
        { AttributeName: 'pk', AttributeType: 'S' },
        { AttributeName: 'sk', AttributeType: 'S' },
        { AttributeName: 'gsi1pk', AttributeType: 'S' },
        { AttributeName: 'gsi1sk', AttributeType: 'S' },
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
      ],
    }),
  );
  await db.doc.send(
    new UpdateTimeToLiveCommand({
      TableName: db.table,
      TimeToLiveSpecification: { AttributeName: 'ttl', Enabled: true },
    }),
  );
}
