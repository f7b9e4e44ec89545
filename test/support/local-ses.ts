import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A SendEmail request as it went over the wire (the JSON body of POST /v2/email/outbound-emails). */
export interface SeenRequest {
  path: string;
  body: any;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

const listen = async (server: Server): Promise<string> => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

const closing = (server: Server) => () =>
  new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });

/**
 * aws-ses-v2-local (the local SES v2 endpoint `npm start` runs), behind a recording proxy: the tests
 * read every request SES received, since the local server's store reads recipients from the MIME
 * headers and so never shows an envelope-only Bcc.
 */
export async function localSes(): Promise<{
  url: string;
  sesUrl: string;
  requests: SeenRequest[];
  store(): Promise<{ emails: any[] }>;
  close(): Promise<void>;
}> {
  const pkg = (await import('aws-ses-v2-local')) as any;
  const start = (pkg.default?.default ?? pkg.default) as (c: {
    host: string;
    port: number;
  }) => Promise<Server>;
  const ses = await start({ host: '127.0.0.1', port: 0 });
  if (!ses.listening) await new Promise((r) => ses.once('listening', r));
  const sesUrl = `http://127.0.0.1:${(ses.address() as AddressInfo).port}`;
  const requests: SeenRequest[] = [];
  const proxy = createServer(async (req, res) => {
    const body = await readBody(req);
    if (req.method === 'POST')
      requests.push({ path: req.url ?? '', body: body ? JSON.parse(body) : undefined });
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) {
      if (typeof v === 'string' && !['host', 'content-length', 'connection'].includes(k)) headers[k] = v;
    }
    const out = await fetch(`${sesUrl}${req.url}`, {
      method: req.method,
      headers,
      body: req.method === 'GET' ? undefined : body,
    });
    res.writeHead(out.status, { 'content-type': out.headers.get('content-type') ?? 'application/json' });
    res.end(Buffer.from(await out.arrayBuffer()));
  });
  const url = await listen(proxy);
  const closeProxy = closing(proxy);
  const closeSes = closing(ses);
  return {
    url,
    sesUrl,
    requests,
    store: async () => (await fetch(`${sesUrl}/store`)).json() as Promise<{ emails: any[] }>,
    close: async () => {
      await closeProxy();
      await closeSes();
    },
  };
}

/** An endpoint that reads each request in full and then resets the connection: no answer ever. */
export async function resettingEndpoint(): Promise<{
  url: string;
  requests: SeenRequest[];
  close(): Promise<void>;
}> {
  const requests: SeenRequest[] = [];
  const server = createServer(async (req) => {
    const body = await readBody(req);
    requests.push({ path: req.url ?? '', body: body ? JSON.parse(body) : undefined });
    req.socket.resetAndDestroy();
  });
  const url = await listen(server);
  return { url, requests, close: closing(server) };
}
