import { createServer, type IncomingHttpHeaders } from 'node:http';

/** One POST a webhook receiver got. */
export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  json: {
    id: string;
    type: string;
    tenant_id?: string;
    identity_id?: string | null;
    data: Record<string, unknown>;
  };
}

/**
 * A real HTTP receiver on 127.0.0.1 for webhook deliveries: every POST is kept in `received`; the
 * answer is 200 unless `script` holds statuses for the path (taken in order, then 200).
 */
export function webhookReceiver() {
  const received: Received[] = [];
  /** Per path, the statuses to answer next (then 200). */
  const script = new Map<string, number[]>();
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => {
      body += d;
    });
    req.on('end', () => {
      const path = req.url ?? '/';
      received.push({ path, headers: req.headers, body, json: JSON.parse(body) });
      const status = script.get(path)?.shift() ?? 200;
      res.writeHead(status, { 'content-type': 'text/plain' }).end('ignored');
    });
  });
  return {
    received,
    script,
    /** The deliveries to one path. */
    at: (path: string) => received.filter((r) => r.path === path),
    /** Listen on a free port; answers the receiver's base URL. */
    async listen(): Promise<string> {
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
      return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    },
    close: () => new Promise((r) => server.close(r)),
  };
}
