import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import nodemailer from 'nodemailer';
import { afterAll, describe, expect, it } from 'vitest';
import { startHttpServer } from '../../functions/local/http-server.ts';
import { silentLogger } from '../../functions/log.ts';
import { queryPrefix } from '../../functions/store/db.ts';
import { hooksOf } from '../../functions/store/dynamodb.ts';
import { faults, writes } from '../support/faults.ts';
import { stackPerTest, type TestStack } from '../support/local.ts';

/**
 * Readers get what is committed in commit order, however long after its id was minted
 * (docs/design/ordering.md): a follower of a mailbox (MCP `wait_for_message`, `GET
 * …/messages?after=`) and a reader of the event feed (`GET /v1/events?after=`) each get a late
 * commit once, through the ways in a user has: the local MX, the HTTP API, MCP.
 */
const stack = stackPerTest();
const closers: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const c of closers.reverse()) await c();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A follower of one identity's mailbox through `GET …/messages?after=`: the ids it was given, in order. */
function follower(s: TestStack, identityId: string, start: string, direction: 'inbound' | 'outbound') {
  let after = start;
  const seen: string[] = [];
  return {
    seen,
    async read(): Promise<string[]> {
      const got: string[] = [];
      for (;;) {
        const res = await s.call('GET', `/v1/identities/${identityId}/messages`, {
          query: { after, direction, limit: '100' },
        });
        expect(res.status).toBe(200);
        got.push(...res.body.data.map((m: { id: string }) => m.id));
        after = res.body.after;
        if (res.body.next_cursor === null) break;
      }
      seen.push(...got);
      return got;
    },
  };
}

/** A reader of the tenant's events through `GET /v1/events?after=` (the last id it saw): every event it was given. */
function eventReader(s: TestStack) {
  let after: string | undefined;
  const seen: { id: string; type: string; data: { message_id?: string } }[] = [];
  return {
    seen,
    async read() {
      for (;;) {
        const res = await s.call('GET', '/v1/events', {
          query: { limit: '100', ...(after ? { after } : {}) },
        });
        expect(res.status).toBe(200);
        seen.push(...res.body.data);
        after = seen.at(-1)?.id ?? after;
        if (res.body.next_cursor === null) return;
      }
    },
  };
}

describe('a message committed long after its id was minted is read once', () => {
  it('an inbound message whose raw copy takes 3 s: wait_for_message (MCP) gets it, through the local MX', async () => {
    const s = await stack({ inbound: { port: 0 } });
    const http = await startHttpServer(s.groups, { port: 0, log: silentLogger });
    closers.push(http.close);
    const client = new Client({ name: 'pmail-order-agent', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${http.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${s.apiKey}` } },
      }),
    );
    closers.push(() => client.close());
    const wait = async (args: Record<string, unknown>) =>
      (await client.callTool({ name: 'wait_for_message', arguments: { identity_id: s.agent.id, ...args } }))
        .structuredContent as { data: { id: string; subject: string }[]; after: string; timed_out: boolean };
    const { after } = await wait({ timeout_seconds: 1 });

    // The ingest's copy of the raw message (under the id it minted) is slow to write.
    const blobs = s.deps.blobs;
    const put = blobs.put.bind(blobs);
    blobs.put = async (key, ...rest) => {
      if (key.includes(`/i/${s.agent.id}/in/`)) await sleep(3000);
      return put(key, ...rest);
    };
    const waiting = wait({ after, timeout_seconds: 10 });
    const subject = `Slow copy ${Date.now()}`;
    await nodemailer
      .createTransport({ host: s.mx!.host, port: s.mx!.port, secure: false, ignoreTLS: true })
      .sendMail({
        envelope: { from: 'customer@simulator.invalid', to: [s.agent.address] },
        raw: `From: customer@simulator.invalid\r\nTo: ${s.agent.address}\r\nSubject: ${subject}\r\nMessage-ID: <slow-${Date.now()}@simulator.invalid>\r\n\r\nHello.\r\n`,
      });
    const answer = await waiting;
    blobs.put = put;
    expect(answer.data.map((m) => m.subject)).toEqual([subject]);
    expect((await wait({ after: answer.after, timeout_seconds: 1 })).data).toEqual([]);
  });

  it('a send whose key was taken over after its lease (id minted 61 s before the commit)', async () => {
    let now = Date.now();
    const s = await stack({ clock: () => now });
    const body = (subject: string) => ({ to: ['delivered@simulator.invalid'], subject, text: 'x' });
    const start = await s.send(body('start'), 'order-start');
    expect(start.status).toBe(202);
    const follow = follower(s, s.agent.id, start.body.id, 'outbound');

    // The first request minted the id and died before its commit.
    const f = faults(s.deps.db);
    f.crashBefore(writes.message);
    expect((await s.send(body('taken over'), 'order-takeover')).status).toBeGreaterThanOrEqual(500);
    f.revive();
    expect(await follow.read()).toEqual([]);
    now += 61_000;
    expect(await follow.read()).toEqual([]);

    // Its retry, after the lease: the same id, committed now.
    const retry = await s.send(body('taken over'), 'order-takeover');
    expect(retry.status).toBe(202);
    expect(await follow.read()).toEqual([retry.body.id]);
    expect(await follow.read()).toEqual([]);
    expect(follow.seen).toEqual([retry.body.id]);
  });

  it('a reply that waited for its thread’s lock', async () => {
    let now = Date.now();
    const s = await stack({ clock: () => now });
    await s.send({ to: [s.peer.address], subject: 'Order lock', text: 'start' }, 'lock-start');
    await s.settle();
    const [m] = await s.mailbox(s.peer.id, 'inbound');
    const follow = follower(s, s.peer.id, m.id, 'outbound');
    const lock = (expression: string, values?: Record<string, unknown>) =>
      s.deps.db.update({
        TableName: s.deps.db.table,
        Key: { pk: `I#${s.peer.id}`, sk: `TH#${m.thread_id}` },
        UpdateExpression: expression,
        ExpressionAttributeValues: values,
      });
    // Another message of the thread holds its lock.
    await lock('SET lock_owner = :o, lock_until = :u', { ':o': 'msg_someoneelse', ':u': now + 3_600_000 });
    const reply = s.call('POST', `/v1/identities/${s.peer.id}/messages/${m.id}/reply`, {
      body: { text: 'after the lock' },
      headers: { 'idempotency-key': 'lock-reply' },
    });
    await sleep(700); // the reply has its id and waits for the lock
    now += 3000;
    expect(await follow.read()).toEqual([]);
    await lock('REMOVE lock_owner, lock_until');
    const sent = await reply;
    expect(sent.status).toBe(202);
    expect(await follow.read()).toEqual([sent.body.id]);
    expect(await follow.read()).toEqual([]);
  });
});

describe('an event committed late is read once', () => {
  it('GET /v1/events?after= gives an identity’s pause event that committed after a later one', async () => {
    let now = Date.now();
    const s = await stack({ clock: () => now });
    const reader = eventReader(s);
    await reader.read();
    const pause = (id: string) => s.call('PATCH', `/v1/identities/${id}`, { body: { status: 'paused' } });

    // The agent's pause has its event's id, and its write is held; the peer's commits meanwhile.
    const held = faults(s.deps.db).pauseBefore(
      (c) => c.command === 'TransactWriteItems' && JSON.stringify(c.input).includes('identity.paused'),
    );
    const first = pause(s.agent.id);
    await held.reached;
    now += 3000;
    expect((await pause(s.peer.id)).status).toBe(200);
    now += 3000;
    await reader.read();
    held.go();
    expect((await first).status).toBe(200);
    await reader.read();
    const paused = reader.seen
      .filter((e) => e.type === 'identity.paused')
      .map((e) => (e.data as { identity_id: string }).identity_id);
    expect(paused.sort()).toEqual([s.agent.id, s.peer.id].sort());
  });

  it('reads from the beginning past numbers whose slots expired with their events, writing nothing', async () => {
    let now = Date.now();
    const s = await stack({ clock: () => now });
    for (const status of ['paused', 'active', 'paused', 'active'])
      expect((await s.call('PATCH', `/v1/identities/${s.agent.id}`, { body: { status } })).status).toBe(200);
    // A month on, the table's TTL has deleted the first two events' slots.
    const slots = await queryPrefix(s.deps.db, `T#${s.tenantId}`, 'EF#0');
    expect(slots).toHaveLength(4);
    for (const slot of slots.slice(0, 2))
      await s.deps.db.delete({ TableName: s.deps.db.table, Key: { pk: slot.pk, sk: slot.sk } });
    now += 31 * 24 * 3600_000;
    // What the read writes in the feed (the key's last use is bookkept apart).
    const written: string[] = [];
    const remove = hooksOf(s.deps.db).aroundCall(async (operation, input, next) => {
      const sk = String((input.Item as { sk?: unknown } | undefined)?.sk ?? '');
      if (operation === 'PutItem' && sk.startsWith('EF#')) written.push(sk);
      return next(input);
    });
    const read = await s.call('GET', '/v1/events', { query: { limit: '100' } });
    remove();
    expect(read.body.data.map((e: { type: string }) => e.type)).toEqual([
      'identity.paused',
      'identity.resumed',
    ]);
    expect(written).toEqual([]);
  });
});
