import type { TemplateRecord, TemplateSource } from '../core/templates.ts';
import {
  countUnderLimit,
  type Db,
  deleteCounted,
  failedConditions,
  isTransactionCanceled,
  queryPrefix,
} from './db.ts';

/**
 * Templates in their tenant's partition:
 *   - `T#{ten}` / `TPL#{name}`: the current version (what a send renders);
 *   - `T#{ten}` / `TPLV#{name}#{version, 6 digits}`: every version ever saved, kept so a message's
 *     recorded version can be read again, and so a name deleted and created again keeps counting
 *     versions up instead of reusing one;
 *   - `T#{ten}` / `TPLN`: the tenant's template count, written in the same transaction as a create
 *     or a delete, so MAX_TEMPLATES_PER_TENANT holds under concurrent creates.
 * The variables schema is stored as one JSON string: any schema Ajv accepted reads back unchanged.
 */
const HEAD = 'TPL#';
const VERSION = 'TPLV#';
const headKey = (tenantId: string, name: string) => ({ pk: `T#${tenantId}`, sk: `${HEAD}${name}` });
const versionKey = (tenantId: string, name: string, version: number) => ({
  pk: `T#${tenantId}`,
  sk: `${VERSION}${name}#${String(version).padStart(6, '0')}`,
});
const countKey = (tenantId: string) => ({ pk: `T#${tenantId}`, sk: 'TPLN' });

function toItem(t: TemplateRecord) {
  const { variables_schema, ...rest } = t;
  return { ...rest, variables_schema_json: JSON.stringify(variables_schema) };
}

function fromItem(item: Record<string, unknown>): TemplateRecord {
  const { pk: _pk, sk: _sk, type: _type, variables_schema_json, ...rest } = item;
  return {
    ...(rest as unknown as Omit<TemplateRecord, 'variables_schema'>),
    variables_schema: JSON.parse(String(variables_schema_json)),
  };
}

/** The highest version ever saved under this name (0: none). */
async function lastVersion(db: Db, tenantId: string, name: string): Promise<number> {
  const out = await db.query({
    TableName: db.table,
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :sk)',
    ExpressionAttributeValues: { ':pk': `T#${tenantId}`, ':sk': `${VERSION}${name}#` },
    ScanIndexForward: false,
    Limit: 1,
    ConsistentRead: true,
  });
  return (out.Items?.[0]?.version as number | undefined) ?? 0;
}

/**
 * Create the template (its first version, or the one after the last of a deleted template of the
 * same name) unless the name is taken or the tenant has `limit` templates. Nothing is written then.
 * A transaction (docs/lost-answers.md): when its answer is lost the table's client resends it under its
 * ClientRequestToken and DynamoDB answers the resend as the first send, so a create is never
 * refused by its own head (`template_exists`) nor counted twice.
 */
export async function createTemplate(
  db: Db,
  t: Omit<TemplateRecord, 'version'>,
  limit: number,
): Promise<{ created: TemplateRecord } | { refused: 'exists' | 'limit_reached' }> {
  const version = (await lastVersion(db, t.tenant_id, t.name)) + 1;
  const record: TemplateRecord = { ...t, version };
  try {
    await db.transact({
      TransactItems: [
        {
          Put: {
            TableName: db.table,
            Item: { ...headKey(t.tenant_id, t.name), type: 'template', ...toItem(record) },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        countUnderLimit(db, countKey(t.tenant_id), limit, 'template_count'),
        {
          Put: {
            TableName: db.table,
            Item: {
              ...versionKey(t.tenant_id, t.name, version),
              type: 'template_version',
              ...toItem(record),
            },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
      ],
    });
    return { created: record };
  } catch (err) {
    const failed = failedConditions(err, ['head', 'count', 'version'] as const);
    if (failed.has('head') || failed.has('version')) return { refused: 'exists' };
    if (failed.has('count')) return { refused: 'limit_reached' };
    throw err;
  }
}

/**
 * PUT: a new version of an existing template, compare-and-set on the version read (a concurrent PUT
 * makes this one retry on top of it, so both versions are kept and none is lost).
 * A transaction (docs/lost-answers.md): when its answer is lost the table's client resends it under its
 * ClientRequestToken and DynamoDB answers the resend as the first send, so the compare-and-set is
 * never refused by the version it wrote itself (which would write the same source again as one
 * version more).
 */
export async function updateTemplate(
  db: Db,
  tenantId: string,
  name: string,
  source: TemplateSource,
  now: number,
): Promise<TemplateRecord | undefined> {
  for (let attempt = 0; attempt < 8; attempt++) {
    const current = await getTemplate(db, tenantId, name, true);
    if (!current) return undefined;
    const next: TemplateRecord = {
      ...source,
      tenant_id: tenantId,
      name,
      version: current.version + 1,
      created_at: current.created_at,
      updated_at: now,
    };
    try {
      await db.transact({
        TransactItems: [
          {
            Put: {
              TableName: db.table,
              Item: { ...headKey(tenantId, name), type: 'template', ...toItem(next) },
              ConditionExpression: 'version = :v',
              ExpressionAttributeValues: { ':v': current.version },
            },
          },
          {
            Put: {
              TableName: db.table,
              Item: {
                ...versionKey(tenantId, name, next.version),
                type: 'template_version',
                ...toItem(next),
              },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
        ],
      });
      return next;
    } catch (err) {
      if (!isTransactionCanceled(err)) throw err;
      await new Promise((r) => setTimeout(r, 5 * (attempt + 1)));
    }
  }
  throw new Error(`template ${name} kept changing: gave up`);
}

/** The current version of a template. */
export async function getTemplate(
  db: Db,
  tenantId: string,
  name: string,
  consistent = false,
): Promise<TemplateRecord | undefined> {
  const out = await db.get({ TableName: db.table, Key: headKey(tenantId, name), ConsistentRead: consistent });
  return out.Item ? fromItem(out.Item) : undefined;
}

/** One saved version of a template (kept after a PUT or a DELETE). */
export async function getTemplateVersion(
  db: Db,
  tenantId: string,
  name: string,
  version: number,
): Promise<TemplateRecord | undefined> {
  const out = await db.get({ TableName: db.table, Key: versionKey(tenantId, name, version) });
  return out.Item ? fromItem(out.Item) : undefined;
}

/** The tenant's templates (current versions), by name. At most the per-tenant limit. */
export async function listTemplates(db: Db, tenantId: string): Promise<TemplateRecord[]> {
  return (await queryPrefix(db, `T#${tenantId}`, HEAD)).map(fromItem);
}

/**
 * Delete the template (its versions stay) and give its place back; false when there was none.
 * A transaction (docs/lost-answers.md): the table client's resend under the same ClientRequestToken is
 * answered as the first send, so a delete that landed never answers `template_not_found`, gives
 * no place back twice and leaves a template created again meanwhile in place.
 */
export async function deleteTemplate(db: Db, tenantId: string, name: string): Promise<boolean> {
  return deleteCounted(db, headKey(tenantId, name), countKey(tenantId));
}
