import { type Db, transactGuarded } from './db.ts';
import { eventPutItem, type OutboxEvent } from './events.store.ts';
import { transactAt } from './feed.store.ts';
import { keys } from './table-keys.ts';

/**
 * One identity status change (pause or resume), with its event and audit entry, in one
 * transaction conditioned on the status it changes from: two concurrent changes cannot both
 * emit, and a change that found the identity elsewhere writes nothing (an identity is paused
 * only from active, and an event is emitted only when the status changed).
 *
 * A transaction (docs/lost-answers.md): when its answer is lost the table's client resends it under its
 * ClientRequestToken and DynamoDB answers the resend as the first send, so a change is never
 * refused by its own new status, and a resend after another writer's change does not apply again.
 */
export interface IdentityStatusChange {
  tenantId: string;
  identityId: string;
  from: 'active' | 'paused';
  to: 'active' | 'paused';
  /** pause_reason to set when pausing; resuming removes it. */
  reason?: string;
  now: number;
  event: Omit<OutboxEvent, 'tenant_id' | 'created_at'>;
  audit: { id: string; action: string; actor: string; details: Record<string, unknown> };
}

/** Whether this call changed the status (false: the identity was not in `from`). */
export async function changeIdentityStatus(db: Db, c: IdentityStatusChange): Promise<boolean> {
  const pausing = c.to === 'paused';
  return transactGuarded(
    db,
    [
      {
        Update: {
          TableName: db.table,
          Key: keys.identity(c.identityId),
          UpdateExpression: pausing
            ? 'SET #status = :to, pause_reason = :reason, updated_at = :now'
            : 'SET #status = :to, updated_at = :now REMOVE pause_reason',
          ConditionExpression: '#status = :from',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':to': c.to,
            ':from': c.from,
            ':now': c.now,
            ...(pausing ? { ':reason': c.reason ?? 'manual' } : {}),
          },
        },
      },
      eventPutItem(db, { ...c.event, tenant_id: c.tenantId, created_at: c.now }, c.now),
      {
        Put: {
          TableName: db.table,
          Item: {
            pk: `T#${c.tenantId}`,
            sk: `AU#${c.audit.id}`,
            type: 'audit',
            action: c.audit.action,
            actor: c.audit.actor,
            identity_id: c.identityId,
            created_at: c.now,
            details: c.audit.details,
          },
        },
      },
    ],
    (items) => transactAt(db, items),
  );
}
