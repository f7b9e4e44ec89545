import type { DomainRecord } from '../core/model.ts';
import { type Db, putOnce, transactGuarded } from './db.ts';
import { getDomain } from './directory.store.ts';
import { keys } from './table-keys.ts';

/**
 * Sending domains written by the domains API (functions/api/domains.api.ts). The domain item itself
 * stays `D#{domain}` (read by the send path: directory.store.ts › getDomain); beside it, a reference
 * under the tenant (`T#{tenant}` / `DOM#{id}`, for GET and list by id) and one in the registry the
 * scheduled check reads (`DOMAINS` / `{domain}`), so neither needs a scan.
 */
const tenantRef = (tenantId: string, domainId: string) => ({ pk: `T#${tenantId}`, sk: `DOM#${domainId}` });
const registryRef = (domain: string) => ({ pk: 'DOMAINS', sk: domain.toLowerCase() });

const item = (d: DomainRecord) => ({
  ...keys.domain(d.domain),
  type: 'domain',
  ...d,
  domain: d.domain.toLowerCase(),
});

/**
 * A new domain; a name held by a domain that is not `removed` is taken (any tenant). One
 * transaction (docs/lost-answers.md › transaction): a resend after a lost answer carries the same
 * ClientRequestToken and is answered as the first send, so a name this call took is never `exists`.
 */
export async function createDomain(db: Db, d: DomainRecord & { id: string }): Promise<'created' | 'exists'> {
  const written = await transactGuarded(db, [
    {
      Put: {
        TableName: db.table,
        Item: item(d),
        ConditionExpression: 'attribute_not_exists(pk) OR #state = :removed',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':removed': 'removed' },
      },
    },
    {
      Put: {
        TableName: db.table,
        Item: { ...tenantRef(d.tenant_id, d.id), type: 'domain_ref', domain: d.domain.toLowerCase() },
      },
    },
    {
      Put: {
        TableName: db.table,
        Item: { ...registryRef(d.domain), type: 'domain_registry', tenant_id: d.tenant_id, id: d.id },
      },
    },
  ]);
  return written ? 'created' : 'exists';
}

/**
 * The domain as last written (a strongly consistent read): the SMTP relay probe reads the settings
 * a PATCH has just written, never the ones before it.
 */
export async function readDomainNow(db: Db, domain: string): Promise<DomainRecord | undefined> {
  const out = await db.get({ TableName: db.table, Key: keys.domain(domain), ConsistentRead: true });
  if (!out.Item) return undefined;
  const { pk: _pk, sk: _sk, type: _type, ...d } = out.Item;
  return d as DomainRecord;
}

/** The tenant's domain with this id (another tenant's, or a name re-added since, is absent). */
export async function getTenantDomain(
  db: Db,
  tenantId: string,
  domainId: string,
): Promise<DomainRecord | undefined> {
  const ref = await db.query({
    TableName: db.table,
    KeyConditionExpression: 'pk = :pk AND sk = :sk',
    ExpressionAttributeValues: {
      ':pk': tenantRef(tenantId, domainId).pk,
      ':sk': tenantRef(tenantId, domainId).sk,
    },
    ConsistentRead: true,
  });
  const name = ref.Items?.[0]?.domain as string | undefined;
  if (!name) return undefined;
  const d = await getDomain(db, name);
  return d && d.tenant_id === tenantId && d.id === domainId ? d : undefined;
}

/** The tenant's domains, newest first. */
export async function listTenantDomains(db: Db, tenantId: string): Promise<DomainRecord[]> {
  const refs = await db.query({
    TableName: db.table,
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
    ExpressionAttributeValues: { ':pk': `T#${tenantId}`, ':p': 'DOM#' },
    ScanIndexForward: false,
    ConsistentRead: true,
  });
  const out: DomainRecord[] = [];
  for (const r of refs.Items ?? []) {
    const d = await getDomain(db, r.domain as string);
    if (d && d.tenant_id === tenantId && `DOM#${d.id}` === r.sk) out.push(d);
  }
  return out;
}

/**
 * Write the domain back if nobody changed it since it was read (`updated_at` unchanged). False when
 * someone did: the caller reads again. An owned transition decided by the writer's token
 * (docs/lost-answers.md): the item carries this call's token (`putOnce`), a lost answer sends the
 * same put again, and a refusal by an item carrying this call's token is this call's own write.
 * Another writer's token answers false, whether or not this write landed before theirs: the caller's
 * read again decides on what is there now.
 */
export async function saveDomain(
  db: Db,
  d: DomainRecord,
  readUpdatedAt: number | undefined,
): Promise<boolean> {
  const out = await putOnce(db, {
    Item: item(d),
    ConditionExpression:
      readUpdatedAt === undefined
        ? 'tenant_id = :t AND attribute_not_exists(updated_at)'
        : 'tenant_id = :t AND updated_at = :u',
    ExpressionAttributeValues: {
      ':t': d.tenant_id,
      ...(readUpdatedAt === undefined ? {} : { ':u': readUpdatedAt }),
    },
  });
  return out.written;
}

/** Every domain the scheduled check visits (the registry), a page at a time. */
export async function listRegisteredDomains(
  db: Db,
  after?: string,
  limit = 100,
): Promise<{ domains: string[]; next?: string }> {
  const out = await db.query({
    TableName: db.table,
    KeyConditionExpression: after ? 'pk = :pk AND sk > :after' : 'pk = :pk',
    ExpressionAttributeValues: { ':pk': 'DOMAINS', ...(after ? { ':after': after } : {}) },
    Limit: limit,
  });
  const domains = (out.Items ?? []).map((i) => i.sk as string);
  return { domains, next: out.LastEvaluatedKey ? domains.at(-1) : undefined };
}
