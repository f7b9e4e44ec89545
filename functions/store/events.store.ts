import { type EventRef, refOf } from '../core/event-access.ts';
import { EVENT_KEEP_MS } from '../core/feed.ts';
import { batchedReads } from './batch-reads.ts';
import { type Db, transactGuarded } from './db.ts';
import { type Feed, type FeedSlot, onFeed, readFeed, type SlotNames, transactAt } from './feed.store.ts';

/**
 * The tenant's events outbox (`T#{ten}` / `E#{evt}`): every event pmail emits. Webhook delivery,
 * `GET /v1/events` and MCP `list_events` read it. Ids are ULIDs (`evt_…`), or deterministic where
 * one writer may run twice, so a retried writer never emits twice. The order readers get is the
 * order the events were committed: each event is positioned on its tenant's feed in the write
 * that commits it (store/feed.store.ts, docs/design/ordering.md), and keeps its number (`pos`).
 */
export interface OutboxEvent {
  id: string;
  type: string;
  tenant_id: string;
  created_at: number;
  data: Record<string, unknown>;
}

/** A tenant's events in commit order. */
export const tenantFeed = (tenantId: string): Feed => ({
  pk: `T#${tenantId}`,
  prefix: 'EF#',
  keepMs: EVENT_KEEP_MS,
});

const eventKey = (tenantId: string, eventId: string) => ({ pk: `T#${tenantId}`, sk: `E#${eventId}` });

function item(e: OutboxEvent) {
  return {
    ...eventKey(e.tenant_id, e.id),
    type: 'event',
    event: e,
    ttl: Math.ceil((e.created_at + EVENT_KEEP_MS) / 1000),
  };
}

/**
 * A TransactWriteItem that appends the event (idempotent: it must not exist yet), positioned on
 * its tenant's feed: the transaction goes through `transactAt`, which takes its number at `now`
 * (the clock at the commit) and writes its slot. The slot names the event and its reference
 * (core/event-access.ts › refOf: type, identity, thread), so readers filter on slots alone. A
 * transaction (docs/lost-answers.md): the table's client resends it with its ClientRequestToken,
 * and DynamoDB applies it once.
 */
export function eventPutItem(db: Db, e: OutboxEvent, now: number) {
  const ref = refOf(e);
  return onFeed(
    { Put: { TableName: db.table, Item: item(e), ConditionExpression: 'attribute_not_exists(pk)' } },
    {
      feed: tenantFeed(e.tenant_id),
      now,
      names: { event_id: e.id, event_type: ref.type, identity_id: ref.identity_id, thread_id: ref.thread_id },
    },
  );
}

/** The reference of the event a slot of the tenant's feed positions (what `eventPutItem` wrote on it). */
export function slotRef(names: SlotNames): EventRef {
  return { type: String(names.event_type ?? ''), identity_id: names.identity_id, thread_id: names.thread_id };
}

/**
 * Append one event with its position (`now`: the clock at the commit); false if that id was
 * already emitted. A transaction (docs/lost-answers.md): the event and its slot, resent by the
 * table's client with its ClientRequestToken, so a resend after a lost answer is answered as the
 * first send (true), and an id another writer emitted answers false.
 */
export async function appendEvent(db: Db, e: OutboxEvent, now: number): Promise<boolean> {
  return transactGuarded(db, [eventPutItem(db, e, now)], (items) => transactAt(db, items));
}

/** One event of the tenant's outbox by id (consistent read), or undefined once it has expired. */
export async function getEvent(db: Db, tenantId: string, eventId: string): Promise<OutboxEvent | undefined> {
  return (await storedEvent(db, tenantId, eventId))?.event as OutboxEvent | undefined;
}

async function storedEvent(db: Db, tenantId: string, eventId: string) {
  const out = await db.get({ TableName: db.table, Key: eventKey(tenantId, eventId), ConsistentRead: true });
  return out.Item;
}

/**
 * Where reading on after an event starts: its number in the feed. An event written before events
 * had numbers, an unknown id and an expired one all start at 0, the feed's beginning: every event
 * with a number was committed after them (docs/guides/events.md).
 */
export async function eventPosition(db: Db, tenantId: string, eventId: string): Promise<number> {
  return (await eventPlace(db, tenantId, eventId)) ?? 0;
}

/** The event's number in the feed (0: one written before events had numbers), or undefined: no such event. */
export async function eventPlace(db: Db, tenantId: string, eventId: string): Promise<number | undefined> {
  const stored = await storedEvent(db, tenantId, eventId);
  if (!stored) return undefined;
  return typeof stored.pos === 'number' ? stored.pos : 0;
}

/**
 * The tenant's events after feed position `after`, in commit order, at most `limit` of those whose
 * reference `match` accepts (all by default): store/feed.store.ts › readFeed, `now` sealing gaps
 * older than FEED_SEAL_AFTER_MS. `position` is where the next read starts; `more`: another event
 * follows the page. Events that expired under their slot are left out.
 */
export async function listEventsAfter(
  db: Db,
  tenantId: string,
  opts: { after: number; limit: number; now: number; match?: (ref: EventRef) => boolean },
): Promise<{ data: { position: number; event: OutboxEvent }[]; position: number; more: boolean }> {
  const match = opts.match;
  const page = await readFeed(db, tenantFeed(tenantId), {
    ...opts,
    match: match && ((names) => match(slotRef(names))),
  });
  const events = await eventsOf(db, tenantId, page.slots);
  const data = page.slots.flatMap((s, i) => (events[i] ? [{ position: s.n, event: events[i] }] : []));
  return { data, position: page.position, more: page.more };
}

/** The events the slots position, in their order (undefined where one expired), read in batches. */
export async function eventsOf(
  db: Db,
  tenantId: string,
  slots: readonly FeedSlot[],
): Promise<(OutboxEvent | undefined)[]> {
  const reads = batchedReads(db);
  return Promise.all(slots.map((s) => getEvent(reads, tenantId, String(s.names.event_id))));
}
