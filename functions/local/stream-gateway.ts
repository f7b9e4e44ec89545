import { createHash } from 'node:crypto';
import { type IncomingMessage, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { type WebSocket, WebSocketServer } from 'ws';
import { errorResponse } from '../api/http.ts';
import { admitStream, type StreamGrant } from '../api/stream/admit.ts';
import { closeStream, openStream } from '../api/stream/connect.ts';
import {
  type PostResult,
  STREAM_HEARTBEAT_MS,
  STREAM_IDLE_MS,
  STREAM_MAX_DURATION_MS,
  STREAM_SLOW_BYTES,
} from '../core/stream.ts';
import type { Deps } from '../deps.ts';
import { portsFor } from '../lambda-ports.ts';
import { errorFields } from '../log.ts';
import { gatewayConnections } from '../store/stream.store.ts';
import type { StreamConnections } from '../stream/connections.ts';
import { streamFanOut } from '../stream/fan-out.ts';
import { streamTick } from '../stream/tick.ts';
import { LocalStreamPoller } from './stream.ts';

/** The local gateway's settings (tests shrink the times and the bound). */
export interface LocalStreamOptions {
  /** Unread bytes a client may leave before it is a slow consumer (default STREAM_SLOW_BYTES). */
  slowBytes?: number;
  /** The schedule's period: heartbeats, ended keys, catch-up (default STREAM_HEARTBEAT_MS). */
  heartbeatMs?: number;
  /** API Gateway's idle timeout and maximum age, as `npm start` keeps them (defaults: 10 min, 2 h). */
  idleMs?: number;
  maxDurationMs?: number;
  /** How often DynamoDB Local's stream is polled (default 25 ms). */
  pollMs?: number;
}

interface Socket {
  ws: WebSocket;
  tenantId: string;
  /** Bytes posted, and bytes the client has read (the payload of its last pong): what it left unread. */
  posted: number;
  read: number;
  pinged: boolean;
  idle?: NodeJS.Timeout;
  maxAge?: NodeJS.Timeout;
}

/**
 * The stream on `npm start` (docs/guides/stream.md): API Gateway's part played by the `ws` package
 * behind the local HTTP server's upgrade of `GET /v1/stream` — the same admit and connect as the
 * `$connect` authorizer and route, the same fan-out fed by DynamoDB Local's stream, the same
 * schedule on a timer — and API Gateway's limits kept: 10 minutes idle, 2 hours at most, and a
 * bound on what a client leaves unread (measured by a ping after posts: a client's WebSocket
 * answers it once it has read everything before it).
 */
export class LocalStreamGateway implements StreamConnections {
  readonly gateway: string;
  private readonly wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });
  private readonly sockets = new Map<string, Socket>();
  private poller?: LocalStreamPoller;
  private timer?: NodeJS.Timeout;
  private ticking?: Promise<void>;
  private stopping?: Promise<void>;

  constructor(
    private readonly deps: Deps,
    private readonly opts: LocalStreamOptions & { endpoint: string; stateDir: string },
  ) {
    // One name per state directory and table: a restart on the same state finds its own leftovers.
    this.gateway = `local-${createHash('sha256').update(`${opts.stateDir}\n${deps.db.table}`).digest('hex').slice(0, 12)}`;
  }

  /** Forget the connections a previous run left, then read the table's stream and start the schedule. */
  async start(): Promise<void> {
    const stale = await gatewayConnections(this.deps.db, this.gateway);
    await Promise.all(
      stale.map((c) => closeStream(portsFor(this.deps, 'stream-connect'), c.tenant_id, c.connection_id)),
    );
    const fanOut = portsFor(this.deps, 'stream-fan-out');
    this.poller = new LocalStreamPoller(this.deps.db, {
      endpoint: this.opts.endpoint,
      handler: (records) => streamFanOut(fanOut, this, records),
      log: this.deps.log,
      pollMs: this.opts.pollMs ?? 25,
    });
    await this.poller.start();
    const period = this.opts.heartbeatMs ?? STREAM_HEARTBEAT_MS;
    this.timer = setInterval(() => {
      this.ticking ??= streamTick(fanOut, this, period)
        .catch((err) => this.deps.log.error('stream schedule failed', errorFields(err)))
        .finally(() => {
          this.ticking = undefined;
        });
    }, period);
    this.timer.unref();
  }

  /** The upgrade of `GET /v1/stream`: admitted (else the refusal's status and JSON, no socket), recorded, open. */
  async upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const connectionId = `lc_${this.deps.newId()}`;
    let grant: StreamGrant;
    try {
      grant = await admitStream(portsFor(this.deps, 'stream-authorizer'), {
        connectionId,
        authorization: req.headers.authorization,
        query: Object.fromEntries(url.searchParams),
      });
    } catch (err) {
      const res = errorResponse(err, `req_${connectionId}`, this.deps.log);
      const body = String(res.body ?? '');
      socket.end(
        `HTTP/1.1 ${res.statusCode} ${STATUS_CODES[res.statusCode ?? 500]}\r\ncontent-type: application/json\r\n` +
          `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
      );
      return;
    }
    // As API Gateway's $connect: the connection is recorded before the socket opens, so a fan-out
    // or the schedule that runs once the client sees it open finds it.
    try {
      await openStream(portsFor(this.deps, 'stream-connect'), this.gateway, connectionId, grant);
    } catch (err) {
      this.deps.log.error('stream connect failed', errorFields(err));
      socket.end('HTTP/1.1 500 Internal Server Error\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
      return;
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => this.opened(ws, connectionId, grant));
  }

  private opened(ws: WebSocket, connectionId: string, grant: StreamGrant): void {
    const s: Socket = { ws, tenantId: grant.tenant_id, posted: 0, read: 0, pinged: false };
    this.sockets.set(connectionId, s);
    ws.on('error', () => undefined);
    ws.on('message', () => this.touch(s));
    ws.on('pong', (data) => this.ponged(s, Number(data.toString())));
    ws.on('close', () => {
      clearTimeout(s.idle);
      clearTimeout(s.maxAge);
      this.sockets.delete(connectionId);
      // A stop closes every socket while DynamoDB Local may be stopping too: their items are left
      // for the next start on this state, which forgets this gateway's leftovers first.
      if (this.stopping) return;
      closeStream(portsFor(this.deps, 'stream-connect'), grant.tenant_id, connectionId).catch((err) =>
        this.deps.log.warn('stream disconnect not recorded', errorFields(err)),
      );
    });
    s.maxAge = setTimeout(
      () => ws.close(1001, 'going_away'),
      this.opts.maxDurationMs ?? STREAM_MAX_DURATION_MS,
    );
    s.maxAge.unref();
    this.touch(s);
  }

  /** API Gateway's idle timeout: a frame either way starts it again. */
  private touch(s: Socket) {
    clearTimeout(s.idle);
    s.idle = setTimeout(() => s.ws.close(1001, 'idle'), this.opts.idleMs ?? STREAM_IDLE_MS);
    s.idle.unref();
  }

  private ponged(s: Socket, read: number) {
    s.read = Math.max(s.read, Number.isFinite(read) ? read : 0);
    s.pinged = false;
    if (s.posted > s.read) this.ping(s);
  }

  /** One ping at a time, carrying the bytes posted before it. */
  private ping(s: Socket) {
    if (s.pinged) return;
    s.pinged = true;
    s.ws.ping(String(s.posted));
  }

  async post(connectionId: string, text: string): Promise<PostResult> {
    const s = this.sockets.get(connectionId);
    if (!s || s.ws.readyState !== s.ws.OPEN) return 'gone';
    if (s.posted - s.read > (this.opts.slowBytes ?? STREAM_SLOW_BYTES)) return 'slow';
    s.ws.send(text);
    s.posted += Buffer.byteLength(text);
    this.ping(s);
    this.touch(s);
    return 'ok';
  }

  async close(connectionId: string, lastFrame: string, code: number): Promise<void> {
    const s = this.sockets.get(connectionId);
    if (!s || s.ws.readyState !== s.ws.OPEN) return;
    s.ws.send(lastFrame);
    s.ws.close(code, String((JSON.parse(lastFrame) as { reason?: string }).reason ?? ''));
  }

  /** Open sockets on this gateway (a test's or the start banner's view). */
  get open(): number {
    return this.sockets.size;
  }

  /**
   * Stop (once; a second call waits for the first): every socket closed as going away (clients
   * resume from their last event id).
   */
  stop(): Promise<void> {
    this.stopping ??= this.shutDown();
    return this.stopping;
  }

  private async shutDown(): Promise<void> {
    clearInterval(this.timer);
    const sockets = [...this.sockets.values()];
    const closed = Promise.all(sockets.map((s) => new Promise((r) => s.ws.once('close', r))));
    for (const s of sockets) s.ws.close(1001, 'going_away');
    await Promise.race([closed, new Promise((r) => setTimeout(r, 1000))]);
    for (const s of this.sockets.values()) s.ws.terminate();
    await new Promise<void>((r) => this.wss.close(() => r()));
    await this.poller?.stop();
    await this.ticking;
  }
}
