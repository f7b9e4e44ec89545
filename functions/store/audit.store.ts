import type { Db } from './db.ts';

/** The tenant's audit log (DESIGN § 4: `T#{ten}` / `AU#{ulid}`): who did what to which message. */
export interface AuditEntry {
  id: string;
  tenant_id: string;
  action: string;
  actor: string;
  message_id: string;
  details: Record<string, unknown>;
  at: number;
}

export function auditPutItem(db: Db, e: AuditEntry) {
  return {
    Put: {
      TableName: db.table,
      Item: { pk: `T#${e.tenant_id}`, sk: `AU#${e.id}`, type: 'audit', ...e },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}
