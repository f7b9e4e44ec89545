import type { Db } from './db.ts';
import { putOnce } from './db.ts';

/**
 * The tenant's events outbox (`T#{ten}` / `E#{ulid}`): every event pmail emits, in
 * order. Webhook delivery and `GET /v1/events` read it. Ids are ULIDs (`evt_…`), or
 * deterministic where one writer may run twice, so a retried writer never emits twice.
 */
export interface OutboxEvent {
  id: string;
  type: string;
  tenant_id: string;
  created_at: number;
  data: Record<string, unknown>;
}

const KEEP_MS = 30 * 24 * 3600 * 1000;

function item(e: OutboxEvent) {
  return {
    pk: `T#${e.tenant_id}`,
    sk: `E#${e.id}`,
    type: 'event',
    event: e,
    ttl: Math.ceil((e.created_at + KEEP_MS) / 1000),
  };
}

/**
 * A TransactWriteItem that appends the event (idempotent: it must not exist yet). A transaction
 * (docs/lost-answers.md): the table's client resends it with its ClientRequestToken, and DynamoDB applies it
 * once.
 */
export function eventPutItem(db: Db, e: OutboxEvent) {
  return { Put: { TableName: db.table, Item: item(e), ConditionExpression: 'attribute_not_exists(pk)' } };
}

/**
 * Append one event outside a transaction; false if that id was already emitted. A create
 * (docs/lost-answers.md): `putOnce`, so a resend after a lost answer finds this call's token and
 * answers true, and an id another writer emitted answers false.
 */
export async function appendEvent(db: Db, e: OutboxEvent): Promise<boolean> {
  return (await putOnce(db, { Item: item(e) })).written;
}

/**
 * The tenant's events in id order, strictly after `after` (an event id) and below `before` (an id
 * prefix: `evt_` + a ULID time part), at most `limit`. Ids are ULIDs, so the order is time order;
 * `more` tells whether another settled event followed the page.
 */
export async function listEvents(
  db: Db,
  tenantId: string,
  opts: { after?: string; limit: number; before?: string },
): Promise<{ data: OutboxEvent[]; more: boolean }> {
  const out = await db.query({
    TableName: db.table,
    KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
    ExpressionAttributeValues: {
      ':pk': `T#${tenantId}`,
      ':from': opts.after ? `E#${opts.after}\u0000` : 'E#',
      // Only settled events: ids below `before` (an id prefix), which later writes cannot take.
      ':to': opts.before ? `E#${opts.before}` : 'E#\uffff',
    },
    Limit: opts.limit + 1,
  });
  const events = (out.Items ?? []).map((i) => i.event as OutboxEvent);
  return { data: events.slice(0, opts.limit), more: events.length > opts.limit };
}

/** One event of the tenant's outbox by id (consistent read), or undefined once it has expired. */
export async function getEvent(db: Db, tenantId: string, eventId: string): Promise<OutboxEvent | undefined> {
  const out = await db.get({
    TableName: db.table,
    Key: { pk: `T#${tenantId}`, sk: `E#${eventId}` },
    ConsistentRead: true,
  });
  return out.Item?.event as OutboxEvent | undefined;
}
