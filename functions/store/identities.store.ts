import type { AddressRecord, Identity } from '../core/model.ts';
import { type Db, failedConditions, type TransactItem, transactGuarded } from './db.ts';
import { pageByIndex } from './index-page.ts';
import { keys } from './table-keys.ts';

/**
 * Identities created through the API: the identity item `I#{id}` / `I` (listed per tenant
 * through gsi1 `TI#{tenant}`), its address `A#{address}`, and for a `client_id` the claim
 * `T#{tenant}` / `IC#{client_id}`, all in one transaction. An address is never reused: a retired
 * address keeps its item.
 */
const clientKey = (tenantId: string, clientId: string) => ({ pk: `T#${tenantId}`, sk: `IC#${clientId}` });

/**
 * Create the identity, its address and its client_id claim, or answer which was taken.
 * A transaction (docs/lost-answers.md): when its answer is lost the table's client resends it under its
 * ClientRequestToken and DynamoDB answers the resend as the first send, so a create is never
 * refused by its own address (`address_taken`) or its own claim.
 */
export async function createIdentity(
  db: Db,
  i: Identity,
  address: AddressRecord,
  client: { fingerprint: string } | undefined,
  extra: TransactItem[] = [],
): Promise<'created' | 'address_taken' | 'client_id_taken'> {
  const items: TransactItem[] = [
    {
      Put: {
        TableName: db.table,
        Item: { ...keys.identity(i.id), type: 'identity', gsi1pk: `TI#${i.tenant_id}`, gsi1sk: i.id, ...i },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    {
      Put: {
        TableName: db.table,
        Item: {
          ...keys.address(address.address),
          type: 'address',
          ...address,
          address: address.address.toLowerCase(),
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  ];
  if (client && i.client_id) {
    items.push({
      Put: {
        TableName: db.table,
        Item: {
          ...clientKey(i.tenant_id, i.client_id),
          type: 'identity_client_id',
          identity_id: i.id,
          fingerprint: client.fingerprint,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    });
  }
  try {
    await db.transact({ TransactItems: [...items, ...extra] });
    return 'created';
  } catch (err) {
    const failed = failedConditions(err, ['identity', 'address', 'client_id'] as const);
    if (client && failed.has('client_id')) return 'client_id_taken';
    if (failed.has('address')) return 'address_taken';
    throw err;
  }
}

export async function getClientIdClaim(
  db: Db,
  tenantId: string,
  clientId: string,
): Promise<{ identity_id: string; fingerprint: string } | undefined> {
  const out = await db.get({ TableName: db.table, Key: clientKey(tenantId, clientId), ConsistentRead: true });
  return out.Item as { identity_id: string; fingerprint: string } | undefined;
}

const strip = (item: Record<string, unknown>): Identity => {
  const { pk: _p, sk: _s, type: _t, gsi1pk: _g, gsi1sk: _h, ...rest } = item;
  return rest as unknown as Identity;
};

/** A tenant's identities newest first; `after` is the id of the last identity seen. */
export async function listIdentities(
  db: Db,
  tenantId: string,
  opts: { limit: number; after?: string },
): Promise<{ data: Identity[]; next?: string }> {
  return pageByIndex(db, `TI#${tenantId}`, (id) => keys.identity(id), strip, opts);
}

/**
 * Sets and removes identity fields, plus `extra`, in one transaction conditioned on the status the
 * caller read (so a change never lands on an identity deleted meanwhile).
 * A transaction (docs/lost-answers.md): when its answer is lost the table's client resends it under its
 * ClientRequestToken and DynamoDB answers the resend as the first send, so a status another writer
 * changed before the resend does not refuse this call's own change, nor is the change written twice.
 */
export async function updateIdentityFields(
  db: Db,
  i: Identity,
  set: Record<string, unknown>,
  remove: string[],
  now: number,
  extra: TransactItem[] = [],
): Promise<boolean> {
  const names: Record<string, string> = { '#status': 'status' };
  const values: Record<string, unknown> = { ':now': now, ':from': i.status };
  const sets = ['updated_at = :now'];
  Object.entries(set).forEach(([k, v], n) => {
    names[`#f${n}`] = k;
    values[`:v${n}`] = v;
    sets.push(`#f${n} = :v${n}`);
  });
  const removes = remove.map((k, n) => {
    names[`#r${n}`] = k;
    return `#r${n}`;
  });
  return transactGuarded(db, [
    {
      Update: {
        TableName: db.table,
        Key: keys.identity(i.id),
        UpdateExpression: `SET ${sets.join(', ')}${removes.length ? ` REMOVE ${removes.join(', ')}` : ''}`,
        ConditionExpression: '#status = :from',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      },
    },
    ...extra,
  ]);
}

/**
 * Deletion: the identity becomes `deleted` and each of its addresses `retired`, for good.
 * A transaction (docs/lost-answers.md): when its answer is lost the table's client resends it under its
 * ClientRequestToken and DynamoDB answers the resend as the first send, so a deletion is never
 * refused by its own `deleted` (answered `identity_not_found`).
 */
export async function deleteIdentity(db: Db, i: Identity, now: number, extra: TransactItem[] = []) {
  return transactGuarded(db, [
    {
      Update: {
        TableName: db.table,
        Key: keys.identity(i.id),
        UpdateExpression: 'SET #status = :deleted, updated_at = :now REMOVE pause_reason',
        ConditionExpression: '#status = :from',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':deleted': 'deleted', ':now': now, ':from': i.status },
      },
    },
    ...(i.addresses ?? [i.primary_address]).map(
      (a): TransactItem => ({
        Update: {
          TableName: db.table,
          Key: keys.address(a),
          UpdateExpression: 'SET #status = :retired',
          ConditionExpression: 'attribute_exists(pk) AND identity_id = :id',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':retired': 'retired', ':id': i.id },
        },
      }),
    ),
    ...extra,
  ]);
}
