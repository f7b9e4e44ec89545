import type { Db } from './db.ts';

/**
 * One page of a directory list kept in gsi1 (`gsi1pk` = the list, `gsi1sk` = the item's id, newest
 * first): the ids from the index, then the items in one BatchGetItem, in index order. `after` is the
 * id of the last item of the previous page; `next` is set when more follow.
 */
export async function pageByIndex<T>(
  db: Db,
  listKey: string,
  itemKey: (id: string) => Record<string, string>,
  decode: (item: Record<string, unknown>) => T & { id: string },
  opts: { limit: number; after?: string },
): Promise<{ data: T[]; next?: string }> {
  const out = await db.query({
    TableName: db.table,
    IndexName: 'gsi1',
    KeyConditionExpression: opts.after ? 'gsi1pk = :pk AND gsi1sk < :after' : 'gsi1pk = :pk',
    ExpressionAttributeValues: { ':pk': listKey, ...(opts.after ? { ':after': opts.after } : {}) },
    ScanIndexForward: false,
    Limit: opts.limit + 1,
  });
  const ids = (out.Items ?? []).map((i) => String(i.gsi1sk));
  const page = ids.slice(0, opts.limit);
  const found = new Map<string, T>();
  if (page.length > 0) {
    const got = await db.batchGet({ RequestItems: { [db.table]: { Keys: page.map(itemKey) } } });
    for (const item of got.Responses?.[db.table] ?? []) {
      const decoded = decode(item);
      found.set(decoded.id, decoded);
    }
  }
  return {
    data: page.map((id) => found.get(id)).filter((x): x is T => x !== undefined),
    next: ids.length > opts.limit ? page[page.length - 1] : undefined,
  };
}
