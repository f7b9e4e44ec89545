import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { join, resolve } from 'node:path';
import type { Duplex } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { ulid } from 'ulid';
import { type ApiEvent, type ApiResult, errorResponse, matchRoute } from '../api/http.ts';
import type { RouteGroup } from '../api/routes.ts';
import { payloadTooLarge } from '../core/errors.ts';
import { MAX_BODY_BYTES } from '../core/limits.ts';
import type { Logger } from '../log.ts';

/** Where the local server serves the event stream (on AWS: the WebSocket API's own URL). */
export const STREAM_PATH = '/v1/stream';

/** What takes an upgrade of STREAM_PATH (functions/local/stream-gateway.ts). */
export interface StreamUpgrade {
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void>;
}

/** API Gateway HTTP API's own payload limit; the handlers enforce pmail's 7 MiB below it. */
const GATEWAY_MAX_BYTES = 10 * 1024 * 1024;

/**
 * Serves the API on 127.0.0.1 by turning each request into an API Gateway HTTP API (payload v2)
 * event for the same route-group handlers that run on Lambda.
 */
export function startHttpServer(
  groups: Record<RouteGroup, (e: ApiEvent) => Promise<ApiResult>>,
  opts: { port: number; host?: string; log: Logger; docs?: ApiDocs; stream?: StreamUpgrade },
): Promise<{ server: Server; url: string; close(): Promise<void> }> {
  const docs = apiDocs(opts.docs);
  const server = createServer(async (req, res) => {
    if (req.method === 'GET' && /^\/docs\/?(?:\?.*)?$/.test(req.url ?? '')) return docs(res);
    let result: ApiResult;
    try {
      const body = await readBody(req);
      const event = toEvent(req, body);
      const { route } = matchRoute(event.requestContext.http.method, event.rawPath);
      result = await groups[route.group](event);
    } catch (err) {
      result = errorResponse(err, `req_${ulid().toLowerCase()}`, opts.log);
    }
    res.writeHead(result.statusCode ?? 200, result.headers);
    res.end(result.isBase64Encoded ? Buffer.from(result.body ?? '', 'base64') : (result.body ?? ''));
  });
  // The event stream (functions/local/stream-gateway.ts): `GET /v1/stream` upgraded to a WebSocket.
  server.on('upgrade', (req, socket, head) => {
    if (!opts.stream || new URL(req.url ?? '/', 'http://localhost').pathname !== STREAM_PATH) {
      socket.end('HTTP/1.1 404 Not Found\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
      return;
    }
    opts.stream.upgrade(req, socket, head).catch((err) => {
      opts.log.error('stream upgrade failed', { error: String(err) });
      socket.destroy();
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host ?? '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      resolve({
        server,
        url: `http://127.0.0.1:${port}`,
        close: () =>
          new Promise<void>((r) => {
            server.closeAllConnections();
            server.close(() => r());
          }),
      });
    });
  });
}

/**
 * The HTTP API reference at `GET /docs`: the page `npm run docs:api` renders from openapi.yaml with
 * Redocly CLI (docs/reference/api.md). When the page is missing, the first request builds it (with
 * `build`), and a page that cannot be built is answered by one that names the command.
 */
export interface ApiDocs {
  /** @default `$PMAIL_STATE_DIR/docs/api.html` (`.pmail/docs/api.html`), where `npm run docs:api` writes */
  file?: string;
  /** Build a missing page on the first request. @default true */
  build?: boolean;
}

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

function apiDocs(opts: ApiDocs = {}): (res: ServerResponse) => Promise<void> {
  const file = opts.file ?? join(resolve(process.env.PMAIL_STATE_DIR ?? '.pmail'), 'docs', 'api.html');
  let building: Promise<void> | undefined;
  const build = () =>
    new Promise<void>((done) => {
      const cli = join(REPO_ROOT, 'node_modules', '@redocly', 'cli', 'bin', 'cli.js');
      execFile(
        process.execPath,
        [cli, 'build-docs', join(REPO_ROOT, 'openapi.yaml'), '-o', file],
        { cwd: REPO_ROOT, env: { ...process.env, REDOCLY_TELEMETRY: 'off' }, timeout: 60_000 },
        () => done(),
      );
    });
  return async (res) => {
    if (!existsSync(file) && opts.build !== false) {
      building ??= build();
      await building;
    }
    const page = existsSync(file) ? await readFile(file) : Buffer.from(docsPointer(file));
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(page);
  };
}

const docsPointer = (file: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>pmail API reference</title></head>
<body><h1>pmail API reference</h1>
<p>The reference is not built yet. Run <code>npm run docs:api</code> in the repository (it writes
<code>${file.replace(/[<>&]/g, '')}</code> from <code>openapi.yaml</code>), then reload this page.
The specification itself is served at <a href="/openapi.json">/openapi.json</a>.</p>
</body></html>
`;

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > GATEWAY_MAX_BYTES) {
      throw payloadTooLarge(MAX_BODY_BYTES);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function toEvent(req: IncomingMessage, body: Buffer): ApiEvent {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers))
    if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(',') : v;
  const query: Record<string, string> = {};
  for (const [k, v] of url.searchParams) query[k] = k in query ? `${query[k]},${v}` : v;
  const now = Date.now();
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    headers,
    queryStringParameters: Object.keys(query).length ? query : undefined,
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: 'local',
      http: {
        method: req.method ?? 'GET',
        path: url.pathname,
        protocol: `HTTP/${req.httpVersion}`,
        sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      routeKey: '$default',
      stage: '$default',
      time: new Date(now).toUTCString(),
      timeEpoch: now,
    },
    body: body.length ? body.toString('utf8') : undefined,
    isBase64Encoded: false,
  };
}
