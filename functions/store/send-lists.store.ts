import type { ReceiveListMatch } from '../core/hold.ts';
import { canonicalAddress, type ListDirection, type ListEntry, type ListKind } from '../core/suppressions.ts';
import { type Db, isConditionFailed, isOutcomeUnknown, putOnce, WRITER } from './db.ts';
import { batchGetItems } from './suppressions.store.ts';

/**
 * Send and receive lists: `T#{ten}` / `L#{block|allow}#{entry}` (send) and `LR#{block|allow}#{entry}`
 * (receive), the entry an address or `@domain`, lower case with an A-label domain (core
 * normaliseListEntry). A receive allow entry may say `unauthenticated`.
 */
export interface ListRef {
  direction: ListDirection;
  kind: ListKind;
}
const PREFIX: Record<ListDirection, string> = { send: 'L#', receive: 'LR#' };

export const listEntryKey = (tenantId: string, list: ListRef, entry: string) => ({
  pk: `T#${tenantId}`,
  sk: `${PREFIX[list.direction]}${list.kind}#${entry}`,
});

interface ListEntryItem {
  pk: string;
  sk: string;
  type: 'list_entry';
  created_at: number;
  unauthenticated?: boolean;
}

function fromItem(item: Record<string, unknown>): ListEntry {
  const [prefix, kind, ...rest] = (item.sk as string).split('#');
  const e = item as unknown as ListEntryItem;
  return {
    direction: prefix === 'LR' ? 'receive' : 'send',
    kind: kind as ListKind,
    entry: rest.join('#'),
    created_at: e.created_at,
    ...(e.unauthenticated ? { unauthenticated: true } : {}),
  };
}

/**
 * Put an entry unless it exists; an existing entry is returned unchanged (its created_at kept). A
 * create (docs/lost-answers.md): `putOnce`, so a resend after a lost answer finds this call's token
 * (`wt`) on the entry and answers `created`; another writer's entry answers as it is.
 */
export async function putListEntry(
  db: Db,
  tenantId: string,
  list: ListRef,
  entry: string,
  now: number,
  opts: { unauthenticated?: boolean } = {},
): Promise<{ created: boolean; entry: ListEntry }> {
  const item: ListEntryItem = {
    ...listEntryKey(tenantId, list, entry),
    type: 'list_entry',
    created_at: now,
    ...(opts.unauthenticated ? { unauthenticated: true } : {}),
  };
  const out = await putOnce(db, { Item: item as unknown as Record<string, unknown> });
  if (out.written) return { created: true, entry: fromItem(item as unknown as Record<string, unknown>) };
  if (!out.old) throw new Error(`list entry ${entry} refused without an item`);
  return { created: false, entry: fromItem(out.old) };
}

export async function getListEntry(
  db: Db,
  tenantId: string,
  list: ListRef,
  entry: string,
): Promise<ListEntry | undefined> {
  const out = await db.get({ TableName: db.table, Key: listEntryKey(tenantId, list, entry) });
  return out.Item ? fromItem(out.Item) : undefined;
}

/**
 * Delete an entry; false when there is none. The entry's creation token (`wt`, from `putListEntry`)
 * names it: the delete is conditioned on the entry read, so an entry put again after it is never
 * taken for it. An owned transition (docs/lost-answers.md): a lost answer re-reads the entry; the
 * same entry still there, the delete is sent again; gone (or another entry in its place), it was
 * deleted.
 */
export async function deleteListEntry(
  db: Db,
  tenantId: string,
  list: ListRef,
  entry: string,
): Promise<boolean> {
  const key = listEntryKey(tenantId, list, entry);
  const read = async () => (await db.get({ TableName: db.table, Key: key, ConsistentRead: true })).Item;
  const found = await read();
  if (!found) return false;
  const token = found[WRITER] as string | undefined;
  // Entries put before they carried a token are named by their absence of one.
  const named =
    token === undefined
      ? { ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(#wt)' }
      : { ConditionExpression: '#wt = :wt', ExpressionAttributeValues: { ':wt': token } };
  for (let send = 1; ; send++) {
    try {
      await db.delete({
        TableName: db.table,
        Key: key,
        ExpressionAttributeNames: { '#wt': WRITER },
        ...named,
      });
      return true;
    } catch (err) {
      // Another request deleted it first (or deleted it and put it again).
      if (isConditionFailed(err)) return false;
      if (!isOutcomeUnknown(err)) throw err;
      const seen = await read();
      if (!seen || seen[WRITER] !== token) return true;
      if (send >= 3) throw err;
    }
  }
}

/** One page of a list in entry order; `after` is the last entry of the previous page. */
export async function listListEntries(
  db: Db,
  tenantId: string,
  list: ListRef,
  opts: { limit: number; after?: string },
): Promise<{ data: ListEntry[]; next?: string }> {
  const out = await db.query({
    TableName: db.table,
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: {
      ':pk': `T#${tenantId}`,
      ':prefix': `${PREFIX[list.direction]}${list.kind}#`,
    },
    // One more than a page tells whether a next page exists.
    Limit: opts.limit + 1,
    ExclusiveStartKey: opts.after ? listEntryKey(tenantId, list, opts.after) : undefined,
  });
  const all = (out.Items ?? []).map(fromItem);
  if (all.length <= opts.limit) return { data: all };
  const data = all.slice(0, opts.limit);
  return { data, next: data[data.length - 1].entry };
}

/**
 * The send-list entries that match these recipients — each address and its `@domain` — in the
 * shape the recipient filter takes (RecipientFilterContext.sendBlock / sendAllow).
 */
export async function getSendListMatches(
  db: Db,
  tenantId: string,
  addresses: string[],
  kinds: readonly ListKind[] = ['block', 'allow'],
): Promise<{ block: Set<string>; allow: Set<string> }> {
  const candidates = entryCandidates(addresses);
  const items = await batchGetItems(
    db,
    kinds.flatMap((kind) =>
      [...candidates].map((c) => listEntryKey(tenantId, { direction: 'send', kind }, c)),
    ),
  );
  const found = { block: new Set<string>(), allow: new Set<string>() };
  for (const e of items.map(fromItem)) found[e.kind].add(e.entry);
  return found;
}

/** The entries that name these addresses: each address and its `@domain`. */
function entryCandidates(addresses: string[]): Set<string> {
  const candidates = new Set<string>();
  for (const a of addresses) {
    const key = canonicalAddress(a);
    candidates.add(key);
    candidates.add(`@${key.slice(key.lastIndexOf('@') + 1)}`);
  }
  return candidates;
}

/** The receive list entries that match a sender (its address, its `@domain`), in core/hold.ts's shape. */
export async function getReceiveListMatch(
  db: Db,
  tenantId: string,
  sender: string,
): Promise<ReceiveListMatch> {
  const candidates = [...entryCandidates([sender])];
  const items = await batchGetItems(
    db,
    (['block', 'allow'] as const).flatMap((kind) =>
      candidates.map((c) => listEntryKey(tenantId, { direction: 'receive', kind }, c)),
    ),
  );
  const entries = items.map(fromItem);
  const allows = entries.filter((e) => e.kind === 'allow');
  return {
    block: entries.some((e) => e.kind === 'block'),
    ...(allows.length ? { allow: { unauthenticated: allows.some((e) => e.unauthenticated === true) } } : {}),
  };
}
