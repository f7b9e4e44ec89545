import type { MessageRecord } from '../../functions/core/model.ts';
import type { Db } from '../../functions/store/db.ts';
import { listEventsAfter, type OutboxEvent } from '../../functions/store/events.store.ts';
import { onFeed, transactAt } from '../../functions/store/feed.store.ts';
import { messageFeedEntry, messagePutItem } from '../../functions/store/messages.store.ts';

/**
 * The tenant's events as its feed holds them, in feed order (store/events.store.ts ›
 * listEventsAfter from the beginning): an event committed without its slot is not here. A test
 * reads once its writers are done, so a number without a slot (a writer killed after taking it) is
 * passed over at once, without waiting or sealing it.
 */
export async function listEvents(
  db: Db,
  tenantId: string,
  opts: { limit: number },
): Promise<{ data: OutboxEvent[]; more: boolean }> {
  const page = await listEventsAfter(db, tenantId, {
    after: 0,
    limit: opts.limit,
    now: Number.MAX_SAFE_INTEGER,
  });
  return { data: page.data.map((e) => e.event), more: page.more };
}

/** Store a message that must not exist yet, positioned in its identity's feed as ingest positions one. */
export async function storeMessage(db: Db, m: MessageRecord, now: number): Promise<void> {
  const { Put } = messagePutItem(db, m, 0);
  await transactAt(db, [
    onFeed(
      { Put: { TableName: Put.TableName, Item: Put.Item, ConditionExpression: 'attribute_not_exists(pk)' } },
      messageFeedEntry(m, now),
    ),
  ]);
}

/** An inbound message as ingest stores it, without its raw copy: what a feed positions. */
export function receivedRecord(m: {
  id: string;
  tenantId: string;
  identityId: string;
  subject: string;
  at: number;
}): MessageRecord {
  return {
    id: m.id,
    tenant_id: m.tenantId,
    identity_id: m.identityId,
    thread_id: `thr_${m.id.slice(4)}`,
    direction: 'inbound',
    status: 'received',
    from: { address: 'customer@outside.example' },
    to: [{ address: 'agent@example.test' }],
    cc: [],
    bcc: [],
    reply_to: [],
    subject: m.subject,
    kind: 'transactional',
    labels: [],
    flags: [],
    rfc_message_id: `<${m.id}@outside.example>`,
    raw_key: '',
    raw_size: 0,
    created_at: m.at,
    updated_at: m.at,
    version: 1,
  };
}
