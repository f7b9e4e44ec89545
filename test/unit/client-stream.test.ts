import type { IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import {
  Pmail,
  PmailError,
  PmailStreamClosedError,
  type WebSocketConstructor,
} from '../../packages/client/src/index.ts';

/**
 * `@pmail/client` › stream against a scripted WebSocket server (the `ws` package on 127.0.0.1):
 * what the wire may do — drop mid-burst, repeat an event after a fan-out crashed between posting it
 * and recording it, close as a slow consumer, close for good — and what the iterator makes of it:
 * each event once, in order, resuming after the last one it yielded, with back-off between
 * connects. The stream itself (pmail's server) is test/integration/stream.test.ts.
 */
type Script = (ws: WebSocket, req: IncomingMessage, n: number) => void;
let server: WebSocketServer;
let url = '';
let script: Script = () => undefined;
const upgrades: { after: string | null; auth: string | undefined }[] = [];

beforeAll(async () => {
  server = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  await new Promise((r) => server.once('listening', r));
  url = `ws://127.0.0.1:${(server.address() as { port: number }).port}/v1/stream`;
  server.on('connection', (ws, req) => {
    const q = new URL(req.url ?? '/', 'http://x').searchParams;
    upgrades.push({ after: q.get('after'), auth: req.headers.authorization });
    script(ws, req, upgrades.length);
  });
});
afterAll(() => new Promise((r) => server.close(r)));

const event = (n: number) =>
  JSON.stringify({
    type: 'event',
    event: {
      id: `evt_${String(n).padStart(26, '0')}`,
      type: 'message.delivered',
      created_at: '',
      data: { n },
    },
  });
const closeFrame = (reason: string, code: number, after: number | null) =>
  JSON.stringify({
    type: 'close',
    code,
    reason,
    message: reason,
    after: after === null ? null : `evt_${String(after).padStart(26, '0')}`,
  });

function client(sleeps: number[]) {
  return new Pmail({
    apiKey: 'pm_test_key',
    baseUrl: 'http://127.0.0.1:1',
    retry: { sleep: async (ms) => void sleeps.push(ms), random: () => 1 },
  });
}

describe('@pmail/client › stream', () => {
  it('resumes after the last event it yielded, drops a repeat, reconnects after a slow-consumer close, and ends on a close for good', async () => {
    upgrades.length = 0;
    script = (ws, _req, n) => {
      if (n === 1) {
        for (const i of [1, 2, 3]) ws.send(event(i));
        setTimeout(() => ws.terminate(), 50);
      } else if (n === 2) {
        // The wire repeats 3 (a fan-out died after posting it), then the client is too slow.
        for (const i of [3, 4]) ws.send(event(i));
        ws.send(closeFrame('slow_consumer', 4008, 4));
        ws.close(4008, 'slow_consumer');
      } else {
        ws.send(event(5));
        ws.send(closeFrame('key_revoked', 4001, 5));
        ws.close(4001, 'key_revoked');
      }
    };
    const sleeps: number[] = [];
    const got: number[] = [];
    const run = (async () => {
      for await (const e of client(sleeps).stream({
        url,
        WebSocket: WebSocket as unknown as WebSocketConstructor,
      }))
        got.push(e.data.n as number);
    })();
    await expect(run).rejects.toBeInstanceOf(PmailStreamClosedError);
    await run.catch((err: PmailStreamClosedError) => {
      expect(err).toMatchObject({ code: 4001, reason: 'key_revoked', after: `evt_${'5'.padStart(26, '0')}` });
    });
    expect(got).toEqual([1, 2, 3, 4, 5]);
    expect(upgrades.map((u) => u.after)).toEqual([
      null,
      `evt_${'3'.padStart(26, '0')}`,
      `evt_${'4'.padStart(26, '0')}`,
    ]);
    expect(upgrades.every((u) => u.auth === 'Bearer pm_test_key')).toBe(true);
    // Each socket opened: the wait before the next connect stays at its base.
    expect(sleeps).toEqual([250, 250]);
  });

  it('backs off, doubling, while connects fail, and stops when its signal aborts', async () => {
    const sleeps: number[] = [];
    const stop = new AbortController();
    const dead = 'ws://127.0.0.1:9/v1/stream';
    const pmail = new Pmail({
      apiKey: 'k',
      baseUrl: 'http://127.0.0.1:1',
      retry: {
        sleep: async (ms) => {
          sleeps.push(ms);
          if (sleeps.length === 5) stop.abort();
        },
        random: () => 1,
      },
    });
    const got: unknown[] = [];
    for await (const e of pmail.stream({
      url: dead,
      WebSocket: WebSocket as unknown as WebSocketConstructor,
      signal: stop.signal,
    }))
      got.push(e);
    expect(got).toEqual([]);
    expect(sleeps).toEqual([500, 1000, 2000, 4000, 8000]);
  });

  it('takes a ticket where it has no URL (a browser), and gives up on a refusal a reconnect cannot cure', async () => {
    const refused = new Pmail({
      apiKey: 'k',
      baseUrl: 'http://127.0.0.1:1',
      fetch: async () =>
        new Response(JSON.stringify({ error: { code: 'permission_denied', message: 'no', details: {} } }), {
          status: 403,
          headers: { 'content-type': 'application/json' },
        }),
      retries: 0,
    });
    await expect(
      refused.stream({ WebSocket: WebSocket as unknown as WebSocketConstructor }).next(),
    ).rejects.toBeInstanceOf(PmailError);
  });
});
