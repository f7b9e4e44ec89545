import { GetCommand, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { AbuseMetrics } from '../core/abuse.ts';
import { type Db, isConditionFailed, isTransactionCanceled } from './db.ts';
import type { OutboxEvent } from './events.store.ts';
import { eventPutItem } from './events.store.ts';
import { keys } from './keys.ts';

/**
 * The per-identity outcome window of abuse auto-pause (DESIGN § 4: `I#{idn}` / `OW`): one compact
 * item, updated read–modify–write under a version check (the seed's TenantQuota.outcomes).
 */
const windowKey = (identityId: string) => ({ pk: `I#${identityId}`, sk: 'OW' });

export async function updateOutcomeWindow(
  db: Db,
  identityId: string,
  next: (window: string) => string,
  now: number,
): Promise<string> {
  for (let i = 0; i < 8; i++) {
    const out = await db.doc.send(
      new GetCommand({ TableName: db.table, Key: windowKey(identityId), ConsistentRead: true }),
    );
    const version = (out.Item?.version as number | undefined) ?? 0;
    const window = next((out.Item?.outcomes as string | undefined) ?? '');
    try {
      await db.doc.send(
        new PutCommand({
          TableName: db.table,
          Item: {
            ...windowKey(identityId),
            type: 'outcome_window',
            outcomes: window,
            version: version + 1,
            updated_at: now,
          },
          ConditionExpression: version === 0 ? 'attribute_not_exists(pk)' : 'version = :v',
          ...(version === 0 ? {} : { ExpressionAttributeValues: { ':v': version } }),
        }),
      );
      return window;
    } catch (err) {
      if (!isConditionFailed(err)) throw err;
    }
  }
  throw new Error('the outcome window kept changing');
}

/**
 * seed 000 › Abuse auto-pause: `status = paused` (pause_reason abuse_threshold) only from active,
 * and only then the identity.paused event and the audit entry — all three in one transaction.
 * Returns whether this call paused the identity.
 */
export async function autoPauseIdentity(
  db: Db,
  args: {
    tenantId: string;
    identityId: string;
    now: number;
    eventId: string;
    auditId: string;
    metrics: AbuseMetrics;
  },
): Promise<boolean> {
  const event: OutboxEvent = {
    id: args.eventId,
    type: 'identity.paused',
    tenant_id: args.tenantId,
    created_at: args.now,
    data: { identity_id: args.identityId, reason: 'abuse_threshold', metrics: args.metrics },
  };
  try {
    await db.doc.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: db.table,
              Key: keys.identity(args.identityId),
              UpdateExpression: 'SET #status = :paused, pause_reason = :reason, updated_at = :now',
              ConditionExpression: '#status = :active',
              ExpressionAttributeNames: { '#status': 'status' },
              ExpressionAttributeValues: {
                ':paused': 'paused',
                ':active': 'active',
                ':reason': 'abuse_threshold',
                ':now': args.now,
              },
            },
          },
          eventPutItem(db, event),
          {
            Put: {
              TableName: db.table,
              Item: {
                pk: `T#${args.tenantId}`,
                sk: `AU#${args.auditId}`,
                type: 'audit',
                action: 'identity.auto_pause',
                actor: 'system',
                identity_id: args.identityId,
                created_at: args.now,
                details: { reason: 'abuse_threshold', metrics: args.metrics },
              },
            },
          },
        ],
      }),
    );
    return true;
  } catch (err) {
    if (isTransactionCanceled(err) && err.CancellationReasons?.[0]?.Code === 'ConditionalCheckFailed')
      return false;
    throw err;
  }
}
