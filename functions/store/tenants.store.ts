import { isId } from '../core/ids.ts';
import type { Tenant, TenantPolicy } from '../core/model.ts';
import { type Db, failedConditions, type TransactItem, transactGuarded } from './db.ts';
import { pageByIndex } from './index-page.ts';
import { keys } from './table-keys.ts';

/**
 * Tenants: the tenant item `T#{id}` / `T` (listed through gsi1 `TENANTS`) and its slug
 * claim `TS#{slug}` / `TS`, written together, so two tenants never share a slug.
 *
 * Every write here is a transaction (docs/lost-answers.md): when its answer is lost the table's client resends
 * it under its ClientRequestToken and DynamoDB answers the resend as the first send, so a write is
 * never refused by its own earlier send (a slug it claimed itself, a status or policy version it
 * wrote itself) and is not applied twice.
 */
export const TENANTS_INDEX_PK = 'TENANTS';
const slugKey = (slug: string) => ({ pk: `TS#${slug}`, sk: 'TS' });

/** Create the tenant and claim its slug, or answer `slug_taken` (a transaction: see above). */
export async function createTenant(
  db: Db,
  t: Tenant,
  extra: TransactItem[] = [],
): Promise<'created' | 'slug_taken'> {
  try {
    await db.transact({
      TransactItems: [
        {
          Put: {
            TableName: db.table,
            Item: { ...keys.tenant(t.id), type: 'tenant', gsi1pk: TENANTS_INDEX_PK, gsi1sk: t.id, ...t },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        {
          Put: {
            TableName: db.table,
            Item: { ...slugKey(t.slug!), type: 'tenant_slug', tenant_id: t.id },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        ...extra,
      ],
    });
    return 'created';
  } catch (err) {
    if (failedConditions(err, ['tenant', 'slug'] as const).has('slug')) return 'slug_taken';
    throw err;
  }
}

export async function tenantIdOfSlug(db: Db, slug: string): Promise<string | undefined> {
  const out = await db.get({ TableName: db.table, Key: slugKey(slug) });
  return out.Item?.tenant_id as string | undefined;
}

const stripTenant = (item: Record<string, unknown>): Tenant => {
  const { pk: _p, sk: _s, type: _t, gsi1pk: _g, gsi1sk: _h, ...rest } = item;
  return rest as unknown as Tenant;
};

export async function getTenantConsistent(db: Db, id: string): Promise<Tenant | undefined> {
  if (!isId('tenant', id)) return undefined;
  const out = await db.get({ TableName: db.table, Key: keys.tenant(id), ConsistentRead: true });
  return out.Item ? stripTenant(out.Item) : undefined;
}

/** Tenants newest first; `after` is the id of the last tenant seen. */
export async function listTenants(
  db: Db,
  opts: { limit: number; after?: string },
): Promise<{ data: Tenant[]; next?: string }> {
  return pageByIndex(db, TENANTS_INDEX_PK, (id) => keys.tenant(id), stripTenant, opts);
}

/**
 * Changes name, timezone and status (with `suspended_at`), plus `extra`, in one transaction
 * conditioned on the tenant existing at the status read (a transaction: see above).
 */
export async function updateTenant(
  db: Db,
  t: Tenant,
  change: { name?: string; timezone?: string; status?: Tenant['status'] },
  now: number,
  extra: TransactItem[] = [],
): Promise<boolean> {
  const sets = ['updated_at = :now'];
  const removes: string[] = [];
  const values: Record<string, unknown> = { ':now': now, ':from': t.status };
  const names: Record<string, string> = { '#status': 'status' };
  if (change.name !== undefined) {
    sets.push('#name = :name');
    names['#name'] = 'name';
    values[':name'] = change.name;
  }
  if (change.timezone !== undefined) {
    sets.push('timezone = :tz');
    values[':tz'] = change.timezone;
  }
  if (change.status !== undefined && change.status !== t.status) {
    sets.push('#status = :status');
    values[':status'] = change.status;
    if (change.status === 'suspended') sets.push('suspended_at = :now');
    else removes.push('suspended_at');
  }
  return transactGuarded(db, [
    {
      Update: {
        TableName: db.table,
        Key: keys.tenant(t.id),
        UpdateExpression: `SET ${sets.join(', ')}${removes.length ? ` REMOVE ${removes.join(', ')}` : ''}`,
        ConditionExpression: 'attribute_exists(pk) AND #status = :from',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      },
    },
    ...extra,
  ]);
}

/**
 * The policy compare-and-set: written only while the stored policy_version is `fromVersion`. A
 * transaction (see above): its resend is not refused by the version it wrote itself, so a patch
 * whose answer was lost is never answered `policy_version_conflict`.
 */
export async function updateTenantPolicy(
  db: Db,
  tenantId: string,
  policy: TenantPolicy,
  fromVersion: number,
  now: number,
  extra: TransactItem[] = [],
): Promise<boolean> {
  return transactGuarded(db, [
    {
      Update: {
        TableName: db.table,
        Key: keys.tenant(tenantId),
        UpdateExpression: 'SET policy = :policy, policy_version = :next, updated_at = :now',
        ConditionExpression:
          fromVersion === 0
            ? 'attribute_exists(pk) AND (attribute_not_exists(policy_version) OR policy_version = :v)'
            : 'attribute_exists(pk) AND policy_version = :v',
        ExpressionAttributeValues: {
          ':policy': policy,
          ':next': fromVersion + 1,
          ':now': now,
          ':v': fromVersion,
        },
      },
    },
    ...extra,
  ]);
}
