import WebSocket from 'ws';

/** A frame as the stream sends it (docs/guides/stream.md › Frames). */
export interface Frame {
  type: string;
  event?: { id: string; type: string; created_at: string; data: Record<string, any> };
  code?: number;
  reason?: string;
  after?: string | null;
  at?: string;
}

/** A plain `ws` client on the stream: every frame it read, and how it ended. */
export interface StreamClient {
  ws: WebSocket;
  frames: Frame[];
  /** The event frames' events, in arrival order. */
  events(): NonNullable<Frame['event']>[];
  /** Resolves once `n` events have arrived (or rejects after `timeoutMs`). */
  waitForEvents(n: number, timeoutMs?: number): Promise<NonNullable<Frame['event']>[]>;
  /** How the socket closed: its code and reason. */
  closed: Promise<{ code: number; reason: string }>;
  close(): Promise<void>;
}

/**
 * Open the stream at `url` (`ws://…/v1/stream`) with `Authorization: Bearer <key>` (or none, for a
 * ticket in `query`). Resolves once open; rejects with the refusal's status and body.
 */
export function openStream(
  url: string,
  opts: { key?: string; query?: Record<string, string> } = {},
): Promise<StreamClient> {
  const q = new URLSearchParams(opts.query ?? {}).toString();
  const ws = new WebSocket(`${url}${q ? `?${q}` : ''}`, {
    headers: opts.key ? { authorization: `Bearer ${opts.key}` } : {},
  });
  const frames: Frame[] = [];
  const waiters: (() => void)[] = [];
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  ws.on('message', (data) => {
    frames.push(JSON.parse(data.toString()));
    for (const w of waiters.splice(0)) w();
  });
  const events = () => frames.flatMap((f) => (f.type === 'event' && f.event ? [f.event] : []));
  const client: StreamClient = {
    ws,
    frames,
    events,
    closed,
    waitForEvents: (n, timeoutMs = 30_000) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`${events().length} of ${n} events in ${timeoutMs} ms`)),
          timeoutMs,
        );
        const check = () => {
          if (events().length >= n) {
            clearTimeout(timer);
            resolve(events());
          } else waiters.push(check);
        };
        check();
      }),
    close: async () => {
      if (ws.readyState === WebSocket.OPEN || ws.readyState === WebSocket.CONNECTING) ws.close();
      await closed;
    },
  };
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(client));
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (d) => {
        body += d;
      });
      res.on('end', () => {
        ws.terminate();
        reject(
          Object.assign(new Error(`upgrade refused: ${res.statusCode}`), { status: res.statusCode, body }),
        );
      });
    });
    ws.on('error', (err) => reject(err));
  });
}
