import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { permissionsOf } from '../../functions/core/keys.ts';
import { STREAM_CLOSE } from '../../functions/core/stream.ts';
import { portsFor } from '../../functions/lambda-ports.ts';
import { startHttpServer } from '../../functions/local/http-server.ts';
import { seedTestTenant } from '../../functions/local/seed.ts';
import { silentLogger } from '../../functions/log.ts';
import { hooksOf } from '../../functions/store/dynamodb.ts';
import { appendEvent } from '../../functions/store/events.store.ts';
import { deliverTenant } from '../../functions/stream/fan-out.ts';
import { streamTick } from '../../functions/stream/tick.ts';
import { Pmail } from '../../packages/client/src/index.ts';
import { ownTable, type TestStack, testStack } from '../support/local.ts';
import { openStream, type StreamClient } from '../support/stream.ts';

/**
 * The event stream through a plain `ws` client against the local HTTP server on the real engines
 * (DynamoDB Local's stream feeding the fan-out): order, resume, who sees what, a slow consumer,
 * the connection limit, tickets, keys that end, and two fan-outs at once. One stack with a table of
 * its own (the fan-out reads the table's stream); `npm start` stopped and started is in
 * test/e2e/local-stack.test.ts.
 */
const LIMIT = 3;
let s: TestStack;
let http: Awaited<ReturnType<typeof startHttpServer>>;
let url: string;

beforeAll(async () => {
  s = await testStack({
    table: ownTable('stream'),
    config: { simEventDelaySeconds: 0, streamConnectionsPerTenant: LIMIT },
    // A bound a handful of big events pass (a page of ordinary events stays far below it).
    stream: { slowBytes: 256 * 1024 },
  });
  http = await startHttpServer(s.groups, { port: 0, log: silentLogger, stream: s.stream });
  url = `${http.url.replace('http:', 'ws:')}/v1/stream`;
}, 120_000);

afterAll(async () => {
  await http?.close();
  await s?.settle();
  await s?.close();
});

const delivered = (i: number, key = s.apiKey, identity = s.agent.id) =>
  s.call('POST', `/v1/identities/${identity}/messages`, {
    key,
    body: { to: [`delivered+${i}@simulator.invalid`], subject: `Stream ${i}`, text: 'x' },
    headers: { 'idempotency-key': `stream-${identity}-${i}-${Math.random()}` },
  });

/** The tenant's events after `after` (an event id), in feed order, through GET /v1/events. */
async function feedAfter(after?: string, key = s.apiKey): Promise<string[]> {
  const ids: string[] = [];
  for (let cursor = after; ; ) {
    const page = await s.call('GET', '/v1/events', {
      key,
      query: { limit: '100', ...(cursor ? { after: cursor } : {}) },
    });
    ids.push(...page.body.data.map((e: { id: string }) => e.id));
    if (!page.body.next_cursor) return ids;
    cursor = page.body.next_cursor;
  }
}
const lastId = async (key = s.apiKey) => (await feedAfter(undefined, key)).at(-1);
const ids = (c: StreamClient) => c.events().map((e) => e.id);
// Waits on liveness, not speed: generous, as the whole suite shares two cores with this file.
const until = async (check: () => boolean | Promise<boolean>, ms = 30_000) => {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
};

/** `n` fan-outs of the tenant run over and over beside the gateway's own, until the answer is called. */
function racingFanOuts(n: number): () => Promise<void> {
  let done = false;
  const racer = async () => {
    while (!done)
      await deliverTenant(portsFor(s.deps, 'stream-fan-out'), s.stream!, s.tenantId, {
        until: Date.now() + 5000,
      });
  };
  const racers = Array.from({ length: n }, racer);
  const stop = async () => {
    done = true;
    racing.delete(stop);
    await Promise.all(racers);
  };
  racing.add(stop);
  return stop;
}

/** The racing fan-outs of a test that failed before stopping them: stopped before the next one. */
const racing = new Set<() => Promise<void>>();
afterEach(async () => {
  await Promise.all([...racing].map((stop) => stop()));
});

describe('the event stream', { timeout: 120_000 }, () => {
  it('delivers the events of 20 sends once each, in feed order, each the Event object GET /v1/events returns', async () => {
    const before = await lastId();
    const c = await openStream(url, { key: s.apiKey });
    const sent = await Promise.all(Array.from({ length: 20 }, (_, i) => delivered(i)));
    expect(sent.map((r) => r.status)).toEqual(Array(20).fill(202));
    await s.settle();
    const expected = await feedAfter(before);
    expect(expected).toHaveLength(20);
    await c.waitForEvents(20);
    expect(ids(c)).toEqual(expected);
    const page = await s.call('GET', '/v1/events', {
      query: { limit: '100', ...(before ? { after: before } : {}) },
    });
    expect(c.events()).toEqual(page.body.data);
    expect(c.events()[0].data).toMatchObject({
      message_id: expect.stringMatching(/^msg_/),
      thread_id: expect.stringMatching(/^thr_/),
    });
    await c.close();
  });

  it('a client dropped mid-burst and reconnected with after gets the rest, none twice', async () => {
    const before = await lastId();
    const first = await openStream(url, { key: s.apiKey });
    const burst = Promise.all(Array.from({ length: 20 }, (_, i) => delivered(100 + i)));
    await first.waitForEvents(5);
    first.ws.terminate();
    const seen = ids(first);
    await burst;
    const second = await openStream(url, { key: s.apiKey, query: { after: seen.at(-1)! } });
    await s.settle();
    const expected = await feedAfter(before);
    await second.waitForEvents(expected.length - seen.length);
    expect([...seen, ...ids(second)]).toEqual(expected);
    await second.close();
  });

  it('never sends a foreign tenant’s events, nor to an identity key another identity’s or a tenant-wide one', async () => {
    const other = await seedTestTenant(s.deps);
    const minted = await s.call('POST', '/v1/keys', {
      body: {
        name: 'agent',
        level: 'identity',
        identity_id: s.agent.id,
        permissions: permissionsOf('identity'),
      },
    });
    const agentKey = minted.body.secret as string;
    const before = await lastId();
    const [tenant, agent, foreign] = await Promise.all([
      openStream(url, { key: s.apiKey }),
      openStream(url, { key: agentKey }),
      openStream(url, { key: other.apiKey }),
    ]);
    await Promise.all([
      delivered(200),
      delivered(201, s.apiKey, s.peer.id),
      delivered(202, other.apiKey, other.identities[0].id),
    ]);
    // A hard bounce: message.bounced for the agent, and suppression.created for the tenant only.
    await s.send({ to: ['bounce@simulator.invalid'], subject: 'Bounces', text: 'x' });
    await s.settle();
    const mine = await feedAfter(before);
    await tenant.waitForEvents(mine.length);
    await foreign.waitForEvents(1);
    const agentIds = (
      await s.call('GET', '/v1/events', {
        key: agentKey,
        query: { limit: '100', ...(before ? { after: before } : {}) },
      })
    ).body.data;
    await agent.waitForEvents(agentIds.length);
    await new Promise((r) => setTimeout(r, 300));
    expect(ids(tenant)).toEqual(mine);
    expect(tenant.events().map((e) => e.type)).toContain('suppression.created');
    expect(agent.events().every((e) => e.data.identity_id === s.agent.id)).toBe(true);
    expect(agent.events().map((e) => e.type)).toEqual(
      expect.arrayContaining(['message.delivered', 'message.bounced']),
    );
    expect(ids(agent)).toEqual(agentIds.map((e: { id: string }) => e.id));
    expect(foreign.events().map((e) => e.data.identity_id)).toEqual([other.identities[0].id]);
    expect(ids(foreign).some((id) => mine.includes(id))).toBe(false);
    // Over HTTP alike: the identity key may not name another identity.
    const peer = await s.call('GET', '/v1/events', { key: agentKey, query: { identity_id: s.peer.id } });
    expect(peer.status).toBe(404);
    await Promise.all([tenant.close(), agent.close(), foreign.close()]);
  });

  it('filters by types (message.* style) and thread', async () => {
    const sent = await delivered(300);
    const thread = (await s.message(s.agent.id, sent.body.id))!.thread_id;
    await s.settle();
    const c = await openStream(url, {
      key: s.apiKey,
      query: { types: 'quota.*,message.delivered', thread_id: thread, after: (await lastId())! },
    });
    const before = (await feedAfter()).length;
    const reply = await s.call('POST', `/v1/identities/${s.agent.id}/messages`, {
      body: { to: ['delivered@simulator.invalid'], subject: 'Same thread', text: 'x', thread_id: thread },
      headers: { 'idempotency-key': `thread-${Math.random()}` },
    });
    expect(reply.status).toBe(202);
    await delivered(301);
    await s.settle();
    expect((await feedAfter()).length).toBeGreaterThan(before + 1);
    await c.waitForEvents(1);
    await new Promise((r) => setTimeout(r, 300));
    expect(c.events().map((e) => [e.type, e.data.thread_id])).toEqual([['message.delivered', thread]]);
    await c.close();
  });

  it('closes a slow consumer with its resume position, and it resumes from there', async () => {
    const before = await lastId();
    const c = await openStream(url, { key: s.apiKey });
    // The client stops reading; big events fill what it may leave unread in a few frames.
    (c.ws as unknown as { _socket: { pause(): void } })._socket.pause();
    const pad = 'p'.repeat(16 * 1024);
    for (let i = 0; i < 30; i++)
      await appendEvent(
        s.deps.db,
        {
          id: `evt_${s.deps.newId()}`,
          type: 'test.big',
          tenant_id: s.tenantId,
          created_at: Date.now(),
          data: { i, pad },
        },
        Date.now(),
      );
    await until(() => s.metrics.lines().some((l) => l.startsWith('stream_closed{reason=slow_consumer}')));
    (c.ws as unknown as { _socket: { resume(): void } })._socket.resume();
    const closed = await c.closed;
    expect(closed).toEqual({ code: STREAM_CLOSE.slow_consumer, reason: 'slow_consumer' });
    const last = c.frames.at(-1)!;
    expect(last).toMatchObject({ type: 'close', code: 4008, reason: 'slow_consumer' });
    const got = ids(c);
    expect(got.length).toBeGreaterThan(0);
    expect(got.length).toBeLessThan(30);
    expect(last.after).toBe(got.at(-1));
    const again = await openStream(url, { key: s.apiKey, query: { after: last.after! } });
    await again.waitForEvents(30 - got.length);
    expect([...got, ...ids(again)]).toEqual(await feedAfter(before));
    await again.close();
  });

  it('answers the connection limit with its close code, and a closed stream gives its place back', async () => {
    const open = await Promise.all(Array.from({ length: LIMIT }, () => openStream(url, { key: s.apiKey })));
    const over = await openStream(url, { key: s.apiKey });
    expect(await over.closed).toEqual({ code: STREAM_CLOSE.connection_limit, reason: 'connection_limit' });
    expect(over.frames).toEqual([
      expect.objectContaining({ type: 'close', code: 4029, reason: 'connection_limit' }),
    ]);
    await open[0].close();
    await until(async () => {
      const next = await openStream(url, { key: s.apiKey });
      const outcome = await Promise.race([
        next.closed.then(() => false),
        new Promise((r) => setTimeout(() => r(true), 400)),
      ]);
      await next.close();
      return outcome === true;
    });
    await Promise.all(open.slice(1).map((c) => c.close()));
  });

  it('opens a stream with a ticket once, bound to its filter; a second use, a wider URL and no key are refused', async () => {
    const made = await s.call('POST', '/v1/stream/tickets', {
      body: { types: ['message.*'], identity_id: s.agent.id },
      headers: { host: new URL(http.url).host },
    });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ ticket: expect.stringMatching(/^wst_/), url });
    const c = await openStream(url, { query: { ticket: made.body.ticket } });
    await delivered(400);
    await delivered(401, s.apiKey, s.peer.id);
    await s.settle();
    await c.waitForEvents(1);
    await new Promise((r) => setTimeout(r, 300));
    expect(c.events().map((e) => [e.type, e.data.identity_id])).toEqual([['message.delivered', s.agent.id]]);
    await expect(openStream(url, { query: { ticket: made.body.ticket } })).rejects.toMatchObject({
      status: 401,
      body: expect.stringContaining('ticket_used'),
    });
    const other = await s.call('POST', '/v1/stream/tickets', { body: { identity_id: s.agent.id } });
    await expect(
      openStream(url, { query: { ticket: other.body.ticket, identity_id: s.peer.id } }),
    ).rejects.toMatchObject({ status: 400, body: expect.stringContaining('ticket_mismatch') });
    await expect(openStream(url)).rejects.toMatchObject({ status: 401 });
    await c.close();
  });

  it('closes a revoked key’s stream at once and an expired key’s at the schedule, each with its code', async () => {
    const mint = async (body: Record<string, unknown> = {}) =>
      (
        await s.call('POST', '/v1/keys', {
          body: {
            name: 'streamer',
            level: 'tenant',
            tenant_id: s.tenantId,
            permissions: ['events:read'],
            ...body,
          },
        })
      ).body;
    const revoked = await mint();
    const c = await openStream(url, { key: revoked.secret });
    expect((await s.call('DELETE', `/v1/keys/${revoked.id}`)).status).toBe(204);
    expect(await c.closed).toEqual({ code: STREAM_CLOSE.key_revoked, reason: 'key_revoked' });
    expect(c.frames.at(-1)).toMatchObject({ type: 'close', reason: 'key_revoked' });
    const ending = await mint({ expires_at: new Date(Date.now() + 1500).toISOString() });
    const d = await openStream(url, { key: ending.secret });
    await new Promise((r) => setTimeout(r, 1600));
    await streamTick(portsFor(s.deps, 'stream-fan-out'), s.stream!, 5_000);
    expect(await d.closed).toEqual({ code: STREAM_CLOSE.key_expired, reason: 'key_expired' });
  });

  it('closes a stream whose after is older than the feed keeps with its code; the schedule sends heartbeats', async () => {
    const old = `evt_${'0'.repeat(4)}${Math.floor(Math.random() * 1e6)
      .toString(32)
      .padStart(22, '0')}`;
    const c = await openStream(url, { key: s.apiKey, query: { after: old } });
    expect(await c.closed).toEqual({ code: STREAM_CLOSE.after_too_old, reason: 'after_too_old' });
    const live = await openStream(url, { key: s.apiKey });
    // The schedule lists a gateway's connections from an index that may not have the newest yet.
    await until(async () => {
      if (live.frames.some((f) => f.type === 'heartbeat')) return true;
      await streamTick(portsFor(s.deps, 'stream-fan-out'), s.stream!, 5_000);
      return false;
    });
    await live.close();
  });

  it('with fan-outs racing on the same tenant, each event goes once and in feed order', async () => {
    const before = await lastId();
    const c = await openStream(url, { key: s.apiKey });
    const stop = racingFanOuts(3);
    await Promise.all(Array.from({ length: 20 }, (_, i) => delivered(500 + i)));
    await s.settle();
    const expected = await feedAfter(before);
    await c.waitForEvents(expected.length);
    await stop();
    await new Promise((r) => setTimeout(r, 200));
    expect(ids(c)).toEqual(expected);
    await c.close();
  });

  it('with fan-outs racing, streams opened mid-burst with after get the rest once each, in feed order', async () => {
    const before = await lastId();
    const first = await openStream(url, { key: s.apiKey });
    const stop = racingFanOuts(2);
    const burst = Promise.all(Array.from({ length: 20 }, (_, i) => delivered(600 + i)));
    await first.waitForEvents(3);
    const resumed = ids(first).slice(0, 3);
    const later = await Promise.all(
      [1].map(() => openStream(url, { key: s.apiKey, query: { after: resumed.at(-1)! } })),
    );
    await burst;
    await s.settle();
    const expected = await feedAfter(before);
    await first.waitForEvents(expected.length);
    for (const c of later) await c.waitForEvents(expected.length - 3);
    await stop();
    await new Promise((r) => setTimeout(r, 200));
    expect(ids(first)).toEqual(expected);
    for (const c of later) expect([...resumed, ...ids(c)]).toEqual(expected);
    await Promise.all([first, ...later].map((c) => c.close()));
  });

  it('one event to a tenant’s streams costs the fan-out two writes, however many streams it has', async () => {
    const streams = await Promise.all(
      Array.from({ length: LIMIT }, () => openStream(url, { key: s.apiKey })),
    );
    await s.settle();
    await new Promise((r) => setTimeout(r, 300));
    let writes = 0;
    const remove = hooksOf(s.deps.db).aroundCall(async (operation, input, next) => {
      const pk = (input.Key as { pk?: string } | undefined)?.pk;
      if (/Put|Update|Delete/.test(operation) && pk === `WS#${s.tenantId}`) writes++;
      return next(input);
    });
    try {
      const id = `evt_${s.deps.newId()}`;
      const now = Date.now();
      await appendEvent(
        s.deps.db,
        { id, type: 'bench.stream', tenant_id: s.tenantId, created_at: now, data: {} },
        now,
      );
      for (const c of streams) await until(() => ids(c).includes(id));
      await new Promise((r) => setTimeout(r, 300));
    } finally {
      remove();
    }
    // The cursor's lease and its release with every position: not a lease and a position per stream.
    expect(writes).toBe(2);
    await Promise.all(streams.map((c) => c.close()));
  });

  it('@pmail/client streams with a ticket (Node’s own WebSocket), one identity’s events, until its signal aborts', async () => {
    const pmail = new Pmail({ apiKey: s.apiKey, baseUrl: http.url });
    const stop = new AbortController();
    let opened!: () => void;
    const open = new Promise<void>((r) => {
      opened = r;
    });
    const got: { id: string; identity: unknown }[] = [];
    const run = (async () => {
      for await (const e of pmail.stream({
        identityId: s.agent.id,
        types: ['message.delivered'],
        signal: stop.signal,
        onOpen: opened,
      })) {
        got.push({ id: e.id, identity: e.data.identity_id });
        if (got.length === 3) stop.abort();
      }
    })();
    await open;
    for (const i of [600, 601, 602]) {
      await delivered(i, s.apiKey, s.peer.id);
      await delivered(i);
    }
    await s.settle();
    await run;
    expect(got.map((g) => g.identity)).toEqual([s.agent.id, s.agent.id, s.agent.id]);
    const agentEvents = (
      await s.call('GET', '/v1/events', { query: { identity_id: s.agent.id, limit: '100' } })
    ).body.data as { id: string }[];
    expect(agentEvents.slice(-3).map((e) => e.id)).toEqual(got.map((g) => g.id));
  });
});
