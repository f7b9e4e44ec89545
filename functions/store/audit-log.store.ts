import type { Db } from './db.ts';

/**
 * The audit log (`T#{ten}` / `AU#{ulid}`, docs/architecture.md › Items and their keys): who did what
 * to which key, tenant, identity or message. Changes that concern no tenant (platform keys, the
 * bootstrap) go to the `PLATFORM` partition. Each change writes its item in the same transaction as
 * the change.
 */
export const PLATFORM_PK = 'PLATFORM';

/** One audit item: a control-plane change (its target) or a message action (its message). */
export type AuditRecord = {
  id: string;
  action: string;
  /** key_id of the calling key (or the sender of a message action), or `bootstrap` / `local-seed`. */
  actor: string;
  details: Record<string, unknown>;
} & (
  | {
      tenant_id?: string;
      target_type: 'api_key' | 'tenant' | 'identity' | 'message';
      target_id: string;
      request_id?: string;
      created_at: number;
    }
  /** A message action (cancel, resolve, retry), written beside the message's own write. */
  | { tenant_id: string; message_id: string; at: number }
);

/**
 * The audit item of one change, a create inside the change's own transaction: the table's client resends that
 * transaction with its ClientRequestToken after a lost answer (docs/lost-answers.md › transaction),
 * so the change is audited once.
 */
export function auditPut(db: Db, a: AuditRecord) {
  return {
    Put: {
      TableName: db.table,
      Item: { pk: a.tenant_id ? `T#${a.tenant_id}` : PLATFORM_PK, sk: `AU#${a.id}`, type: 'audit', ...a },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

/** Raw audit items of one partition, newest first; `before` is the id of the last item seen. */
export async function listAuditItems(
  db: Db,
  tenantId: string | undefined,
  opts: { limit: number; before?: string; action?: string; actor?: string; targetId?: string },
): Promise<{ items: Record<string, unknown>[]; next?: string }> {
  const filters: string[] = [];
  const values: Record<string, unknown> = {
    ':pk': tenantId ? `T#${tenantId}` : PLATFORM_PK,
    ':lo': 'AU#',
    ':hi': opts.before ? `AU#${opts.before}` : 'AU$',
  };
  const names: Record<string, string> = {};
  if (opts.action) {
    filters.push('#action = :action');
    names['#action'] = 'action';
    values[':action'] = opts.action;
  }
  if (opts.actor) {
    filters.push('actor = :actor');
    values[':actor'] = opts.actor;
  }
  if (opts.targetId) {
    filters.push('(target_id = :t OR identity_id = :t OR message_id = :t)');
    values[':t'] = opts.targetId;
  }
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  // Filters apply after the read: keep reading pages until the page is full or the partition ends.
  do {
    const out = await db.query({
      TableName: db.table,
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :lo AND :hi',
      ExpressionAttributeValues: values,
      ...(Object.keys(names).length ? { ExpressionAttributeNames: names } : {}),
      ...(filters.length ? { FilterExpression: filters.join(' AND ') } : {}),
      ScanIndexForward: false,
      Limit: opts.limit + 1,
      ExclusiveStartKey: start,
    });
    for (const item of out.Items ?? []) if (item.sk !== values[':hi']) items.push(item);
    start = out.LastEvaluatedKey;
  } while (start && items.length <= opts.limit);
  const page = items.slice(0, opts.limit);
  return {
    items: page,
    next: items.length > opts.limit ? String(page[page.length - 1].sk).slice(3) : undefined,
  };
}
