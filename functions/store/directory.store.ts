import type { AddressRecord, ApiKeyRecord, DomainRecord, Identity, Tenant } from '../core/model.ts';
import { type Db, putOnce } from './db.ts';
import { keys } from './table-keys.ts';

/** Tenants, identities, addresses and API keys, one item each. */

type Stored = Record<string, unknown> & { pk: string; sk: string; type: string };

function strip<T>(item: Record<string, unknown> | undefined): T | undefined {
  if (!item) return undefined;
  const { pk: _pk, sk: _sk, type: _type, ...rest } = item;
  return rest as T;
}

export async function getApiKey(db: Db, keyHash: string): Promise<ApiKeyRecord | undefined> {
  const out = await db.get({ TableName: db.table, Key: keys.apiKey(keyHash) });
  return strip<ApiKeyRecord>(out.Item);
}

/** The identity and its tenant in one round trip (the tenant id is part of the key scope). */
export async function getIdentityAndTenant(
  db: Db,
  identityId: string,
  tenantId: string,
): Promise<{ identity?: Identity; tenant?: Tenant }> {
  const out = await db.batchGet({
    RequestItems: { [db.table]: { Keys: [keys.identity(identityId), keys.tenant(tenantId)] } },
  });
  const items = out.Responses?.[db.table] ?? [];
  return {
    identity: strip<Identity>(items.find((i) => i.sk === 'I')),
    tenant: strip<Tenant>(items.find((i) => i.sk === 'T')),
  };
}

export async function getIdentity(db: Db, identityId: string): Promise<Identity | undefined> {
  const out = await db.get({ TableName: db.table, Key: keys.identity(identityId) });
  return strip<Identity>(out.Item);
}

export async function getTenant(db: Db, tenantId: string): Promise<Tenant | undefined> {
  const out = await db.get({ TableName: db.table, Key: keys.tenant(tenantId) });
  return strip<Tenant>(out.Item);
}

export async function getAddress(db: Db, address: string): Promise<AddressRecord | undefined> {
  const out = await db.get({ TableName: db.table, Key: keys.address(address) });
  return strip<AddressRecord>(out.Item);
}

/** Address records for many addresses (≤ 100 per call, as BatchGetItem allows). */
export async function getAddresses(db: Db, addresses: string[]): Promise<Map<string, AddressRecord>> {
  const found = new Map<string, AddressRecord>();
  const unique = [...new Set(addresses.map((a) => a.toLowerCase()))];
  for (let i = 0; i < unique.length; i += 100) {
    let request: Record<string, { Keys: Record<string, unknown>[] }> | undefined = {
      [db.table]: { Keys: unique.slice(i, i + 100).map((a) => keys.address(a)) },
    };
    while (request && Object.keys(request).length > 0) {
      const out = await db.batchGet({ RequestItems: request });
      for (const item of out.Responses?.[db.table] ?? []) {
        const rec = strip<AddressRecord>(item)!;
        found.set(rec.address.toLowerCase(), rec);
      }
      request = out.UnprocessedKeys as typeof request;
    }
  }
  return found;
}

/** The item a `put…` below would create is another writer's: the address, domain or id is taken. */
export class ItemTaken extends Error {
  constructor(item: Pick<Stored, 'type'>) {
    super(`this ${item.type} is taken`);
    this.name = 'ItemTaken';
  }
}

/**
 * A create (docs/lost-answers.md › create): `putOnce` sends the put again when its answer was lost
 * and takes a refusal by an item carrying this call's own token for its own claim, so the claimant
 * is never told its own address (or domain, tenant, key) is taken. Another writer's item throws
 * `ItemTaken`.
 */
async function putNew(db: Db, item: Stored): Promise<void> {
  const out = await putOnce(db, { Item: item });
  if (!out.written) throw new ItemTaken(item);
}

export const putTenant = (db: Db, t: Tenant) => putNew(db, { ...keys.tenant(t.id), type: 'tenant', ...t });
export const putIdentity = (db: Db, i: Identity) =>
  putNew(db, { ...keys.identity(i.id), type: 'identity', ...i });
export const putAddress = (db: Db, a: AddressRecord) =>
  putNew(db, { ...keys.address(a.address), type: 'address', ...a, address: a.address.toLowerCase() });
export const putApiKey = (db: Db, keyHash: string, k: ApiKeyRecord) =>
  putNew(db, { ...keys.apiKey(keyHash), type: 'api_key', ...k });

export async function getDomain(db: Db, domain: string): Promise<DomainRecord | undefined> {
  const out = await db.get({ TableName: db.table, Key: keys.domain(domain) });
  return strip<DomainRecord>(out.Item);
}

export const putDomain = (db: Db, d: DomainRecord) =>
  putNew(db, { ...keys.domain(d.domain), type: 'domain', ...d, domain: d.domain.toLowerCase() });
