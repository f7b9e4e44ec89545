import { batchedReads } from './batch-reads.ts';
import { type Db, transactGuarded } from './db.ts';
import { eventPutItem, type OutboxEvent } from './events.store.ts';
import { transactAt } from './feed.store.ts';

/**
 * Labels as state (core/labels.ts, docs/guides/receiving.md › Labels): one small item per labelled
 * message (`I#{idn}` / `LB#{msg_…}`) or thread (`I#{idn}` / `LB#{thr_…}`), holding `labels` (a
 * list, in the order they were added) and `v` (its version). A change never touches the message
 * item nor its `version`: a received message can be ~350 KB, its labels item stays under 1 KB, so
 * a change writes 1 write unit (2 in its transaction with its event). Until the first change a
 * message's labels are the ones its send set (`MessageRecord.labels`).
 */
export type LabelTarget = { identityId: string; id: string };

const labelsKey = (t: LabelTarget) => ({ pk: `I#${t.identityId}`, sk: `LB#${t.id}` });

/** A target's labels item as read: its labels and version. */
export interface StoredLabels {
  labels: string[];
  v: number;
}

function fromItem(item: Record<string, unknown> | undefined): StoredLabels | undefined {
  if (!item) return undefined;
  return { labels: (item.labels as string[] | undefined) ?? [], v: Number(item.v ?? 0) };
}

export async function getLabels(
  db: Db,
  t: LabelTarget,
  consistent = false,
): Promise<StoredLabels | undefined> {
  const out = await db.get({ TableName: db.table, Key: labelsKey(t), ConsistentRead: consistent });
  return fromItem(out.Item);
}

/** Many targets' labels items (batched reads), by target id; a target never changed is absent. */
export async function getLabelsOf(db: Db, targets: readonly LabelTarget[]): Promise<Map<string, string[]>> {
  const reads = batchedReads(db);
  const found = await Promise.all(targets.map((t) => getLabels(reads, t)));
  return new Map(targets.flatMap((t, i) => (found[i] ? [[t.id, found[i].labels] as const] : [])));
}

/**
 * Write a target's labels at the version read (`read`: absent when it had no item), with its
 * event positioned on the tenant's feed when there is one: one transaction through `transactAt`.
 * True when written; false when another change committed since the read (the caller reads again
 * and decides again, so no change is lost). A transaction (docs/lost-answers.md): the table's
 * client resends it with its ClientRequestToken, so its own earlier send never refuses it; an
 * answer lost past those resends goes up, and the caller's retry reads the labels as they are.
 */
export async function putLabels(
  db: Db,
  t: LabelTarget,
  change: { read: StoredLabels | undefined; labels: string[]; event?: OutboxEvent; now: number },
): Promise<boolean> {
  const v = (change.read?.v ?? 0) + 1;
  const guard = {
    Put: {
      TableName: db.table,
      Item: { ...labelsKey(t), type: 'labels', labels: change.labels, v },
      ConditionExpression: change.read ? 'v = :v' : 'attribute_not_exists(pk)',
      ...(change.read ? { ExpressionAttributeValues: { ':v': change.read.v } } : {}),
    },
  };
  const items = change.event ? [guard, eventPutItem(db, change.event, change.now)] : [guard];
  return transactGuarded(db, items, (sent) => transactAt(db, sent));
}

/** The delete of a target's labels item, in the transaction that deletes the message (unconditional). */
export function labelsDeleteItem(db: Db, t: LabelTarget) {
  return { Delete: { TableName: db.table, Key: labelsKey(t) } };
}

/** Messages with the labels their labels items hold (a message never changed keeps its send's). */
export async function withStoredLabels<M extends { id: string; identity_id: string; labels: string[] }>(
  db: Db,
  messages: readonly M[],
): Promise<M[]> {
  const stored = await getLabelsOf(
    db,
    messages.map((m) => ({ identityId: m.identity_id, id: m.id })),
  );
  return messages.map((m) => {
    const labels = stored.get(m.id);
    return labels ? { ...m, labels } : m;
  });
}
