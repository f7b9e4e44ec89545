import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../functions/core/fingerprint.ts';
import { localDay } from '../../functions/core/quota.ts';
import { LEASE_MS } from '../../functions/store/idempotency.store.ts';
import { readDailyCounts } from '../../functions/store/quota.store.ts';
import { keys } from '../../functions/store/table-keys.ts';
import { faults, writes } from '../support/faults.ts';
import { listEvents } from '../support/feeds.ts';
import { stackPerTest, type TestStack } from '../support/local.ts';

/**
 * The message is the commit point of a send (docs/architecture.md › The submit path). The reservation mints the message id and
 * keeps it across lease takeovers, the message is a conditional put of that id, the key is
 * completed after it — each a write of its own, with no transaction. Every step is broken here on
 * purpose (a crash between two writes, a lost answer, a request still running when its lease
 * passes): there is still exactly one message and one email per key, and the replays agree.
 */
const stack = stackPerTest();

async function clocked() {
  const at = { now: Date.now() };
  const s = await stack({ clock: () => at.now });
  return { s, at, f: faults(s.deps.db) };
}

const body = (s: TestStack, subject = 'Commit point') => ({
  to: [s.peer.address],
  subject,
  text: 'the body',
});
const inbound = async (s: TestStack) => (await s.mailbox(s.peer.id, 'inbound')).length;
const outbound = async (s: TestStack) => s.mailbox(s.agent.id, 'outbound');
const keyItem = async (s: TestStack, key: string) =>
  (
    await s.deps.db.get({
      TableName: s.deps.db.table,
      Key: keys.idempotency(s.agent.id, sha256Hex(key)),
      ConsistentRead: true,
    })
  ).Item;
const counted = async (s: TestStack, now: number) =>
  (await readDailyCounts(s.deps.db, s.tenantId, s.agent.id, localDay(now, 'UTC'))).identity;

/** After the faults: exactly one message for the key, delivered once, with its own MIME object. */
async function deliveredOnce(s: TestStack, id: string) {
  await s.settle();
  const sent = await outbound(s);
  expect(sent.map((m) => m.id)).toEqual([id]);
  expect(sent[0].status).toBe('delivered');
  expect(await s.deps.blobs.get(sent[0].raw_key)).toBeTruthy();
  expect(await inbound(s)).toBe(1);
}

describe('a crash between two writes of a send', () => {
  const cases: [string, (f: ReturnType<typeof faults>) => void][] = [
    ['after the reservation, before the counts', (f) => f.crashBefore(writes.counts)],
    ['between the counts and the message', (f) => f.crashBefore(writes.message)],
  ];
  for (const [where, inject] of cases) {
    it(`${where}: the retry waits out the lease, takes the key over with its message id, and sends once`, async () => {
      const { s, at, f } = await clocked();
      inject(f);
      const first = await s.send(body(s), `crash-${where}`);
      expect(f.dead).toBe(true);
      expect(first.status).toBeGreaterThanOrEqual(500);
      f.revive();
      const minted = (await keyItem(s, `crash-${where}`))!.message_id;
      expect(minted).toMatch(/^msg_/);
      expect(await outbound(s)).toHaveLength(0);
      // The crashed request's lease still runs: a retry is told to wait.
      const early = await s.send(body(s), `crash-${where}`);
      expect(early.status).toBe(409);
      expect(early.body.error.code).toBe('request_in_progress');
      at.now += LEASE_MS + 1;
      const retry = await s.send(body(s), `crash-${where}`);
      expect(retry.status).toBe(202);
      expect(retry.body.id).toBe(minted);
      expect((await s.send(body(s), `crash-${where}`)).body).toEqual({ ...retry.body, deduplicated: true });
      await deliveredOnce(s, minted);
    });
  }

  it('between the message and the key: the retry finds the message, completes the key from it and counts nothing', async () => {
    const { s, at, f } = await clocked();
    f.crashAfter(writes.message);
    const first = await s.send(body(s), 'crash-after-message');
    expect(first.status).toBeGreaterThanOrEqual(500);
    f.revive();
    const [written] = await outbound(s);
    expect(written.status).toBe('queued');
    expect((await keyItem(s, 'crash-after-message'))!.state).toBe('in_progress');
    at.now += LEASE_MS + 1;
    const retry = await s.send(body(s), 'crash-after-message');
    expect(retry.status).toBe(202);
    expect(retry.body).toMatchObject({ id: written.id, deduplicated: true });
    expect((await keyItem(s, 'crash-after-message'))!.state).toBe('completed');
    const replay = await s.send(body(s), 'crash-after-message');
    expect(replay.body).toEqual(retry.body);
    // One send, counted once: the retry found the message before counting anything.
    expect(await counted(s, at.now)).toBe(1);
    await deliveredOnce(s, written.id);
  });

  it('a different body under a key whose holder crashed after naming its message is a conflict, never a second message', async () => {
    const { s, at, f } = await clocked();
    f.crashAfter(writes.message);
    await s.send(body(s), 'crash-then-other');
    f.revive();
    at.now += LEASE_MS + 1;
    const other = await s.send(body(s, 'Another subject'), 'crash-then-other');
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe('idempotency_conflict');
    const same = await s.send(body(s), 'crash-then-other');
    expect(same.status).toBe(202);
    await deliveredOnce(s, same.body.id);
  });

  it('between the thread lock and a reply: the retry sends the reply once, never referencing itself', async () => {
    const { s, at, f } = await clocked();
    await s.send(body(s, 'Thread'), 'thread-start');
    await s.settle();
    const [received] = await s.mailbox(s.peer.id, 'inbound');
    const reply = () =>
      s.call('POST', `/v1/identities/${s.peer.id}/messages/${received.id}/reply`, {
        body: { text: 'the reply' },
        headers: { 'idempotency-key': 'crash-reply' },
      });
    f.crashAfter(writes.thread);
    expect((await reply()).status).toBeGreaterThanOrEqual(500);
    f.revive();
    at.now += LEASE_MS + 1;
    const retry = await reply();
    expect(retry.status).toBe(202);
    await s.settle();
    const replies = await s.mailbox(s.peer.id, 'outbound');
    expect(replies.map((m) => m.id)).toEqual([retry.body.id]);
    const m = replies[0];
    expect(m.status).toBe('delivered');
    expect(m.references ?? []).not.toContain(m.rfc_message_id);
    expect(m.in_reply_to).toBe(received.rfc_message_id);
    const thread = (
      await s.deps.db.get({
        TableName: s.deps.db.table,
        Key: { pk: `I#${s.peer.id}`, sk: `TH#${m.thread_id}` },
        ConsistentRead: true,
      })
    ).Item!;
    expect(thread.refs.filter((r: string) => r === m.rfc_message_id)).toHaveLength(1);
    expect(thread.lock_owner).toBeUndefined();
    // The agent got the reply once.
    expect(await s.mailbox(s.agent.id, 'inbound')).toHaveLength(1);
  });

  it("between a suppressed send's message and its event: the retry writes the event, once", async () => {
    const { s, at, f } = await clocked();
    await s.call('POST', `/v1/tenants/${s.tenantId}/suppressions`, {
      body: { address: s.peer.address, reason: 'manual' },
    });
    f.crashBefore(writes.event);
    expect((await s.send(body(s), 'crash-suppressed')).status).toBeGreaterThanOrEqual(500);
    f.revive();
    const [m] = await outbound(s);
    expect(m.status).toBe('suppressed');
    const suppressedEvents = async () =>
      (await listEvents(s.deps.db, s.tenantId, { limit: 100 })).data.filter(
        (e) => e.type === 'message.suppressed' && e.data.message_id === m.id,
      );
    expect(await suppressedEvents()).toHaveLength(0);
    at.now += LEASE_MS + 1;
    const retry = await s.send(body(s), 'crash-suppressed');
    expect(retry.body).toMatchObject({ id: m.id, status: 'suppressed' });
    expect(await suppressedEvents()).toHaveLength(1);
    // A second takeover path (a lost answer after the event) writes no second event.
    expect((await s.send(body(s), 'crash-suppressed')).body).toEqual(retry.body);
    expect(await suppressedEvents()).toHaveLength(1);
  });
});

describe('retries at once', () => {
  it('three retries taking over one expired key together: one takes it, none makes a second message', async () => {
    const { s, at, f } = await clocked();
    f.crashAfter(writes.message);
    await s.send(body(s), 'retried-together');
    f.revive();
    const [written] = await outbound(s);
    at.now += LEASE_MS + 1;
    const answers = await Promise.all([1, 2, 3].map(() => s.send(body(s), 'retried-together')));
    for (const a of answers) {
      if (a.status === 409) expect(a.body.error.code).toBe('request_in_progress');
      else expect(a.body).toMatchObject({ id: written.id, deduplicated: true });
    }
    expect(answers.filter((a) => a.status === 202).length).toBeGreaterThanOrEqual(1);
    expect((await keyItem(s, 'retried-together'))!.attempt).toBe(1);
    expect(await counted(s, at.now)).toBe(1);
    await deliveredOnce(s, written.id);
  });
});

describe('a lost answer', () => {
  it("of the message's put: the key keeps its message, the retry at once completes it from the message", async () => {
    const { s, at, f } = await clocked();
    f.loseAnswer(writes.message);
    const first = await s.send(body(s), 'lost-message');
    expect(first.status).toBeGreaterThanOrEqual(500);
    const [written] = await outbound(s);
    // Not deleted: the key names the message, with its lease ended.
    expect(await keyItem(s, 'lost-message')).toMatchObject({
      state: 'in_progress',
      message_id: written.id,
      lease_until: at.now,
    });
    const retry = await s.send(body(s), 'lost-message');
    expect(retry.status).toBe(202);
    expect(retry.body).toMatchObject({ id: written.id, deduplicated: true });
    expect(await counted(s, at.now)).toBe(1);
    await deliveredOnce(s, written.id);
  });

  it("of the key's completion: the retry replays what was stored", async () => {
    const { s, f } = await clocked();
    f.loseAnswer(writes.keyCompletion);
    const first = await s.send(body(s), 'lost-completion');
    expect(first.status).toBeGreaterThanOrEqual(500);
    const [written] = await outbound(s);
    const retry = await s.send(body(s), 'lost-completion');
    expect(retry.status).toBe(202);
    expect(retry.body).toMatchObject({ id: written.id, status: 'queued', deduplicated: true });
    await deliveredOnce(s, written.id);
  });
});

describe('a duplicate invocation: the owner still runs when its lease passes and another request takes the key over', () => {
  it('the taker writes the message first: the owner finds it, gives its count back and answers the same', async () => {
    const { s, at, f } = await clocked();
    const held = f.pauseBefore(writes.message);
    const owner = s.send(body(s), 'overtaken');
    await held.reached;
    at.now += LEASE_MS + 1;
    const taker = await s.send(body(s), 'overtaken');
    expect(taker.status).toBe(202);
    held.go();
    const late = await owner;
    expect(late.status).toBe(202);
    expect(late.body).toEqual({ ...taker.body, deduplicated: true });
    const [m] = await outbound(s);
    // The taker's MIME object is the message's; the owner's own object was removed.
    expect(m.raw_key).toMatch(/\.1\.eml$/);
    expect(await s.deps.blobs.get(m.raw_key.replace(/\.1\.eml$/, '.eml'))).toBeUndefined();
    expect(await counted(s, at.now)).toBe(1);
    await deliveredOnce(s, m.id);
  });

  it('the owner writes the message first: the taker loses the put, gives its count back and replays the owner', async () => {
    const { s, at, f } = await clocked();
    const ownerHeld = f.pauseBefore(writes.message);
    const owner = s.send(body(s), 'overtaking');
    await ownerHeld.reached;
    at.now += LEASE_MS + 1;
    const takerHeld = f.pauseBefore(writes.message);
    const taker = s.send(body(s), 'overtaking');
    await takerHeld.reached;
    ownerHeld.go();
    const first = await owner;
    expect(first.status).toBe(202);
    expect(first.body.deduplicated).toBe(false);
    takerHeld.go();
    const second = await taker;
    expect(second.body).toEqual({ ...first.body, deduplicated: true });
    const [m] = await outbound(s);
    expect(m.raw_key).toMatch(/msg_\w+\.eml$/);
    expect(await s.deps.blobs.get(m.raw_key.replace(/\.eml$/, '.1.eml'))).toBeUndefined();
    expect(await counted(s, at.now)).toBe(1);
    await deliveredOnce(s, m.id);
  });
});
