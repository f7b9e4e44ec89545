import type { Db } from './db.ts';

/**
 * The tenant's audit log (`T#{ten}` / `AU#{ulid}`, docs/architecture.md › Items and their keys): who
 * did what to which message.
 */
export interface AuditEntry {
  id: string;
  tenant_id: string;
  action: string;
  actor: string;
  message_id: string;
  details: Record<string, unknown>;
  at: number;
}

/**
 * The audit item of a message action, a create inside the action's transaction: the SDK resends it
 * with its ClientRequestToken after a lost answer (docs/lost-answers.md › transaction), so the action
 * is audited once.
 */
export function auditPutItem(db: Db, e: AuditEntry) {
  return {
    Put: {
      TableName: db.table,
      Item: { pk: `T#${e.tenant_id}`, sk: `AU#${e.id}`, type: 'audit', ...e },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}
