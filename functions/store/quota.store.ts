import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Db } from './db.ts';
import { conditionally } from './db.ts';
import { ttlOf } from './idempotency.store.ts';

/**
 * Daily send counters (DESIGN § 8 step 18). One item per tenant and local day holds the tenant's
 * total and each identity's count, so a send updates one item (not two) inside the submit
 * transaction, conditioned on both caps: both counts or neither are kept, and a cancelled
 * transaction (lock, conflict) releases them with everything else.
 */
const key = (tenantId: string, day: string) => ({ pk: `T#${tenantId}`, sk: `Q#${day}` });
const identityAttr = (identityId: string) => `i_${identityId}`;

export async function readDailyCounts(
  db: Db,
  tenantId: string,
  identityId: string,
  day: string,
): Promise<{ tenant: number; identity: number }> {
  const out = await db.doc.send(
    new GetCommand({ TableName: db.table, Key: key(tenantId, day), ConsistentRead: true }),
  );
  return {
    tenant: (out.Item?.sends as number) ?? 0,
    identity: (out.Item?.[identityAttr(identityId)] as number) ?? 0,
  };
}

/** The transaction item that counts one send, on condition that both caps still hold. */
export function countSendItem(
  db: Db,
  args: {
    tenantId: string;
    identityId: string;
    day: string;
    tenantCap: number;
    identityCap: number;
    expiresAt: number;
  },
) {
  return {
    Update: {
      TableName: db.table,
      Key: key(args.tenantId, args.day),
      UpdateExpression: 'ADD sends :one, #idn :one SET #type = :type, #ttl = :ttl',
      ConditionExpression:
        '(attribute_not_exists(sends) OR sends < :tcap) AND (attribute_not_exists(#idn) OR #idn < :icap)',
      ExpressionAttributeNames: { '#idn': identityAttr(args.identityId), '#type': 'type', '#ttl': 'ttl' },
      ExpressionAttributeValues: {
        ':one': 1,
        ':tcap': args.tenantCap,
        ':icap': args.identityCap,
        ':type': 'daily_counter',
        ':ttl': ttlOf(args.expiresAt),
      },
    },
  };
}

/** Once per scope, metric, threshold and day: true the first time only (quota.warning). */
export async function markWarned(
  db: Db,
  args: { tenantId: string; day: string; scope: string; threshold: number; expiresAt: number },
): Promise<boolean> {
  return conditionally(
    db.doc.send(
      new PutCommand({
        TableName: db.table,
        Item: {
          pk: `T#${args.tenantId}`,
          sk: `Q#${args.day}#warned#${args.scope}#${args.threshold}`,
          type: 'quota_warning_mark',
          ttl: ttlOf(args.expiresAt),
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    ),
  );
}

/** Give back one counted send of `day` (a canceled message: seed 000 › Cancel releases the day's count). */
export function releaseSendItem(db: Db, args: { tenantId: string; identityId: string; day: string }) {
  return {
    Update: {
      TableName: db.table,
      Key: key(args.tenantId, args.day),
      UpdateExpression: 'ADD sends :minus, #idn :minus',
      ConditionExpression: 'sends > :zero AND #idn > :zero',
      ExpressionAttributeNames: { '#idn': identityAttr(args.identityId) },
      ExpressionAttributeValues: { ':minus': -1, ':zero': 0 },
    },
  };
}
