import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SendMessageBatchCommand, type SendMessageBatchCommandInput, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { sqsForwardBatch } from '../../functions/adapters/sqs-queues.ts';
import { loadCloudflareApiToken } from '../../functions/env.ts';
import {
  type CloudflarePullSettings,
  decodeBody,
  pullAndForward,
} from '../../functions/events/cloudflare-pull.ts';
import type { Logger } from '../../functions/log.ts';
import { memoryMetrics } from '../../functions/metrics.ts';
import { cfEvent } from '../support/cf-fixtures.ts';

const ACCOUNT = '023e105f4ecef8ad9ca31a8372d0c353';
const QUEUE = 'f9f79265f388666de8122cfb508d7776';
const TOKEN = 'test-token-not-a-secret-0123456789';
const QUEUE_URL = 'https://sqs.us-east-1.amazonaws.com/123456789012/Pmail-delivery-events';

/** The bodies the two endpoints take. */
interface RequestBody {
  batch_size?: number;
  visibility_timeout_ms?: number;
  acks?: { lease_id: string }[];
  retries?: { lease_id: string; delay_seconds?: number }[];
}

interface Stored {
  id: string;
  body: string;
  contentType?: 'json' | 'text' | 'bytes';
  lease?: string;
}

/**
 * A local imitation of the two documented Cloudflare Queues endpoints (pull-consumers guide):
 * `POST …/messages/pull` leases up to `batch_size` messages and answers `{ success, errors, result:
 * { messages } }`; `POST …/messages/ack` removes the acked leases. `failNext` makes the next call of
 * an endpoint answer with a status (5xx, 429) and Cloudflare's error envelope.
 */
class FakeQueue {
  server: Server;
  url = '';
  messages: Stored[] = [];
  requests: { path: string; authorization?: string; body: RequestBody }[] = [];
  failNext: { pull?: number; ack?: number } = {};
  private leases = 0;

  constructor() {
    this.server = createServer((req, res) => void this.handle(req, res));
  }

  async start() {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/client/v4`;
  }

  add(body: string, contentType?: Stored['contentType']) {
    const id = `msg${this.messages.length + this.leases}x${Math.random().toString(16).slice(2, 10)}`;
    // As the guide says: json and bytes are base64, text is plain UTF-8.
    const wire =
      contentType === 'json' || contentType === 'bytes' ? Buffer.from(body).toString('base64') : body;
    this.messages.push({ id, body: wire, contentType });
  }

  private async handle(req: IncomingMessage, res: ServerResponse) {
    let raw = '';
    for await (const chunk of req) raw += chunk;
    const body = (raw ? JSON.parse(raw) : {}) as RequestBody;
    this.requests.push({ path: req.url ?? '', authorization: req.headers.authorization, body });
    const reply = (status: number, json: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(json));
    };
    const base = `/client/v4/accounts/${ACCOUNT}/queues/${QUEUE}/messages`;
    if (req.method !== 'POST' || !req.url?.startsWith(base)) return reply(404, { success: false });
    if (req.headers.authorization !== `Bearer ${TOKEN}`)
      return reply(401, { success: false, errors: [{ code: 10000, message: 'Authentication error' }] });
    const action = req.url.slice(base.length + 1) as 'pull' | 'ack';
    const fail = this.failNext[action];
    if (fail) {
      delete this.failNext[action];
      return reply(
        fail,
        { success: false, errors: [{ code: fail === 429 ? 10004 : 10002, message: 'try later' }] },
        fail === 429 ? { 'retry-after': '30' } : {},
      );
    }
    if (action === 'pull') {
      const free = this.messages.filter((m) => !m.lease).slice(0, body.batch_size ?? 5);
      for (const m of free) m.lease = `lease-${++this.leases}-${m.id}`;
      return reply(200, {
        success: true,
        errors: [],
        messages: [],
        result: {
          messages: free.map((m) => ({
            body: m.body,
            id: m.id,
            timestamp_ms: 1689615013586,
            attempts: 1,
            metadata: m.contentType ? { 'CF-Content-Type': m.contentType } : {},
            lease_id: m.lease,
          })),
        },
      });
    }
    const acked = new Set((body.acks ?? []).map((a) => a.lease_id));
    this.messages = this.messages.filter((m) => !m.lease || !acked.has(m.lease));
    return reply(200, { success: true, errors: [], result: { ackCount: acked.size, retryCount: 0 } });
  }

  /** Leases run out (the visibility timeout passed): every message can be pulled again. */
  expireLeases() {
    for (const m of this.messages) m.lease = undefined;
  }
}

const fake = new FakeQueue();
const sqsMock = mockClient(SQSClient);
const sqs = new SQSClient({ region: 'us-east-1' });
const forward = sqsForwardBatch(sqs, QUEUE_URL);
const settings = (): CloudflarePullSettings => ({
  accountId: ACCOUNT,
  queueId: QUEUE,
  apiToken: TOKEN,
  apiBase: fake.url,
  batchSize: 5,
});

function capture() {
  const lines: string[] = [];
  const log: Logger = {
    info: (msg, f) => lines.push(JSON.stringify({ msg, ...f })),
    warn: (msg, f) => lines.push(JSON.stringify({ msg, ...f })),
    error: (msg, f) => lines.push(JSON.stringify({ msg, ...f })),
  };
  return { lines, log, metrics: memoryMetrics() };
}

/** SQS takes every entry, unless its body says `refuse`. */
function sqsAccepts() {
  sqsMock.on(SendMessageBatchCommand).callsFake((input: SendMessageBatchCommandInput) => {
    const entries = input.Entries ?? [];
    const refused = entries.filter((e) => e.MessageBody?.includes('refuse'));
    return {
      Successful: entries
        .filter((e) => !refused.includes(e))
        .map((e) => ({ Id: e.Id, MessageId: `sqs-${e.Id}`, MD5OfMessageBody: 'x' })),
      Failed: refused.map((e) => ({ Id: e.Id, SenderFault: true, Code: 'InvalidMessageContents' })),
    };
  });
}

const forwardedBodies = () =>
  sqsMock.commandCalls(SendMessageBatchCommand).flatMap((c) => {
    expect(c.args[0].input.QueueUrl).toBe(QUEUE_URL);
    return (c.args[0].input.Entries ?? []).map((e) => e.MessageBody);
  });
const ackedLeases = () =>
  fake.requests
    .filter((r) => r.path.endsWith('/messages/ack'))
    .flatMap((r) => (r.body.acks ?? []).map((a) => a.lease_id));

beforeAll(() => fake.start());
afterAll(() => new Promise<void>((r) => fake.server.close(() => r())));
beforeEach(() => {
  sqsMock.reset();
  fake.messages = [];
  fake.requests = [];
  fake.failNext = {};
});

const event = (n: number) =>
  JSON.stringify(
    cfEvent('delivered', {
      eventId: `0190d0c4-7e9a-7b3c-9f12-${String(n).padStart(12, '0')}`,
      messageId: `0101018f7d0c4d9a-msg-${n}`,
      sender: 'noreply@example.com',
      recipient: `user${n}@example.net`,
      subject: 'Welcome',
      at: Date.UTC(2030, 0, 1),
    }),
  );

describe('the Cloudflare pull consumer against a local imitation of the Queues API', () => {
  it('forwards every message body, decoded, to the delivery-events queue and acks exactly those leases', async () => {
    sqsAccepts();
    for (let i = 0; i < 12; i++) fake.add(event(i), 'json');
    fake.add(event(12), 'text');
    fake.add(event(13));
    const c = capture();
    const report = await pullAndForward({ forward, clock: () => 0, log: c.log }, settings());

    expect(report).toEqual({ pulls: 4, pulled: 14, forwarded: 14, acked: 14, stopped: 'empty' });
    expect(forwardedBodies()).toEqual(Array.from({ length: 14 }, (_, i) => event(i)));
    expect(ackedLeases()).toHaveLength(14);
    expect(new Set(ackedLeases()).size).toBe(14);
    expect(fake.messages).toEqual([]);
    // SendMessageBatch takes ten entries at most.
    for (const call of sqsMock.commandCalls(SendMessageBatchCommand))
      expect(call.args[0].input.Entries!.length).toBeLessThanOrEqual(10);
  });

  it('sends the bearer token, batch_size and visibility_timeout_ms on every call', async () => {
    sqsAccepts();
    fake.add(event(1), 'json');
    await pullAndForward({ forward, clock: () => 0, log: capture().log }, settings());
    expect(fake.requests.map((r) => r.path.split('/messages/')[1])).toEqual(['pull', 'ack', 'pull']);
    for (const r of fake.requests) {
      expect(r.authorization).toBe(`Bearer ${TOKEN}`);
      expect(r.path.startsWith(`/client/v4/accounts/${ACCOUNT}/queues/${QUEUE}/messages/`)).toBe(true);
    }
    expect(fake.requests[0].body).toEqual({ batch_size: 5, visibility_timeout_ms: 60_000 });
    expect(fake.requests[1].body).toEqual({
      acks: [{ lease_id: expect.stringMatching(/^lease-/) }],
      retries: [],
    });
  });

  it('acks nothing SQS refused, so those messages come back after their lease', async () => {
    sqsAccepts();
    fake.add(event(1), 'json');
    fake.add('{"refuse": true}', 'json');
    fake.add(event(3), 'json');
    const report = await pullAndForward(
      { forward, clock: () => 0, log: capture().log },
      { ...settings(), batchSize: 3 },
    );
    expect(report).toMatchObject({ pulled: 3, forwarded: 2, acked: 2 });
    expect(fake.messages.map((m) => Buffer.from(m.body, 'base64').toString())).toEqual(['{"refuse": true}']);
    expect(ackedLeases().some((l) => l.includes(fake.messages[0].id))).toBe(false);
  });

  it('acks nothing and stops pulling when SQS rejects the whole batch call', async () => {
    sqsMock.on(SendMessageBatchCommand).rejects(new Error('ServiceUnavailable'));
    fake.add(event(1), 'json');
    fake.add(event(2), 'json');
    const c = capture();
    const report = await pullAndForward(
      { forward, clock: () => 0, log: c.log, metrics: c.metrics },
      settings(),
    );
    expect(report).toEqual({ pulls: 1, pulled: 2, forwarded: 0, acked: 0, stopped: 'forward_failed' });
    expect(ackedLeases()).toEqual([]);
    expect(fake.messages).toHaveLength(2);
    expect(c.metrics.get('cloudflare_forward_failed')).toBe(2);
  });

  it.each([500, 503, 429])(
    'stops on a %s from pull, forwards nothing and tries again on the next run',
    async (status) => {
      sqsAccepts();
      fake.add(event(1), 'json');
      fake.failNext.pull = status;
      const c = capture();
      const first = await pullAndForward(
        { forward, clock: () => 0, log: c.log, metrics: c.metrics },
        settings(),
      );
      expect(first).toEqual({ pulls: 0, pulled: 0, forwarded: 0, acked: 0, stopped: 'pull_failed' });
      expect(sqsMock.commandCalls(SendMessageBatchCommand)).toHaveLength(0);
      expect(c.metrics.get('cloudflare_api_failed', { action: 'pull' })).toBe(1);
      expect(c.lines.find((l) => l.includes('Cloudflare queue pull failed'))).toContain(`"status":${status}`);

      const next = await pullAndForward(
        { forward, clock: () => 0, log: c.log, metrics: c.metrics },
        settings(),
      );
      expect(next).toMatchObject({ forwarded: 1, acked: 1, stopped: 'empty' });
      expect(c.metrics.get('cloudflare_events_forwarded')).toBe(1);
      expect(fake.messages).toEqual([]);
    },
  );

  it('stops when ack fails; the forwarded message comes back and is forwarded again (the consumer deduplicates)', async () => {
    sqsAccepts();
    fake.add(event(1), 'json');
    fake.failNext.ack = 502;
    const first = await pullAndForward({ forward, clock: () => 0, log: capture().log }, settings());
    expect(first).toMatchObject({ forwarded: 1, acked: 0, stopped: 'ack_failed' });
    expect(fake.messages).toHaveLength(1);
    fake.expireLeases();
    const next = await pullAndForward({ forward, clock: () => 0, log: capture().log }, settings());
    expect(next).toMatchObject({ forwarded: 1, acked: 1 });
    expect(forwardedBodies()).toEqual([event(1), event(1)]);
  });

  it('starts no pull once the time budget is spent, leaving the rest for the next run', async () => {
    sqsAccepts();
    for (let i = 0; i < 12; i++) fake.add(event(i), 'json');
    let now = 0;
    const clock = () => {
      now += 20_000;
      return now;
    };
    const report = await pullAndForward({ forward, clock, log: capture().log }, settings());
    expect(report.stopped).toBe('budget');
    expect(report.pulls).toBeLessThan(3);
    expect(fake.messages.length).toBe(12 - report.acked);
    expect(fake.messages.length).toBeGreaterThan(0);
  });

  it('forwards a malformed body unchanged for the consumer to count', async () => {
    sqsAccepts();
    fake.add('not json at all', 'text');
    const report = await pullAndForward({ forward, clock: () => 0, log: capture().log }, settings());
    expect(report).toMatchObject({ forwarded: 1, acked: 1 });
    expect(forwardedBodies()).toEqual(['not json at all']);
  });

  it('never logs the token or a message body', async () => {
    sqsAccepts();
    fake.add(event(7), 'json');
    fake.add('{"refuse": "user7@example.net"}', 'json');
    fake.failNext.ack = 500;
    const c = capture();
    await pullAndForward({ forward, clock: () => 0, log: c.log }, settings());
    expect(c.lines.length).toBeGreaterThan(0);
    for (const line of c.lines) {
      expect(line).not.toContain(TOKEN);
      expect(line).not.toContain('user7@example.net');
      expect(line).not.toContain('noreply@example.com');
    }
  });
});

describe('message bodies as the pull-consumers guide encodes them', () => {
  const json = '{"type":"cf.email.sending.message.delivered"}';
  const b64 = (t: string) => Buffer.from(t).toString('base64');
  it.each([
    ['json, base64-encoded', { body: b64(json), metadata: { 'CF-Content-Type': 'json' } }, json],
    [
      "json sent plain, as the guide's own example shows",
      { body: json, metadata: { 'CF-Content-Type': 'json' } },
      json,
    ],
    ['text, plain UTF-8', { body: 'héllo', metadata: { 'CF-Content-Type': 'text' } }, 'héllo'],
    [
      'bytes, base64-encoded',
      { body: b64('raw bytes'), metadata: { 'CF-Content-Type': 'bytes' } },
      'raw bytes',
    ],
    ['no content type, JSON already', { body: json }, json],
    ['no content type, base64', { body: b64(json), metadata: {} }, json],
  ])('reads %s', (_name, message, expected) => {
    expect(decodeBody(message)).toBe(expected);
  });
});

describe('the API token secret (functions/env.ts)', () => {
  const arn = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:pmail-cf-token';
  /** Secrets Manager's GetSecretValue over its JSON protocol, as a stand-in on loopback. */
  const secret = { value: '', reads: 0 };
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      const asked = JSON.parse(body || '{}') as { SecretId?: string };
      const ok = req.headers['x-amz-target'] === 'secretsmanager.GetSecretValue' && asked.SecretId === arn;
      if (ok) secret.reads++;
      res.writeHead(ok ? 200 : 400, { 'content-type': 'application/x-amz-json-1.1' });
      res.end(JSON.stringify(ok ? { SecretString: secret.value } : { __type: 'ResourceNotFoundException' }));
    });
  });
  beforeAll(async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    vi.stubEnv('AWS_ENDPOINT_URL_SECRETS_MANAGER', `http://127.0.0.1:${port}`);
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'local');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'local');
    vi.stubEnv('PMAIL_CF_API_TOKEN_SECRET_ARN', arn);
  });
  afterAll(() => {
    vi.unstubAllEnvs();
    server.close();
  });

  it.each([
    // Times a year apart: each case starts after the token the previous one read has expired.
    ['the bare token', `  ${TOKEN}\n`, Date.UTC(2030, 0, 1)],
    ['{ "api_token": … }', JSON.stringify({ api_token: TOKEN }), Date.UTC(2031, 0, 1)],
  ])('reads %s from the secret the operator filled, and keeps it five minutes', async (_name, value, t0) => {
    secret.value = value;
    secret.reads = 0;
    expect(await loadCloudflareApiToken(t0)).toBe(TOKEN);
    expect(await loadCloudflareApiToken(t0 + 299_000)).toBe(TOKEN);
    expect(secret.reads).toBe(1);
    expect(await loadCloudflareApiToken(t0 + 301_000)).toBe(TOKEN);
    expect(secret.reads).toBe(2);
  });

  it('fails clearly when the secret holds no token', async () => {
    secret.value = '{}';
    await expect(loadCloudflareApiToken(Date.UTC(2040, 0, 1))).rejects.toThrow(/token is not set/);
  });
});
