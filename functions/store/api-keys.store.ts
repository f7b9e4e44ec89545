import { isId } from '../core/ids.ts';
import type { ApiKeyDefinition, ApiKeyRecord } from '../core/model.ts';
import { type Db, isTransactionCanceled, type TransactItem } from './db.ts';
import { keys } from './table-keys.ts';

/**
 * API keys. Two kinds of item:
 * - `KEY#{key_id}` / `KEY`: the key (name, level, scope, permissions, expiry, revocation, the hashes of
 *   its live secrets). Listed through gsi1 (`KEYS`, `{tenant_id|~platform}#{key_id}`).
 * - `K#{sha256(secret)}` / `K`: one per secret, a copy of what authentication needs, so that
 *   authenticating is one read. A rotation adds a secret and gives the old ones an end.
 * No secret is stored in clear. Every change is one transaction (docs/lost-answers.md ›
 * transaction): when its answer is lost the table's client resends it with the same ClientRequestToken and
 * DynamoDB answers the resend as the first send, so a key's own creation, revocation or rotation is
 * never refused by its own earlier send.
 */
export const KEYS_INDEX_PK = 'KEYS';
const PLATFORM_PREFIX = '~platform';

export const keyItemKey = (keyId: string) => ({ pk: `KEY#${keyId}`, sk: 'KEY' });
const listSk = (d: Pick<ApiKeyDefinition, 'tenant_id' | 'key_id'>) =>
  `${d.tenant_id ?? PLATFORM_PREFIX}#${d.key_id}`;

/** What the secret item of `d` holds. */
export function secretRecord(d: ApiKeyDefinition): ApiKeyRecord {
  return {
    key_id: d.key_id,
    ...(d.tenant_id ? { tenant_id: d.tenant_id } : {}),
    scopes: d.scopes,
    ...(d.level === 'identity' && d.identity_id
      ? { identity_ids: [d.identity_id], identity_id: d.identity_id }
      : {}),
    level: d.level,
    name: d.name,
    mode: d.mode,
    ...(d.expires_at !== undefined ? { expires_at: d.expires_at } : {}),
    ...(d.sends_need_approval ? { sends_need_approval: true } : {}),
    created_at: d.created_at,
  };
}

/** The secret item of a new secret, a create inside the transaction of its key's creation or rotation. */
const secretPut = (db: Db, hash: string, d: ApiKeyDefinition): TransactItem => ({
  Put: {
    TableName: db.table,
    Item: { ...keys.apiKey(hash), type: 'api_key', ...secretRecord(d) },
    ConditionExpression: 'attribute_not_exists(pk)',
  },
});

/** Writes a new key with its first secret, plus `extra` (audit, idempotency), in one transaction. */
export async function createApiKey(db: Db, d: ApiKeyDefinition, extra: TransactItem[] = []): Promise<void> {
  await db.transact({
    TransactItems: [
      {
        Put: {
          TableName: db.table,
          Item: {
            ...keyItemKey(d.key_id),
            type: 'api_key_def',
            gsi1pk: KEYS_INDEX_PK,
            gsi1sk: listSk(d),
            ...d,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      secretPut(db, d.secrets[0], d),
      ...extra,
    ],
  });
}

function stripDef(item: Record<string, unknown> | undefined): ApiKeyDefinition | undefined {
  if (!item) return undefined;
  const { pk: _p, sk: _s, type: _t, gsi1pk: _g, gsi1sk: _h, ...rest } = item;
  return rest as unknown as ApiKeyDefinition;
}

export async function getApiKeyDefinition(db: Db, keyId: string): Promise<ApiKeyDefinition | undefined> {
  if (!isId('key', keyId)) return undefined;
  const out = await db.get({ TableName: db.table, Key: keyItemKey(keyId), ConsistentRead: true });
  return stripDef(out.Item);
}

/**
 * Keys newest first: those of one tenant (`tenantId`), the platform keys (`null`), or all
 * (`undefined`). `after` is the list position of the last key seen.
 */
export async function listApiKeyDefinitions(
  db: Db,
  tenantId: string | null | undefined,
  opts: { limit: number; after?: string },
): Promise<{ data: ApiKeyDefinition[]; next?: string }> {
  const prefix = tenantId === undefined ? '' : `${tenantId ?? PLATFORM_PREFIX}#`;
  const values: Record<string, unknown> = { ':pk': KEYS_INDEX_PK };
  let cond = 'gsi1pk = :pk';
  if (opts.after !== undefined) {
    cond += ' AND gsi1sk BETWEEN :lo AND :hi';
    values[':lo'] = prefix || '!';
    values[':hi'] = opts.after;
  } else if (prefix) {
    cond += ' AND begins_with(gsi1sk, :prefix)';
    values[':prefix'] = prefix;
  }
  const out = await db.query({
    TableName: db.table,
    IndexName: 'gsi1',
    KeyConditionExpression: cond,
    ExpressionAttributeValues: values,
    ScanIndexForward: false,
    Limit: opts.limit + 1,
  });
  const hits = (out.Items ?? []).filter(
    (i) => i.gsi1sk !== opts.after && String(i.gsi1sk).startsWith(prefix),
  );
  const page = hits.slice(0, opts.limit);
  const data = await batchGetDefinitions(
    db,
    page.map((i) => String(i.pk).slice(4)),
  );
  return { data, next: hits.length > opts.limit ? String(page[page.length - 1].gsi1sk) : undefined };
}

async function batchGetDefinitions(db: Db, ids: string[]): Promise<ApiKeyDefinition[]> {
  if (ids.length === 0) return [];
  const found = new Map<string, ApiKeyDefinition>();
  let request: Record<string, { Keys: Record<string, unknown>[]; ConsistentRead?: boolean }> | undefined = {
    [db.table]: { Keys: ids.map(keyItemKey) },
  };
  while (request && Object.keys(request).length > 0) {
    const out = await db.batchGet({ RequestItems: request });
    for (const item of out.Responses?.[db.table] ?? []) {
      const d = stripDef(item)!;
      found.set(d.key_id, d);
    }
    request = out.UnprocessedKeys as typeof request;
  }
  return ids.map((id) => found.get(id)).filter((d): d is ApiKeyDefinition => d !== undefined);
}

/**
 * Revokes the key and every one of its secrets, plus `extra`, in one transaction conditioned on the
 * key being unrevoked at `version`. False when another change came first.
 */
export async function revokeApiKey(
  db: Db,
  d: ApiKeyDefinition,
  now: number,
  extra: TransactItem[] = [],
): Promise<boolean> {
  return transactIfCurrent(db, [
    {
      Update: {
        TableName: db.table,
        Key: keyItemKey(d.key_id),
        UpdateExpression: 'SET revoked_at = :now, version = version + :one',
        ConditionExpression: 'version = :v AND attribute_not_exists(revoked_at)',
        ExpressionAttributeValues: { ':now': now, ':v': d.version, ':one': 1 },
      },
    },
    ...d.secrets.map(
      (hash): TransactItem => ({
        Update: {
          TableName: db.table,
          Key: keys.apiKey(hash),
          UpdateExpression: 'SET revoked_at = :now',
          ExpressionAttributeValues: { ':now': now },
        },
      }),
    ),
    ...extra,
  ]);
}

/**
 * A rotation: `newHash` becomes a secret of the key; each older secret in `shorten` ends at
 * `oldUntil` (at once when the overlap is 0). Secrets already past their end are deleted.
 */
export async function rotateApiKey(
  db: Db,
  d: ApiKeyDefinition,
  args: { newHash: string; oldUntil: number; live: string[]; shorten: string[]; dropped: string[] },
  extra: TransactItem[] = [],
): Promise<boolean> {
  const secrets = [...args.live, args.newHash];
  return transactIfCurrent(db, [
    {
      Update: {
        TableName: db.table,
        Key: keyItemKey(d.key_id),
        UpdateExpression: 'SET secrets = :s, version = version + :one',
        ConditionExpression: 'version = :v AND attribute_not_exists(revoked_at)',
        ExpressionAttributeValues: { ':s': secrets, ':v': d.version, ':one': 1 },
      },
    },
    secretPut(db, args.newHash, d),
    ...args.shorten.map(
      (hash): TransactItem => ({
        Update: {
          TableName: db.table,
          Key: keys.apiKey(hash),
          UpdateExpression: 'SET secret_expires_at = :until',
          ExpressionAttributeValues: { ':until': args.oldUntil },
        },
      }),
    ),
    ...args.dropped.map(
      (hash): TransactItem => ({ Delete: { TableName: db.table, Key: keys.apiKey(hash) } }),
    ),
    ...extra,
  ]);
}

/** The secret items of a key, to see which of its secrets still work. */
export async function getSecretItems(db: Db, hashes: string[]): Promise<Map<string, ApiKeyRecord>> {
  const found = new Map<string, ApiKeyRecord>();
  if (hashes.length === 0) return found;
  const out = await db.batchGet({
    RequestItems: { [db.table]: { Keys: hashes.map((h) => keys.apiKey(h)), ConsistentRead: true } },
  });
  for (const item of out.Responses?.[db.table] ?? [])
    found.set(String(item.pk).slice(2), item as ApiKeyRecord);
  return found;
}

/**
 * A key's change, conditioned on the key's version: false when another change came first. Resent by
 * the table's client with its ClientRequestToken after a lost answer, so this change's own earlier send never
 * reads as another's.
 */
async function transactIfCurrent(db: Db, items: TransactItem[]): Promise<boolean> {
  try {
    await db.transact({ TransactItems: items });
    return true;
  } catch (err) {
    if (
      isTransactionCanceled(err) &&
      err.CancellationReasons?.some((r) => r.Code === 'ConditionalCheckFailed')
    )
      return false;
    throw err;
  }
}

/**
 * `last_used_at` of the secret item and of the key, each only when the stored value is older than
 * `cutoff`: at most one write per key a minute, whatever the number of requests. Bookkeeping: an
 * unknown outcome goes up unsent again (docs/lost-answers.md), the caller never fails its request on
 * it, and the next request re-decides on the stored `last_used_at`.
 */
export async function touchLastUsed(db: Db, keyId: string, hash: string, now: number, cutoff: number) {
  const update = (Key: Record<string, string>) =>
    db
      .update({
        TableName: db.table,
        Key,
        UpdateExpression: 'SET last_used_at = :now',
        ConditionExpression:
          'attribute_exists(pk) AND (attribute_not_exists(last_used_at) OR last_used_at < :cutoff)',
        ExpressionAttributeValues: { ':now': now, ':cutoff': cutoff },
      })
      .catch((err: Error) => {
        if (err.name !== 'ConditionalCheckFailedException') throw err;
      });
  await Promise.all([update(keys.apiKey(hash)), update(keyItemKey(keyId))]);
}
