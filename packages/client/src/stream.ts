import { PmailError } from './errors.ts';
import type { components } from './schema.ts';

export type StreamEvent = components['schemas']['Event'];
export type StreamFrame = components['schemas']['StreamFrame'];
type CloseFrame = components['schemas']['StreamCloseFrame'];

/** The part of a WebSocket the stream uses: the browser's, Node 22's global one, or the `ws` package's. */
export interface WebSocketLike {
  readonly readyState: number;
  onopen: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  onclose: ((ev: { code: number; reason: string }) => void) | null;
  onerror: ((ev: unknown) => void) | null;
  close(code?: number, reason?: string): void;
}

/** A WebSocket constructor; Node's (the global one from 22, or `ws`) takes `{ headers }` as its second argument. */
export type WebSocketConstructor = new (
  url: string,
  options?: { headers?: Record<string, string> },
) => WebSocketLike;

export interface StreamOptions {
  /** Only this identity's events. */
  identityId?: string;
  /** Only this conversation's events. */
  threadId?: string;
  /** Event types; `message.*` matches every type under `message.`. */
  types?: string[];
  /** Start after this event id (the last one you handled); without it, from what is committed now on. */
  after?: string;
  /**
   * The stream's URL (the stack output `StreamUrl`; `stream` in `.pmail/local.json`). Without it
   * each connect asks the API for a ticket, whose answer names the URL.
   */
  url?: string;
  /**
   * `header`: the key as `Authorization: Bearer` on the upgrade (Node; needs `url`). `ticket`: a
   * ticket from `POST /v1/stream/tickets` on each connect (browsers, which cannot set a header).
   * Default: `header` where `url` is given and no `document` exists, else `ticket`.
   */
  auth?: 'header' | 'ticket';
  /** The WebSocket class (Node 20: the `ws` package's); the global one by default. */
  WebSocket?: WebSocketConstructor;
  /** Ends the iteration (the socket is closed). */
  signal?: AbortSignal;
  /** Reconnect waits: doubling from `baseMs` (default 250) to `maxMs` (default 30 000), with jitter. */
  backoff?: { baseMs?: number; maxMs?: number };
  /** No frame for this long (default 150 000: two and a half heartbeats): the socket is dropped and opened again. */
  silenceMs?: number;
  /** Event ids remembered to drop a repeat (default 10 000). */
  remember?: number;
  /** Called each time a socket opens (first and after a reconnect): what is committed from then on arrives. */
  onOpen?: () => void;
}

/** The stream closed for a reason a reconnect cannot cure (a key revoked or ended, an `after` too old). */
export class PmailStreamClosedError extends Error {
  readonly code: number;
  readonly reason: string;
  /** The last event id the stream sent before it closed. */
  readonly after: string | null;
  constructor(frame: CloseFrame) {
    super(frame.message);
    this.name = 'PmailStreamClosedError';
    this.code = frame.code;
    this.reason = frame.reason;
    this.after = frame.after;
  }
}

/** Close codes after which reconnecting cannot help: thrown out of the iteration. */
const FINAL = new Set(['key_revoked', 'key_expired', 'after_too_old']);

/** What the stream needs of the client: the key and a way to get a ticket. */
export interface StreamPorts {
  apiKey: string;
  ticket(body: components['schemas']['StreamTicketRequest']): Promise<components['schemas']['StreamTicket']>;
  sleep(ms: number): Promise<void>;
  random(): number;
}

/**
 * The events of the stream as an async iterator (docs/guides/stream.md › Clients): it connects,
 * yields each event once, and when the socket closes — a network drop, API Gateway's 10-minute
 * idle or 2-hour limit, a restart, a slow-consumer close — reconnects with back-off after the last
 * event it yielded. The wire may repeat an event after a fan-out crashed between posting it and
 * recording it sent: a repeat of an id it yielded is dropped.
 */
export async function* eventStream(
  ports: StreamPorts,
  opts: StreamOptions = {},
): AsyncGenerator<StreamEvent> {
  const seen = new Set<string>();
  let after = opts.after;
  let failures = 0;
  while (!opts.signal?.aborted) {
    const socket = await connect(ports, opts, after).catch(async (err) => {
      if (refusedForGood(err)) throw err;
      return undefined;
    });
    const state = { opened: false };
    if (socket) {
      for await (const frame of frames(socket, opts, state)) {
        if (frame.type === 'close') {
          if (FINAL.has(frame.reason)) throw new PmailStreamClosedError(frame);
          continue;
        }
        if (frame.type !== 'event' || seen.has(frame.event.id)) continue;
        remember(seen, frame.event.id, opts.remember ?? 10_000);
        after = frame.event.id;
        yield frame.event;
      }
    }
    if (opts.signal?.aborted) return;
    failures = state.opened ? 0 : failures + 1;
    const base = opts.backoff?.baseMs ?? 250;
    const wait = Math.min(opts.backoff?.maxMs ?? 30_000, base * 2 ** failures);
    await ports.sleep(wait * (0.5 + ports.random() / 2));
  }
}

/** A ticket refused with a 4xx other than 429 (the key, its permission, the filter): retrying cannot help. */
function refusedForGood(err: unknown): boolean {
  const status = err instanceof PmailError ? err.status : (err as { status?: unknown } | undefined)?.status;
  return typeof status === 'number' && status < 500 && status !== 429;
}

function remember(seen: Set<string>, id: string, max: number) {
  seen.add(id);
  if (seen.size > max) seen.delete(seen.values().next().value as string);
}

async function connect(
  ports: StreamPorts,
  opts: StreamOptions,
  after: string | undefined,
): Promise<WebSocketLike> {
  const Socket = opts.WebSocket ?? (globalThis as unknown as { WebSocket?: WebSocketConstructor }).WebSocket;
  if (!Socket) throw new Error('No WebSocket here: pass one as `WebSocket` (Node 20: the ws package).');
  const filter = {
    ...(opts.identityId ? { identity_id: opts.identityId } : {}),
    ...(opts.threadId ? { thread_id: opts.threadId } : {}),
    ...(opts.types ? { types: opts.types } : {}),
  };
  const byHeader =
    (opts.auth ?? (opts.url && !('document' in globalThis) ? 'header' : 'ticket')) === 'header';
  if (byHeader) {
    if (!opts.url) throw new Error('auth: "header" needs the stream\'s url.');
    const query = new URLSearchParams();
    if (filter.identity_id) query.set('identity_id', filter.identity_id);
    if (filter.thread_id) query.set('thread_id', filter.thread_id);
    if (filter.types) query.set('types', filter.types.join(','));
    if (after) query.set('after', after);
    return new Socket(`${opts.url}?${query}`, { headers: { authorization: `Bearer ${ports.apiKey}` } });
  }
  const ticket = await ports.ticket({ ...filter, ...(after ? { after } : {}) });
  const url = opts.url ?? ticket.url;
  if (!url) throw new Error('The API named no stream URL: pass `url`.');
  return new Socket(`${url}?ticket=${encodeURIComponent(ticket.ticket)}`);
}

/** The socket's frames until it closes (or goes silent, or the signal aborts). */
async function* frames(
  socket: WebSocketLike,
  opts: StreamOptions,
  state: { opened: boolean },
): AsyncGenerator<StreamFrame> {
  const queue: StreamFrame[] = [];
  let done = false;
  let wake: () => void = () => undefined;
  const push = () => wake();
  let silence: ReturnType<typeof setTimeout> | undefined;
  const quiet = () => {
    clearTimeout(silence);
    silence = setTimeout(() => socket.close(), opts.silenceMs ?? 150_000);
  };
  const abort = () => socket.close();
  opts.signal?.addEventListener('abort', abort);
  socket.onopen = () => {
    state.opened = true;
    quiet();
    opts.onOpen?.();
  };
  socket.onmessage = (ev) => {
    quiet();
    try {
      queue.push(JSON.parse(String(ev.data)) as StreamFrame);
    } catch {
      // Not a frame of pmail's: ignored.
    }
    push();
  };
  socket.onclose = () => {
    done = true;
    push();
  };
  socket.onerror = () => undefined;
  try {
    for (;;) {
      while (queue.length > 0) yield queue.shift()!;
      if (done) return;
      await new Promise<void>((r) => {
        wake = r;
      });
    }
  } finally {
    clearTimeout(silence);
    opts.signal?.removeEventListener('abort', abort);
    if (!done) socket.close();
  }
}
