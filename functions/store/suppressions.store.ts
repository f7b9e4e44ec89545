import {
  addressHash,
  blocksOnlyElective,
  canonicalAddress,
  type Suppression,
  type SuppressionReason,
} from '../core/suppressions.ts';
import { type Db, putOnce, transactGuarded } from './db.ts';

/**
 * Suppressions: `T#{ten}` / `S#{hmac(address)}`. The plain
 * address is never stored: the key is its HMAC and the item keeps only the masked `address_hint`.
 */
export const suppressionKey = (tenantId: string, hash: string) => ({ pk: `T#${tenantId}`, sk: `S#${hash}` });
const SK_PREFIX = 'S#';

interface SuppressionItem {
  pk: string;
  sk: string;
  type: 'suppression';
  address_hint: string;
  reason: SuppressionReason;
  created_at: number;
  expires_at?: number;
  source_message_id?: string;
  elective?: true;
  /** DynamoDB TTL (epoch seconds): an expired suppression is removed by the table itself. */
  ttl?: number;
}

function fromItem(item: Record<string, unknown>): Suppression {
  const i = item as unknown as SuppressionItem;
  return {
    address_hash: i.sk.slice(SK_PREFIX.length),
    address_hint: i.address_hint,
    reason: i.reason,
    created_at: i.created_at,
    ...(i.expires_at !== undefined ? { expires_at: i.expires_at } : {}),
    ...(i.source_message_id !== undefined ? { source_message_id: i.source_message_id } : {}),
    ...(i.elective ? { elective: true } : {}),
  };
}

/**
 * An `INSERT OR IGNORE`: a conditional put that wins where no live suppression exists (an expired
 * one counts as absent). A suppression that blocks all mail also replaces one that blocks only
 * elective mail, and a permanent one replaces one that expires, so a hard bounce after an
 * unsubscribe closes the address to transactional mail as well. Returns whether it wrote, and the
 * suppression in force.
 *
 * A create (docs/lost-answers.md): `putOnce` keeps this call's token on the item, so a put whose
 * answer was lost is sent again and a refusal by the item it wrote itself answers `created`; a
 * refusal by another writer's suppression answers that one.
 */
export async function putSuppressionIfAbsent(
  db: Db,
  tenantId: string,
  s: Suppression,
  now: number,
): Promise<{ created: boolean; suppression: Suppression }> {
  const item: SuppressionItem = {
    ...suppressionKey(tenantId, s.address_hash),
    type: 'suppression',
    address_hint: s.address_hint,
    reason: s.reason,
    created_at: s.created_at,
    ...(s.expires_at !== undefined ? { expires_at: s.expires_at, ttl: Math.ceil(s.expires_at / 1000) } : {}),
    ...(s.source_message_id !== undefined ? { source_message_id: s.source_message_id } : {}),
    ...(s.reason === 'manual' && s.elective ? { elective: true as const } : {}),
  };
  const out = await putOnce(db, { Item: item, ...replaceCondition(s, now) });
  if (out.written)
    return { created: true, suppression: fromItem(item as unknown as Record<string, unknown>) };
  // A refusal always names the live suppression that refused: the condition holds on a missing item.
  if (!out.old) throw new Error('a suppression put was refused with no suppression in its place');
  return { created: false, suppression: fromItem(out.old) };
}

/** The condition of `putSuppressionIfAbsent`'s put (a create through `putOnce`: see there). */
function replaceCondition(s: Suppression, now: number) {
  const parts = ['attribute_not_exists(pk)', 'expires_at <= :now'];
  const values: Record<string, unknown> = { ':now': now };
  if (!blocksOnlyElective(s)) {
    parts.push('#reason = :unsubscribe', 'elective = :true');
    values[':unsubscribe'] = 'unsubscribe';
    values[':true'] = true;
    if (s.expires_at === undefined) parts.push('attribute_exists(expires_at)');
  }
  return {
    ConditionExpression: parts.join(' OR '),
    ExpressionAttributeValues: values,
    ...(values[':unsubscribe'] ? { ExpressionAttributeNames: { '#reason': 'reason' } } : {}),
  };
}

/**
 * Delete the suppression; false when there was none. A transaction of one item
 * (docs/lost-answers.md): the table's client resends it under its ClientRequestToken when its answer is lost,
 * and DynamoDB answers the resend as the first send, so a delete that landed is never answered
 * `suppression_not_found`, and a suppression written again meanwhile is not deleted by the resend.
 */
export async function deleteSuppression(db: Db, tenantId: string, hash: string): Promise<boolean> {
  return transactGuarded(db, [
    {
      Delete: {
        TableName: db.table,
        Key: suppressionKey(tenantId, hash),
        ConditionExpression: 'attribute_exists(pk)',
      },
    },
  ]);
}

/**
 * Items for many keys (BatchGetItem: 100 keys a call, unprocessed keys retried). Shared by the
 * suppression, send-list and contact stores.
 */
export async function batchGetItems(
  db: Db,
  itemKeys: { pk: string; sk: string }[],
): Promise<Record<string, unknown>[]> {
  const seen = new Set<string>();
  const unique = itemKeys.filter((k) => {
    const id = `${k.pk}\n${k.sk}`;
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
  const found: Record<string, unknown>[] = [];
  for (let i = 0; i < unique.length; i += 100) {
    let request: Record<string, { Keys: Record<string, unknown>[] }> | undefined = {
      [db.table]: { Keys: unique.slice(i, i + 100) },
    };
    for (let round = 0; request && Object.keys(request).length > 0; round++) {
      // Unprocessed keys come back under throttling: back off a little before asking again.
      if (round > 0) await new Promise((r) => setTimeout(r, Math.min(25 * 2 ** round, 1000)));
      const out = await db.batchGet({ RequestItems: request });
      found.push(...(out.Responses?.[db.table] ?? []));
      request = out.UnprocessedKeys as typeof request;
    }
  }
  return found;
}

/** The suppressions stored under these hashes, by hash (expired ones included; the filter decides). */
export async function getSuppressions(
  db: Db,
  tenantId: string,
  hashes: string[],
): Promise<Map<string, Suppression>> {
  const items = await batchGetItems(
    db,
    hashes.map((h) => suppressionKey(tenantId, h)),
  );
  return new Map(items.map((i) => [fromItem(i).address_hash, fromItem(i)]));
}

export async function getSuppression(
  db: Db,
  tenantId: string,
  hash: string,
): Promise<Suppression | undefined> {
  return (await getSuppressions(db, tenantId, [hash])).get(hash);
}

/**
 * The suppressions of these recipient addresses, keyed by canonicalAddress — the shape the
 * recipient filter (core/suppressions.ts › RecipientFilterContext.suppressions) takes.
 */
export async function getSuppressionsFor(
  db: Db,
  tenantId: string,
  hashKey: string,
  addresses: string[],
): Promise<Map<string, Suppression>> {
  const byHash = new Map(addresses.map((a) => [addressHash(hashKey, a), canonicalAddress(a)]));
  const found = await getSuppressions(db, tenantId, [...byHash.keys()]);
  return new Map([...found].map(([hash, s]) => [byHash.get(hash)!, s]));
}

/**
 * One page of the tenant's suppressions in hash order, optionally of one reason. `after` is the
 * hash of the last item of the previous page; `next` is set only when another item exists.
 */
export async function listSuppressions(
  db: Db,
  tenantId: string,
  opts: { limit: number; after?: string; reason?: SuppressionReason },
): Promise<{ data: Suppression[]; next?: string }> {
  const data: Suppression[] = [];
  let start: Record<string, unknown> | undefined = opts.after
    ? suppressionKey(tenantId, opts.after)
    : undefined;
  for (;;) {
    const out = await db.query({
      TableName: db.table,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: {
        ':pk': `T#${tenantId}`,
        ':prefix': SK_PREFIX,
        ...(opts.reason ? { ':reason': opts.reason } : {}),
      },
      ...(opts.reason
        ? { FilterExpression: '#reason = :reason', ExpressionAttributeNames: { '#reason': 'reason' } }
        : {}),
      // One more than a page tells whether a next page exists; a filter reads wider steps.
      Limit: opts.reason ? 200 : opts.limit + 1 - data.length,
      ExclusiveStartKey: start,
    });
    data.push(...(out.Items ?? []).map(fromItem));
    if (data.length > opts.limit) {
      const page = data.slice(0, opts.limit);
      return { data: page, next: page[page.length - 1].address_hash };
    }
    if (!out.LastEvaluatedKey) return { data };
    start = out.LastEvaluatedKey;
  }
}
