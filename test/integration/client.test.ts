import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpServer } from '../../functions/local/http-server.ts';
import { silentLogger } from '../../functions/log.ts';
import {
  Pmail,
  PmailError,
  type PmailOptions,
  WebhookVerificationError,
} from '../../packages/client/src/index.ts';
import { type TestStack, testStack } from '../support/local.ts';

/**
 * @pmail/client against the local stack's HTTP server (functions/local/http-server.ts): the same
 * route-group handlers as Lambda, over real HTTP. Faults are injected in the client's `fetch`: an
 * answer lost after the server applied the request, a 503 or a 409 before it reached the server.
 */

let s: TestStack;
let api: { url: string; close(): Promise<void> };
let hooks: Server;
let hookBase = '';
const received: { path: string; headers: IncomingHttpHeaders; body: string }[] = [];

beforeAll(async () => {
  s = await testStack({ webhooks: true, webhookScheduleScale: 0.001, config: { simEventDelaySeconds: 0 } });
  api = await startHttpServer(s.groups, { port: 0, log: silentLogger });
  hooks = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => {
      body += d;
    });
    req.on('end', () => {
      received.push({ path: req.url ?? '/', headers: req.headers, body });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => hooks.listen(0, '127.0.0.1', () => r()));
  hookBase = `http://127.0.0.1:${(hooks.address() as { port: number }).port}`;
});

afterAll(async () => {
  await s?.settle();
  await api?.close();
  await s?.close();
  await new Promise((r) => hooks?.close(r));
});

const sleeps: number[] = [];
function client(opts: Partial<PmailOptions> = {}): Pmail {
  return new Pmail({
    apiKey: s.apiKey,
    baseUrl: api.url,
    ...opts,
    retry: { sleep: async (ms) => void sleeps.push(ms), random: () => 0.5, ...opts.retry },
  });
}

/** A fetch that records the Idempotency-Key of every request it is given, then runs `step(n)`. */
function faultyFetch(step: (n: number, req: Request) => Promise<Response>) {
  const keys: (string | null)[] = [];
  const fetch = async (req: Request) => {
    keys.push(req.headers.get('idempotency-key'));
    return step(keys.length, req);
  };
  return { fetch, keys };
}

const reset = () => Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNRESET' } });
const outboundWith = async (subject: string) =>
  (await s.mailbox(s.agent.id, 'outbound')).filter((m) => m.subject === subject);

describe('messages through @pmail/client', () => {
  it('sends twice with one key: one message, the second answer replayed', async () => {
    const pmail = client();
    const body = { to: ['delivered@simulator.invalid'], subject: 'client-twice', text: 'hello' };
    const first = await pmail.messages.send(s.agent.id, body, { idempotencyKey: 'client-twice-1' });
    const second = await pmail.messages.send(s.agent.id, body, { idempotencyKey: 'client-twice-1' });
    expect(first).toMatchObject({ idempotencyKey: 'client-twice-1', replayed: false });
    expect(second).toMatchObject({ idempotencyKey: 'client-twice-1', replayed: true });
    expect(second.data.id).toBe(first.data.id);
    expect(await outboundWith('client-twice')).toHaveLength(1);
  });

  it('generates a key when none is given and returns it', async () => {
    const sent = await client().messages.send(s.agent.id, {
      to: ['delivered@simulator.invalid'],
      subject: 'client-generated',
      text: 'hello',
    });
    expect(sent.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    const again = await client().messages.send(
      s.agent.id,
      { to: ['delivered@simulator.invalid'], subject: 'client-generated', text: 'hello' },
      { idempotencyKey: sent.idempotencyKey },
    );
    expect(again.data.id).toBe(sent.data.id);
  });

  it('waits until the message is delivered', async () => {
    const pmail = new Pmail({ apiKey: s.apiKey, baseUrl: api.url });
    const sent = await pmail.messages.send(s.agent.id, {
      to: ['delivered@simulator.invalid'],
      subject: 'client-wait',
      text: 'hello',
    });
    const done = await pmail.messages.wait(s.agent.id, sent.data.id, {
      until: ['delivered', 'bounced'],
      intervalMs: 20,
      timeoutMs: 20_000,
    });
    expect(done.status).toBe('delivered');
    const page = await pmail.messages.list(s.agent.id, { direction: 'outbound', limit: 100 });
    expect(page.data.map((m) => m.id)).toContain(sent.data.id);
  });

  it('resends an answer lost after the server applied it (ECONNRESET) with the same key: one message', async () => {
    const f = faultyFetch(async (n, req) => {
      const res = await fetch(req);
      if (n === 1) throw reset();
      return res;
    });
    const sent = await client({ fetch: f.fetch }).messages.send(s.agent.id, {
      to: ['delivered@simulator.invalid'],
      subject: 'client-reset',
      text: 'hello',
    });
    expect(f.keys).toHaveLength(2);
    expect(f.keys[1]).toBe(f.keys[0]);
    expect(f.keys[0]).toBe(sent.idempotencyKey);
    expect(sent.replayed).toBe(true);
    expect(await outboundWith('client-reset')).toHaveLength(1);
  });

  it('honours the Retry-After of a 503 and resends with the same key: one message', async () => {
    sleeps.length = 0;
    const f = faultyFetch(async (n, req) =>
      n === 1
        ? new Response(JSON.stringify({ error: { code: 'unavailable', retryable: true } }), {
            status: 503,
            headers: { 'retry-after': '2', 'content-type': 'application/json' },
          })
        : fetch(req),
    );
    const sent = await client({ fetch: f.fetch }).messages.send(
      s.agent.id,
      { to: ['delivered@simulator.invalid'], subject: 'client-503', text: 'hello' },
      { idempotencyKey: 'client-503-1' },
    );
    expect(f.keys).toEqual(['client-503-1', 'client-503-1']);
    expect(sleeps).toEqual([2000]);
    expect(sent.replayed).toBe(false);
    expect(await outboundWith('client-503')).toHaveLength(1);
  });

  it('resends after a 409 request_in_progress, and gives up after the configured retries', async () => {
    const busy = () =>
      new Response(JSON.stringify({ error: { code: 'request_in_progress', retryable: true, details: {} } }), {
        status: 409,
        headers: { 'content-type': 'application/json' },
      });
    const once = faultyFetch(async (n, req) => (n === 1 ? busy() : fetch(req)));
    const sent = await client({ fetch: once.fetch }).messages.send(s.agent.id, {
      to: ['delivered@simulator.invalid'],
      subject: 'client-409',
      text: 'hello',
    });
    expect(once.keys).toEqual([sent.idempotencyKey, sent.idempotencyKey]);
    const always = faultyFetch(async () => busy());
    const err = await client({ fetch: always.fetch, retries: 2 })
      .messages.send(s.agent.id, { to: ['delivered@simulator.invalid'], subject: 'client-409b', text: 'x' })
      .catch((e) => e);
    expect(err).toBeInstanceOf(PmailError);
    expect(err.code).toBe('request_in_progress');
    expect(always.keys).toHaveLength(3);
  });

  it('does not resend a POST without a key after a network error', async () => {
    const f = faultyFetch(async () => {
      throw reset();
    });
    await expect(client({ fetch: f.fetch }).webhooks.add({ url: `${hookBase}/never` })).rejects.toThrow(
      TypeError,
    );
    expect(f.keys).toEqual([null]);
  });
});

describe('messages.sendBatch', () => {
  const mail = (subject: string, key?: string) => ({
    ...(key ? { idempotency_key: key } : {}),
    to: ['delivered@simulator.invalid'],
    subject,
    text: 'hello',
  });

  it('sends each message once, in order, with its key; a batch whose answer was lost is resent whole: one message per key', async () => {
    const f = faultyFetch(async (n, req) => {
      const res = await fetch(req);
      if (n === 1) throw reset();
      return res;
    });
    const results = await client({ fetch: f.fetch }).messages.sendBatch(s.agent.id, [
      mail('client-batch-a', 'client-batch-a'),
      mail('client-batch-b'),
    ]);
    expect(f.keys).toEqual([null, null]);
    expect(results.map((r) => [r.status, r.message?.subject, r.message?.deduplicated])).toEqual([
      [202, 'client-batch-a', true],
      [202, 'client-batch-b', true],
    ]);
    expect(results[0].idempotencyKey).toBe('client-batch-a');
    expect(results[1].idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    expect(await outboundWith('client-batch-a')).toHaveLength(1);
    expect(await outboundWith('client-batch-b')).toHaveLength(1);
  });

  it('sends again only the messages whose answer says to retry, under the same key; a refusal is a typed error', async () => {
    sleeps.length = 0;
    const bodies: string[] = [];
    const f = faultyFetch(async (n, req) => {
      bodies.push(await req.clone().text());
      const res = await fetch(req);
      if (n > 1) return res;
      // The server ran the batch; its answer says the second message was not reached.
      const doc = (await res.json()) as { data: unknown[] };
      doc.data[1] = {
        status: 503,
        error: { code: 'not_attempted', message: 'later', retryable: true, details: {} },
      };
      return new Response(JSON.stringify(doc), { status: 207, headers: res.headers });
    });
    const results = await client({ fetch: f.fetch }).messages.sendBatch(s.agent.id, [
      mail('client-batch-c', 'client-batch-c'),
      mail('client-batch-d', 'client-batch-d'),
      { ...mail('client-batch-e', 'client-batch-e'), subject: 'x'.repeat(999) },
    ]);
    expect(JSON.parse(bodies[1]).messages.map((m: { idempotency_key: string }) => m.idempotency_key)).toEqual(
      ['client-batch-d'],
    );
    expect(sleeps).toHaveLength(1);
    // The server had sent it (only its answer said otherwise): the resend is answered by the replay.
    expect(results[1]).toMatchObject({
      status: 202,
      message: { subject: 'client-batch-d', deduplicated: true },
    });
    expect(results[2].error).toBeInstanceOf(PmailError);
    expect(results[2].error).toMatchObject({ code: 'invalid_request', status: 400, retryable: false });
    expect(await outboundWith('client-batch-d')).toHaveLength(1);
  });
});

describe('the conversation through @pmail/client', () => {
  it('reads a sent message’s body and attachment, its thread under a budget, and labels both', async () => {
    const pmail = client();
    const pdf = Buffer.from('%PDF-1.4 client note');
    const text = `Your parcel is on its way. ${'It arrives between nine and noon. '.repeat(10)}`;
    const sent = await pmail.messages.send(s.agent.id, {
      to: ['delivered@simulator.invalid'],
      subject: 'client-conversation',
      text,
      attachments: [
        { filename: 'note.pdf', content_type: 'application/pdf', content_base64: pdf.toString('base64') },
      ],
    });
    const followUp = await pmail.messages.send(s.agent.id, {
      to: ['delivered@simulator.invalid'],
      subject: 'client-conversation',
      text: 'One more thing: ring twice.',
      thread_id: sent.data.thread_id,
    });
    const m = await pmail.messages.get(s.agent.id, sent.data.id);
    expect([m.direction, m.text, m.extracted_text]).toEqual(['outbound', text, text]);
    expect(m.attachments.map((a) => [a.id, a.filename, a.size])).toEqual([['att_1', 'note.pdf', pdf.length]]);
    const bytes = await pmail.messages.attachment(s.agent.id, sent.data.id, 'att_1');
    expect(Buffer.from(bytes).equals(pdf)).toBe(true);

    const whole = await pmail.threads.get(s.agent.id, sent.data.thread_id);
    expect(whole.messages.map((x) => [x.id, x.text, x.text_form])).toEqual([
      [sent.data.id, text, 'whole'],
      [followUp.data.id, 'One more thing: ring twice.', 'whole'],
    ]);
    // A budget smaller than both: the older one is left out, and the answer says so.
    const tight = await pmail.threads.get(s.agent.id, sent.data.thread_id, { max_chars: 200 });
    expect(tight.messages.map((x) => x.id)).toEqual([followUp.data.id]);
    expect(tight.text_budget).toMatchObject({ max_chars: 200, messages_omitted: 1 });
    const listed = await pmail.threads.list(s.agent.id, { limit: 100 });
    expect(listed.data.map((t) => t.id)).toContain(sent.data.thread_id);

    // Labels: the change answers the labels after it; the views show them.
    expect((await pmail.messages.label(s.agent.id, sent.data.id, { add: ['sent-ok', 'x'] })).labels).toEqual([
      'sent-ok',
      'x',
    ]);
    expect((await pmail.messages.label(s.agent.id, sent.data.id, { remove: ['x'] })).labels).toEqual([
      'sent-ok',
    ]);
    expect((await pmail.messages.get(s.agent.id, sent.data.id)).labels).toEqual(['sent-ok']);
    expect((await pmail.threads.label(s.agent.id, sent.data.thread_id, { add: ['handled'] })).labels).toEqual(
      ['handled'],
    );
    expect((await pmail.threads.get(s.agent.id, sent.data.thread_id)).labels).toEqual(['handled']);
  });
});

describe('search through @pmail/client', () => {
  it('finds a received message by a word of its body, per identity, per thread and across the tenant', async () => {
    const pmail = client();
    const word = `harbour${Date.now().toString(36)}`;
    await pmail.messages.send(s.agent.id, {
      to: [s.peer.address],
      subject: 'client-search',
      text: `The ${word} quote, as promised.`,
    });
    await pmail.messages.send(s.agent.id, {
      to: [s.peer.address],
      subject: 'client-search-other',
      text: 'Nothing to find here.',
    });
    await s.settle();
    const page = await s.eventually(async () => {
      const p = await pmail.messages.search(s.peer.id, word, { direction: 'inbound' });
      return p.data.length > 0 && p;
    }, 20_000);
    expect(page.data.map((m) => [m.subject, m.direction])).toEqual([['client-search', 'inbound']]);
    const { highlight } = page.data[0];
    const [match] = highlight.matches;
    expect(highlight.text.slice(match.start, match.end)).toBe(word);
    expect(page.next_cursor).toBeNull();

    const threads = await pmail.threads.search(s.peer.id, word);
    expect(threads.data.map((t) => [t.id, t.highlight.text.includes(word)])).toEqual([
      [page.data[0].thread_id, true],
    ]);
    const tenant = await pmail.tenants.searchMessages(s.tenantId, word, { direction: 'inbound' });
    expect(tenant.data.map((m) => [m.identity_id, m.subject])).toEqual([[s.peer.id, 'client-search']]);
  });

  it('answers a query over the limits with a typed invalid_query', async () => {
    const pmail = client();
    const long = Array.from({ length: 17 }, (_, i) => `w${i}`).join(' ');
    await expect(pmail.messages.search(s.agent.id, long)).rejects.toMatchObject({
      code: 'invalid_query',
      status: 400,
    });
    await expect(pmail.messages.search(s.agent.id, 'x'.repeat(257))).rejects.toBeInstanceOf(PmailError);
  });
});

describe('typed errors', () => {
  it('404 message_not_found with status and request id', async () => {
    const err = await client()
      .messages.get(s.agent.id, `msg_${'0'.repeat(26)}`)
      .catch((e) => e);
    expect(err).toBeInstanceOf(PmailError);
    expect(err).toMatchObject({ code: 'message_not_found', status: 404, retryable: false });
    expect(err.requestId).toMatch(/^req_/);
  });

  it('422 all_recipients_suppressed on a dry run after suppressions.add; removal lifts it', async () => {
    const pmail = client();
    const address = `suppressed-client-${Math.random().toString(36).slice(2)}@simulator.invalid`;
    await pmail.suppressions.add(s.tenantId, { address, reason: 'manual' });
    const err = await pmail.messages
      .send(s.agent.id, { to: [address], subject: 'client-422', text: 'x' }, { dryRun: true })
      .catch((e) => e);
    expect(err).toBeInstanceOf(PmailError);
    expect(err).toMatchObject({ code: 'all_recipients_suppressed', status: 422 });
    await pmail.suppressions.remove(s.tenantId, address);
    const dry = await pmail.messages.send(s.agent.id, { to: [address], text: 'x' }, { dryRun: true });
    expect(dry.data).toMatchObject({ would_send: true });
  });

  it('400 invalid_request carries the field errors in details', async () => {
    const err = await client()
      .messages.send(s.agent.id, { to: ['a@example.com'], subject: 'x' } as never)
      .catch((e) => e);
    expect(err).toMatchObject({ code: 'invalid_request', status: 400 });
    expect(Array.isArray(err.details.errors)).toBe(true);
  });
});

describe('webhooks.verify', () => {
  it('accepts a delivery pmail signed and refuses a tampered one', async () => {
    const pmail = client();
    const endpoint = await pmail.webhooks.add({
      url: `${hookBase}/client`,
      event_types: ['message.delivered'],
    });
    expect((await pmail.webhooks.list()).data.map((w) => w.id)).toContain(endpoint.id);
    const sent = await pmail.messages.send(s.agent.id, {
      to: ['delivered@simulator.invalid'],
      subject: 'client-webhook',
      text: 'hello',
    });
    const delivery = await s.eventually(async () =>
      received.find((r) => r.path === '/client' && JSON.parse(r.body).data.message_id === sent.data.id),
    );
    const envelope = pmail.webhooks.verify(delivery.body, delivery.headers, endpoint.secret);
    expect(envelope).toMatchObject({ type: 'message.delivered', data: { message_id: sent.data.id } });
    const tampered = delivery.body.replace('message.delivered', 'message.bounced');
    expect(() => pmail.webhooks.verify(tampered, delivery.headers, endpoint.secret)).toThrow(
      WebhookVerificationError,
    );
    const otherSecret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    expect(() => pmail.webhooks.verify(delivery.body, delivery.headers, otherSecret)).toThrow(
      WebhookVerificationError,
    );
    const late = new Pmail({
      apiKey: s.apiKey,
      baseUrl: api.url,
      now: () => (Number(delivery.headers['webhook-timestamp']) + 301) * 1000,
    });
    expect(() => late.webhooks.verify(delivery.body, delivery.headers, endpoint.secret)).toThrow(/timestamp/);
    await pmail.webhooks.delete(endpoint.id);
  });
});
