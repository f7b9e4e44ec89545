import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MessageRecord } from '../../functions/core/model.ts';
import { receivedEvent } from '../../functions/inbound/inbound-record.ts';
import { storeInbound } from '../../functions/store/inbound.store.ts';
import { receivedRecord } from '../support/feeds.ts';
import { type TestStack, testStack } from '../support/local.ts';

/**
 * Labels as state through the HTTP API on DynamoDB Local (docs/guides/receiving.md › Labels):
 * received messages stored as the ingest stores them, then labelled by the tenant's key, by an
 * agent's key without `messages:hold`, by a read-only key, and by two clients at once.
 */
let s: TestStack;
let readKey: string;
let agentKey: string;

beforeAll(async () => {
  s = await testStack();
  const mint = async (name: string, permissions: string[]) => {
    const r = await s.call('POST', '/v1/keys', {
      body: { name, level: 'identity', identity_id: s.agent.id, permissions },
    });
    expect(r.status).toBe(201);
    return r.body.secret as string;
  };
  readKey = await mint('reader', ['messages:read']);
  agentKey = await mint('agent', ['messages:read', 'messages:write']);
}, 60_000);

afterAll(async () => {
  await s?.settle();
  await s?.close();
});

/** A received message of the agent identity, stored as the ingest stores it (held when `held`). */
async function received(subject: string, opts: { held?: boolean; labels?: string[] } = {}) {
  const now = Date.now();
  const m: MessageRecord = {
    ...receivedRecord({
      id: `msg_${s.deps.newId()}`,
      tenantId: s.tenantId,
      identityId: s.agent.id,
      subject,
      at: now,
    }),
    labels: opts.labels ?? [],
    ...(opts.held ? { held: { reason: 'unauthenticated' as const, at: now } } : {}),
  };
  const stored = await storeInbound(s.deps.db, {
    message: m,
    dedupeKey: `key-${m.id}`,
    event: receivedEvent(m, now),
    routedTo: 'agent@example.test',
    snippet: '',
    now,
  });
  expect(stored).toBe('stored');
  return m;
}

/** Every event of the agent identity of `type` so far (read on through the tenant's feed). */
async function eventsOfType(type: string): Promise<{ type: string; data: Record<string, any> }[]> {
  const all: { type: string; data: Record<string, any> }[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await s.call('GET', '/v1/events', {
      query: { limit: '100', identity_id: s.agent.id, ...(after ? { after } : {}) },
    });
    all.push(...page.body.data);
    if (page.body.data.length < 100) return all.filter((e) => e.type === type);
    after = page.body.data.at(-1).id;
  }
}

const labelPath = (m: MessageRecord) => `/v1/identities/${s.agent.id}/messages/${m.id}/labels`;
const threadLabelPath = (m: MessageRecord) => `/v1/identities/${s.agent.id}/threads/${m.thread_id}/labels`;

describe('POST …/messages/{id}/labels', () => {
  it('adds and removes, answers the labels after the change, and the message shows them, its version unchanged', async () => {
    const m = await received('labels: add and remove', { labels: ['From Send'] });
    const first = await s.call('POST', labelPath(m), { body: { add: ['needs-reply', 'crm:lead/42'] } });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ message_id: m.id, labels: ['From Send', 'needs-reply', 'crm:lead/42'] });
    const second = await s.call('POST', labelPath(m), {
      body: { add: ['handled'], remove: ['needs-reply', 'From Send'] },
    });
    expect(second.body.labels).toEqual(['crm:lead/42', 'handled']);
    const shown = await s.call('GET', `/v1/identities/${s.agent.id}/messages/${m.id}`);
    expect(shown.body.labels).toEqual(['crm:lead/42', 'handled']);
    const listed = await s.call('GET', `/v1/identities/${s.agent.id}/messages`, {
      query: { direction: 'inbound', limit: '100' },
    });
    expect(listed.body.data.find((x: { id: string }) => x.id === m.id).labels).toEqual([
      'crm:lead/42',
      'handled',
    ]);
    expect((await s.message(s.agent.id, m.id))?.version).toBe(m.version);
  });

  it('is idempotent: the same change again answers the same labels and emits no second event', async () => {
    const m = await received('labels: idempotent');
    const a = await s.call('POST', labelPath(m), { body: { add: ['urgent', 'urgent'] } });
    const b = await s.call('POST', labelPath(m), { body: { add: ['urgent'] } });
    expect([a.body.labels, b.body.labels]).toEqual([['urgent'], ['urgent']]);
    const events = (await eventsOfType('message.labeled')).filter((e) => e.data.message_id === m.id);
    expect(events).toHaveLength(1);
    expect(events[0].data).toMatchObject({
      identity_id: s.agent.id,
      thread_id: m.thread_id,
      labels: ['urgent'],
      added: ['urgent'],
      removed: [],
    });
  });

  it('keeps every label two clients add at once', async () => {
    const m = await received('labels: concurrent');
    const names = ['a1', 'b2', 'c3', 'd4', 'e5', 'f6'];
    const answers = await Promise.all(
      names.map((l, i) =>
        s.call('POST', labelPath(m), { key: i % 2 ? agentKey : undefined, body: { add: [l] } }),
      ),
    );
    expect(answers.map((r) => r.status)).toEqual(names.map(() => 200));
    const shown = await s.call('GET', `/v1/identities/${s.agent.id}/messages/${m.id}`);
    expect([...shown.body.labels].sort()).toEqual(names);
  });

  it('refuses labels outside the alphabet, a label both added and removed, and more than 20', async () => {
    const m = await received('labels: refused');
    const bad = await s.call('POST', labelPath(m), { body: { add: ['ok', 'no spaces', '-leading'] } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('invalid_label');
    expect(bad.body.error.details.errors.map((e: { path: string }) => e.path)).toEqual(['add[1]', 'add[2]']);
    const both = await s.call('POST', labelPath(m), { body: { add: ['x'], remove: ['x'] } });
    expect(both.body.error.code).toBe('invalid_request');
    const empty = await s.call('POST', labelPath(m), { body: {} });
    expect(empty.body.error.code).toBe('invalid_request');
    const twenty = Array.from({ length: 20 }, (_, i) => `l${i}`);
    expect((await s.call('POST', labelPath(m), { body: { add: twenty } })).status).toBe(200);
    const over = await s.call('POST', labelPath(m), { body: { add: ['one-more'] } });
    expect(over.status).toBe(409);
    expect(over.body.error).toMatchObject({
      code: 'too_many_labels',
      details: { max_labels: 20, would_have: 21 },
    });
    const swap = await s.call('POST', labelPath(m), { body: { add: ['one-more'], remove: ['l0'] } });
    expect(swap.body.labels).toHaveLength(20);
  });

  it('needs messages:write: a messages:read key gets 403 and changes nothing', async () => {
    const m = await received('labels: read-only key');
    const r = await s.call('POST', labelPath(m), { key: readKey, body: { add: ['nope'] } });
    expect(r.status).toBe(403);
    expect(r.body.error).toMatchObject({
      code: 'permission_denied',
      details: { required: 'messages:write' },
    });
    expect((await s.call('GET', `/v1/identities/${s.agent.id}/messages/${m.id}`)).body.labels).toEqual([]);
  });

  it('held mail is not found by a key without messages:hold, and labelled by one with it', async () => {
    const m = await received('labels: held', { held: true });
    const agent = await s.call('POST', labelPath(m), { key: agentKey, body: { add: ['seen'] } });
    expect(agent.status).toBe(404);
    expect(agent.body.error.code).toBe('message_not_found');
    const person = await s.call('POST', labelPath(m), { body: { add: ['reviewed'] } });
    expect(person.body.labels).toEqual(['reviewed']);
    const held = await s.call('GET', `/v1/identities/${s.agent.id}/held`, { query: { limit: '100' } });
    expect(held.body.data.find((x: { id: string }) => x.id === m.id).labels).toEqual(['reviewed']);
    // No event announces it to keys that may not see held mail.
    expect((await eventsOfType('message.labeled')).filter((e) => e.data.message_id === m.id)).toEqual([]);
  });
});

describe('POST …/threads/{id}/labels', () => {
  it('labels a conversation; the thread and the thread list show them; thread.labeled is emitted', async () => {
    const m = await received('labels: thread');
    const r = await s.call('POST', threadLabelPath(m), { key: agentKey, body: { add: ['escalated'] } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ thread_id: m.thread_id, labels: ['escalated'] });
    const thread = await s.call('GET', `/v1/identities/${s.agent.id}/threads/${m.thread_id}`);
    expect(thread.body.labels).toEqual(['escalated']);
    const list = await s.call('GET', `/v1/identities/${s.agent.id}/threads`, { query: { limit: '100' } });
    expect(list.body.data.find((t: { id: string }) => t.id === m.thread_id).labels).toEqual(['escalated']);
    const events = (await eventsOfType('thread.labeled')).filter((e) => e.data.thread_id === m.thread_id);
    expect(events).toHaveLength(1);
    expect(events[0]!.data).toMatchObject({
      identity_id: s.agent.id,
      labels: ['escalated'],
      added: ['escalated'],
    });
  });

  it('a thread of held mail only, or of another identity, is not found; a read-only key gets 403', async () => {
    const held = await received('labels: held thread', { held: true });
    const r = await s.call('POST', threadLabelPath(held), { key: agentKey, body: { add: ['x'] } });
    expect(r.body.error.code).toBe('thread_not_found');
    const m = await received('labels: foreign thread');
    const foreign = await s.call('POST', `/v1/identities/${s.peer.id}/threads/${m.thread_id}/labels`, {
      body: { add: ['x'] },
    });
    expect(foreign.body.error.code).toBe('thread_not_found');
    const ro = await s.call('POST', threadLabelPath(m), { key: readKey, body: { add: ['x'] } });
    expect(ro.status).toBe(403);
  });
});
