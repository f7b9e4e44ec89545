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
  advanceCursor,
  dropConnection,
  leaseCursor,
  type StreamConnection,
  type StreamCursor,
  type StreamMark,
  standing,
  streamsOf,
} from '../store/stream.store.ts';
import type { StreamConnections } from './connections.ts';

/**
 * Sending a tenant's events to its streams on one gateway, in feed order, once
 * (docs/design/stream.md): the fan-out takes the lease of the gateway's cursor for the tenant,
 * reads the feed after each connection's position (one read per position, shared), posts the
 * events each key may read and each filter selects, and moves every position on by one write only
 * the lease's holder can make; a second fan-out woken at the same time finds the lease held and
 * leaves the work to the first, which looks once more after it lets go.
 */

export type StreamDeps = Pick<BaseDeps, 'db' | 'clock' | 'newId' | 'log' | 'metrics'>;

/** One wake of the fan-out for a tenant: its reads, shared by the tenant's connections. */
export interface Wake {
  deps: StreamDeps;
  connections: StreamConnections;
  tenantId: string;
  /** Rounds stop starting after this (the invocation's budget); the rest waits for the next wake. */
  until: number;
  /**
   * The feed after `after` (STREAM_PAGE slots), read once per wake; with `since` (a `mark()`), a
   * read issued after that mark, shared by every connection asking for one at the same position.
   */
  page(after: number, since?: number): Promise<FeedPage>;
  /** A point in the wake's order of reads: a later `page(…, since)` answers only a read issued after it. */
  mark(): number;
  event(slot: FeedSlot): Promise<OutboxEvent | undefined>;
}

export function wakeFor(
  deps: StreamDeps,
  connections: StreamConnections,
  tenantId: string,
  until: number,
): Wake {
  // Each read is stamped with the count of marks and reads before it was issued.
  let order = 0;
  const pages = new Map<number, { stamp: number; read: Promise<FeedPage> }>();
  const events = new Map<string, Promise<OutboxEvent | undefined>>();
  const feed = tenantFeed(tenantId);
  return {
    deps,
    connections,
    tenantId,
    until,
    page: (after, since) => {
      const cached = pages.get(after);
      if (cached && (since === undefined || cached.stamp > since)) return cached.read;
      const read = readFeed(deps.db, feed, { after, limit: STREAM_PAGE, now: deps.clock() });
      pages.set(after, { stamp: ++order, read });
      return read;
    },
    mark: () => ++order,
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

/** Run `fn` over `items`, at most `width` at once. */
export async function eachAtMost<T>(
  items: T[],
  width: number,
  fn: (item: T) => Promise<unknown>,
): Promise<void> {
  const queue = [...items];
  const worker = async () => {
    for (let item = queue.shift(); item !== undefined; item = queue.shift()) await fn(item);
  };
  await Promise.all(Array.from({ length: Math.min(width, queue.length) }, worker));
}

/** Connections posted to at once within a round. */
export const PER_ROUND = 64;

/** The tenant's connections and this gateway's cursor, as `streamsOf` reads them. */
export type Streams = Awaited<ReturnType<typeof streamsOf>>;

/** Which of the tenant's connections this wake posts to (not refused, not closed by it). */
export type Postable = (c: StreamConnection) => boolean;

const postableOf = (wake: Wake, view: Streams, postable: Postable) =>
  view.connections
    .filter((c) => c.gateway === wake.connections.gateway && postable(c))
    .map((c) => standing(c, view.cursor));

/**
 * Send each of the tenant's connections on this gateway what the feed has for it after its
 * position. After letting the cursor's lease go it lists the connections and reads the feed again
 * (both issued after the release): an event committed, or a connection opened, while it held the
 * lease woke another fan-out, which found the lease held and left the work to this one. With
 * `prune`, the cursor forgets the connections no longer listed (a listing read after the lease:
 * every connection a mark names was put before it).
 */
export async function deliverAll(
  wake: Wake,
  listed: Streams,
  postable: Postable,
  opts: { prune?: boolean } = {},
): Promise<void> {
  const { db, clock, newId } = wake.deps;
  const gateway = wake.connections.gateway;
  let view = listed;
  let released: number | undefined;
  for (let turn = 0; turn < 4 && clock() < wake.until; turn++) {
    if (turn > 0) view = await streamsOf(db, wake.tenantId, gateway);
    const conns = postableOf(wake, view, postable);
    const work = await Promise.all(conns.map(async (c) => hasWork(c, await wake.page(c.position, released))));
    if (!work.includes(true)) return;
    const token = newId();
    const cursor = await leaseCursor(db, wake.tenantId, gateway, {
      token,
      now: clock(),
      leaseMs: STREAM_LEASE_MS,
    });
    if (!cursor) return;
    const present = opts.prune ? await streamsOf(db, wake.tenantId, gateway) : undefined;
    const listed = present && new Set(present.connections.map((c) => c.connection_id));
    const at = Object.fromEntries(Object.entries(cursor.at).filter(([id]) => !listed || listed.has(id)));
    const held = { connections: (present ?? view).connections, cursor };
    if (!(await postRounds(wake, postableOf(wake, held, postable), at, token))) return;
    released = wake.mark();
  }
}

const markOf = (position: number, last: string | undefined): StreamMark =>
  last === undefined ? { p: position } : { p: position, e: last };

/**
 * Rounds of posts under the cursor's lease, each connection a page a round, each round ending with
 * every position written at once (`at`, the cursor's marks, changed in place); false: the lease was
 * lost, stop here.
 */
async function postRounds(
  wake: Wake,
  conns: StreamConnection[],
  at: StreamCursor['at'],
  token: string,
): Promise<boolean> {
  let live = conns;
  for (;;) {
    const next: StreamConnection[] = [];
    // A round ends well inside the lease its last write (or the lease) gave it.
    const stopAt = wake.deps.clock() + STREAM_LEASE_MS / 2;
    await eachAtMost(live, PER_ROUND, async (c) => {
      const page = await wake.page(c.position);
      const sent = await postPage(wake, c, page, c.position, c.last_event_id, stopAt);
      if (sent === 'ended') {
        delete at[c.connection_id];
        return;
      }
      if (sent.position !== c.position || sent.last !== c.last_event_id)
        at[c.connection_id] = markOf(sent.position, sent.last);
      if ((sent.complete && page.more) || sent.cut)
        next.push({ ...c, position: sent.position, last_event_id: sent.last });
    });
    const more = next.length > 0 && wake.deps.clock() < wake.until;
    const leaseUntil = more ? wake.deps.clock() + STREAM_LEASE_MS : 0;
    const kept = await advanceCursor(wake.deps.db, wake.tenantId, wake.connections.gateway, token, {
      at,
      leaseUntil,
    });
    if (!kept || !more) return kept;
    live = next;
  }
}

/**
 * Post the page's events for this connection in order: where it got to (`complete`: the whole
 * page; else the number of the last event posted, the rest left for a later round; `cut`: the
 * round reached `stopAt`), or `ended` (the connection was dropped or closed).
 */
async function postPage(
  wake: Wake,
  c: StreamConnection,
  page: FeedPage,
  from: number,
  last: string | undefined,
  stopAt: number,
): Promise<{ complete: boolean; cut?: boolean; position: number; last?: string } | 'ended'> {
  let position = from;
  let sent = last;
  for (const slot of picked(c, page)) {
    if (wake.deps.clock() >= stopAt) return { complete: false, cut: true, position, last: sent };
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
