import { type EventReader, eventSelected } from '../core/event-access.ts';
import {
  afterPost,
  closeFrame,
  eventFrameText,
  STREAM_CLOSE,
  STREAM_LEASE_MS,
  STREAM_PAGE,
  STREAM_SKIP_WRITE,
  type StreamCloseReason,
  toEventView,
} from '../core/stream.ts';
import type { BaseDeps } from '../deps.ts';
import { eventsOf, type OutboxEvent, slotRef, tenantFeed } from '../store/events.store.ts';
import { type FeedPage, type FeedSlot, readFeed } from '../store/feed.store.ts';
import {
  advanceConnection,
  dropConnection,
  leaseConnection,
  type StreamConnection,
} from '../store/stream.store.ts';
import type { StreamConnections } from './connections.ts';

/**
 * Sending a tenant's events to one stream, in feed order, once (docs/design/stream.md): the
 * fan-out takes the connection's lease, reads the feed after its position, posts the events its key
 * may read and its filter selects, and moves its position on by a write only the lease's holder can
 * make; a second fan-out woken at the same time finds the lease held and leaves the connection to
 * the first, which reads the feed once more after it lets go.
 */

export type StreamDeps = Pick<BaseDeps, 'db' | 'clock' | 'newId' | 'log' | 'metrics'>;

/** One wake of the fan-out for a tenant: its reads, shared by the tenant's connections. */
export interface Wake {
  deps: StreamDeps;
  connections: StreamConnections;
  tenantId: string;
  /** Rounds stop starting after this (the invocation's budget); the rest waits for the next wake. */
  until: number;
  /** The feed after `after` (STREAM_PAGE slots), read once per wake unless `fresh`. */
  page(after: number, fresh?: boolean): Promise<FeedPage>;
  event(slot: FeedSlot): Promise<OutboxEvent | undefined>;
}

export function wakeFor(
  deps: StreamDeps,
  connections: StreamConnections,
  tenantId: string,
  until: number,
): Wake {
  const pages = new Map<number, Promise<FeedPage>>();
  const events = new Map<string, Promise<OutboxEvent | undefined>>();
  const feed = tenantFeed(tenantId);
  return {
    deps,
    connections,
    tenantId,
    until,
    page: (after, fresh = false) => {
      const cached = pages.get(after);
      if (cached && !fresh) return cached;
      const read = readFeed(deps.db, feed, { after, limit: STREAM_PAGE, now: deps.clock() });
      pages.set(after, read);
      return read;
    },
    event: (slot) => {
      const id = String(slot.names.event_id);
      if (!events.has(id))
        events.set(
          id,
          eventsOf(deps.db, tenantId, [slot]).then((e) => e[0]),
        );
      return events.get(id)!;
    },
  };
}

const readerOf = (c: StreamConnection): EventReader => ({
  ...(c.identity_ids ? { identity_ids: c.identity_ids } : {}),
  ...(c.sees_held ? { sees_held: true } : {}),
});
const picked = (c: StreamConnection, page: FeedPage) =>
  page.slots.filter((s) => eventSelected(readerOf(c), c.filter, slotRef(s.names)));

/** Something to send, or so far behind on nothing for it that its position is worth a write. */
const hasWork = (c: StreamConnection, page: FeedPage) =>
  picked(c, page).length > 0 || page.position - c.position >= STREAM_SKIP_WRITE;

/**
 * Send the connection what the feed has for it after its position. After letting its lease go it
 * reads the feed again (fresh): an event committed while it held the lease woke another fan-out,
 * which found the lease held and left the event to this one.
 */
export async function deliverTo(wake: Wake, c: StreamConnection): Promise<void> {
  let at = c;
  for (let turn = 0; turn < 4 && wake.deps.clock() < wake.until; turn++) {
    if (!hasWork(at, await wake.page(at.position, turn > 0))) return;
    const token = wake.deps.newId();
    const held = await leaseConnection(wake.deps.db, at, token, wake.deps.clock(), STREAM_LEASE_MS);
    if (!held) return;
    const end = await postRounds(wake, held, token);
    if (end === undefined) return;
    at = { ...held, position: end.position, last_event_id: end.last };
  }
}

/** Rounds of posts under the lease, each ending with its position written; undefined: stop here. */
async function postRounds(
  wake: Wake,
  c: StreamConnection,
  token: string,
): Promise<{ position: number; last?: string } | undefined> {
  let position = c.position;
  let last = c.last_event_id;
  for (;;) {
    const page = await wake.page(position);
    const sent = await postPage(wake, c, page, position, last);
    if (sent === 'ended') return undefined;
    last = sent.last;
    const more = sent.complete && page.more && wake.deps.clock() < wake.until;
    const leaseUntil = more ? wake.deps.clock() + STREAM_LEASE_MS : 0;
    const kept = await advanceConnection(wake.deps.db, c, token, {
      position: sent.position,
      lastEventId: last,
      leaseUntil,
    });
    if (!kept || !sent.complete) return undefined;
    position = sent.position;
    if (!more) return { position, last };
  }
}

/**
 * Post the page's events for this connection in order: where it got to (`complete`: the whole
 * page; else the number of the last event posted, the rest left for a later round), or `ended`
 * (the connection was dropped or closed).
 */
async function postPage(
  wake: Wake,
  c: StreamConnection,
  page: FeedPage,
  from: number,
  last: string | undefined,
): Promise<{ complete: boolean; position: number; last?: string } | 'ended'> {
  let position = from;
  let sent = last;
  for (const slot of picked(c, page)) {
    const event = await wake.event(slot);
    if (!event) continue;
    const step = await postFrame(wake, c, eventFrameText(toEventView(event)));
    if (step === 'later') return { complete: false, position, last: sent };
    if (step === 'drop') return forgetGone(wake, c);
    if (step === 'close') return closeWith(wake, c, 'slow_consumer', sent).then(() => 'ended' as const);
    wake.deps.metrics.add('stream_frames', { type: 'event' });
    wake.deps.metrics.add('stream_fanout_lag', {}, Math.max(0, wake.deps.clock() - event.created_at));
    sent = event.id;
    position = slot.n;
  }
  return { complete: true, position: page.position, last: sent };
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One frame, retried while the gateway throttles (core/stream.ts › afterPost decides). */
export async function postFrame(
  wake: Pick<Wake, 'deps' | 'connections'>,
  c: Pick<StreamConnection, 'connection_id' | 'connected_at'>,
  text: string,
): Promise<'next' | 'later' | 'drop' | 'close'> {
  for (let throttledInARow = 1; ; throttledInARow++) {
    const result = await wake.connections.post(c.connection_id, text);
    const step = afterPost(result, { connectedAt: c.connected_at, now: wake.deps.clock(), throttledInARow });
    if (step !== 'retry') return step;
    await pause(50 * 2 ** throttledInARow);
  }
}

/** A connection the gateway no longer has: its item goes (its place on the count with it). */
export async function forgetGone(wake: Pick<Wake, 'deps'>, c: StreamConnection): Promise<'ended'> {
  await dropConnection(wake.deps.db, c.tenant_id, c.connection_id);
  wake.deps.metrics.add('stream_closed', { reason: 'gone' });
  return 'ended';
}

/** Close a stream with its reason: its last frame (the code, the last event id sent), the socket, its item. */
export async function closeWith(
  wake: Pick<Wake, 'deps' | 'connections'>,
  c: StreamConnection,
  reason: StreamCloseReason,
  after: string | undefined,
): Promise<void> {
  await wake.connections.close(
    c.connection_id,
    JSON.stringify(closeFrame(reason, after)),
    STREAM_CLOSE[reason],
  );
  await dropConnection(wake.deps.db, c.tenant_id, c.connection_id);
  wake.deps.metrics.add('stream_closed', { reason });
}
