import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { AbuseMetrics } from '../core/abuse.ts';
import { type Db, isConditionFailed } from './db.ts';
import { changeIdentityStatus } from './identity-status.store.ts';

/**
 * The per-identity outcome window of abuse auto-pause (DESIGN § 4: `I#{idn}` / `OW`): one compact
 * item, updated read–modify–write under a version check (the seed's TenantQuota.outcomes).
 */
const windowKey = (identityId: string) => ({ pk: `I#${identityId}`, sk: 'OW' });

export async function updateOutcomeWindow(
  db: Db,
  identityId: string,
  /** The window after this outcome, or undefined to leave it unwritten (core/abuse.ts › outcomeMatters). */
  next: (window: string) => string | undefined,
  now: number,
): Promise<string> {
  for (let i = 0; i < 8; i++) {
    const out = await db.doc.send(
      new GetCommand({ TableName: db.table, Key: windowKey(identityId), ConsistentRead: true }),
    );
    const version = (out.Item?.version as number | undefined) ?? 0;
    const current = (out.Item?.outcomes as string | undefined) ?? '';
    const window = next(current);
    if (window === undefined) return current;
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
export function autoPauseIdentity(
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
  return changeIdentityStatus(db, {
    tenantId: args.tenantId,
    identityId: args.identityId,
    from: 'active',
    to: 'paused',
    reason: 'abuse_threshold',
    now: args.now,
    event: {
      id: args.eventId,
      type: 'identity.paused',
      data: { identity_id: args.identityId, reason: 'abuse_threshold', metrics: args.metrics },
    },
    audit: {
      id: args.auditId,
      action: 'identity.auto_pause',
      actor: 'system',
      details: { reason: 'abuse_threshold', metrics: args.metrics },
    },
  });
}
