import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../../functions/core/fingerprint.ts';
import { localDay } from '../../../functions/core/quota.ts';
import { isOutcomeUnknown, isTransient } from '../../../functions/store/db.ts';
import { appendEvent } from '../../../functions/store/events.store.ts';
import { LEASE_MS } from '../../../functions/store/idempotency.store.ts';
import { mutateMessage } from '../../../functions/store/messages.store.ts';
import { readDailyCounts } from '../../../functions/store/quota.store.ts';
import { keys } from '../../../functions/store/table-keys.ts';
import {
  getThread,
  LOCK_LEASE_MS,
  refreshThreadLock,
  releaseThreadLock,
  takeThreadForSend,
} from '../../../functions/store/threads.store.ts';
import { type Call, faults, writes } from '../../support/faults.ts';
import { listEvents } from '../../support/feeds.ts';
import { stackPerTest, type TestStack } from '../../support/local.ts';

/**
 * The submit path's conditional writes, each with its answer lost inside the SDK's retry after
 * DynamoDB applied it (docs/lost-answers.md): alone, and with another writer's write landing before
 * whatever sends it again. Each recognises its own earlier send, so the end state is one message,
 * one email where a send is involved, the day counted once, and replays identical.
 */
const stack = stackPerTest();

async function clocked(opts: Parameters<typeof stack>[0] = {}) {
  const at = { now: Date.now() };
  const s = await stack({ clock: () => at.now, ...opts });
  return { s, at, f: faults(s.deps.db) };
}

/** `loseAnswerInRetry`'s option: another writer's write lands before whatever sends the write again. */
// biome-ignore lint/suspicious/noThenProperty: the fault helper names this option `then`
const meanwhile = (write: () => Promise<unknown>) => ({ then: write });

const body = (s: TestStack, subject = 'Lost answers') => ({
  to: [s.peer.address],
  subject,
  text: 'the body',
});
const outbound = (s: TestStack) => s.mailbox(s.agent.id, 'outbound');
const counted = async (s: TestStack, now: number) =>
  (await readDailyCounts(s.deps.db, s.tenantId, s.agent.id, localDay(now, 'UTC'))).identity;
const keyItem = async (s: TestStack, key: string) =>
  (
    await s.deps.db.get({
      TableName: s.deps.db.table,
      Key: keys.idempotency(s.agent.id, sha256Hex(key)),
      ConsistentRead: true,
    })
  ).Item;

const cancel = (s: TestStack, id: string) =>
  s.call('POST', `/v1/identities/${s.agent.id}/messages/${id}/cancel`);

/** The raw DynamoDB JSON of a request as the in-retry fault sees it. */
const text = (v: unknown) => (v as { S?: string } | undefined)?.S ?? '';
const pkOf = (c: Call) => text(((c.input.Item ?? c.input.Key) as Record<string, unknown> | undefined)?.pk);
const on = (command: string, sk: string | RegExp, pk?: string) => (c: Call) =>
  c.command === command &&
  (typeof sk === 'string' ? c.sk.startsWith(sk) : sk.test(c.sk)) &&
  (pk === undefined || pkOf(c) === pk);
const updating = (sk: string, part: string) => (c: Call) =>
  c.command === 'UpdateItem' && c.sk.startsWith(sk) && String(c.input.UpdateExpression).includes(part);
/** A TransactWriteItems whose first item puts a message (store/actions.ts › transition). */
const messageTransaction = (c: Call) => {
  const first = (c.input.TransactItems as { Put?: { Item?: { sk?: unknown } } }[] | undefined)?.[0];
  return c.command === 'TransactWriteItems' && text(first?.Put?.Item?.sk).startsWith('M#');
};
const events = async (s: TestStack, type: string) =>
  (await listEvents(s.deps.db, s.tenantId, { limit: 100 })).data.filter((e) => e.type === type);

/** One message for the key, delivered once, its own MIME object kept. */
async function deliveredOnce(s: TestStack, id: string) {
  await s.settle();
  const sent = await outbound(s);
  expect(sent.map((m) => m.id)).toEqual([id]);
  expect(sent[0].status).toBe('delivered');
  expect(await s.deps.blobs.get(sent[0].raw_key)).toBeTruthy();
  expect(await s.mailbox(s.peer.id, 'inbound')).toHaveLength(1);
}

describe('messages.store.ts › putAcceptedMessage: the commit point recognises its own message', () => {
  it('its answer lost: the put is sent again, finds its own message, and the send is accepted once', async () => {
    const { s, at, f } = await clocked();
    const rule = f.loseAnswerInRetry(writes.message);
    const first = await s.send(body(s), 'lost-put');
    expect(first.status).toBe(202);
    expect(first.body.deduplicated).toBe(false);
    expect(f.sent(rule)).toBe(2);
    expect(await counted(s, at.now)).toBe(1);
    expect(await keyItem(s, 'lost-put')).toMatchObject({ state: 'completed', message_id: first.body.id });
    expect((await s.send(body(s), 'lost-put')).body).toEqual({ ...first.body, deduplicated: true });
    await deliveredOnce(s, first.body.id);
  });

  it('its answer lost and the message canceled before the resend: still its own; the MIME kept, nothing sent', async () => {
    const { s, at, f } = await clocked();
    f.loseAnswerInRetry(
      writes.message,
      meanwhile(async () => {
        const [m] = await outbound(s);
        expect((await cancel(s, m.id)).status).toBe(200);
      }),
    );
    const first = await s.send(body(s), 'lost-put-canceled');
    expect(first.status).toBe(202);
    expect(first.body.deduplicated).toBe(false);
    expect((await s.send(body(s), 'lost-put-canceled')).body).toEqual({ ...first.body, deduplicated: true });
    await s.settle();
    const sent = await outbound(s);
    expect(sent.map((m) => [m.id, m.status])).toEqual([[first.body.id, 'canceled']]);
    expect(await s.deps.blobs.get(sent[0].raw_key)).toBeTruthy();
    // The cancel gave the day's count back, once.
    expect(await counted(s, at.now)).toBe(0);
    expect(await s.mailbox(s.peer.id, 'inbound')).toHaveLength(0);
  });
});

describe('idempotency.store.ts › putReservation and idempotency.store.ts › takeOver: the reservation recognises its own owner', () => {
  const reservation = on('PutItem', 'IK#');
  const takeover = updating('IK#', 'attempt = :attempt');

  it('the put: its answer lost, sent again, it finds its own reservation; the send is accepted once', async () => {
    const { s, at, f } = await clocked();
    const rule = f.loseAnswerInRetry(reservation);
    const first = await s.send(body(s), 'lost-reserve');
    expect(first.status).toBe(202);
    expect(first.body.deduplicated).toBe(false);
    expect(f.sent(rule)).toBe(2);
    expect(await counted(s, at.now)).toBe(1);
    expect((await s.send(body(s), 'lost-reserve')).body).toEqual({ ...first.body, deduplicated: true });
    await deliveredOnce(s, first.body.id);
  });

  it("the put: a retry takes the key over (the lease passed) and sends before the resend: that retry's send, once", async () => {
    const { s, at, f } = await clocked();
    let retry: Awaited<ReturnType<TestStack['send']>> | undefined;
    f.loseAnswerInRetry(
      reservation,
      meanwhile(async () => {
        at.now += LEASE_MS + 1;
        retry = await s.send(body(s), 'lost-reserve-overtaken');
      }),
    );
    const first = await s.send(body(s), 'lost-reserve-overtaken');
    expect(retry?.status).toBe(202);
    expect(first.status).toBe(202);
    expect(first.body).toEqual({ ...retry!.body, deduplicated: true });
    expect(await counted(s, at.now)).toBe(1);
    await deliveredOnce(s, first.body.id);
  });

  it('the takeover: its answer lost, the re-read finds it ours; the send is accepted once', async () => {
    const { s, at, f } = await clocked();
    f.crashBefore(writes.counts);
    await s.send(body(s), 'lost-takeover');
    f.revive();
    at.now += LEASE_MS + 1;
    const rule = f.loseAnswerInRetry(takeover);
    const retry = await s.send(body(s), 'lost-takeover');
    expect(retry.status).toBe(202);
    expect(retry.body.deduplicated).toBe(false);
    expect(f.sent(rule)).toBe(1);
    expect(await keyItem(s, 'lost-takeover')).toMatchObject({ state: 'completed', attempt: 1 });
    expect(await counted(s, at.now)).toBe(1);
    await deliveredOnce(s, retry.body.id);
  });

  it('the takeover: its lease passes and a later retry takes over and sends first: one send, answered alike', async () => {
    const { s, at, f } = await clocked();
    f.crashBefore(writes.counts);
    await s.send(body(s), 'lost-takeover-overtaken');
    f.revive();
    at.now += LEASE_MS + 1;
    let later: Awaited<ReturnType<TestStack['send']>> | undefined;
    f.loseAnswerInRetry(
      takeover,
      meanwhile(async () => {
        at.now += LEASE_MS + 1;
        later = await s.send(body(s), 'lost-takeover-overtaken');
      }),
    );
    const retry = await s.send(body(s), 'lost-takeover-overtaken');
    expect(later?.status).toBe(202);
    expect(retry.body).toEqual({ ...later!.body, deduplicated: true });
    expect(await keyItem(s, 'lost-takeover-overtaken')).toMatchObject({ state: 'completed', attempt: 2 });
    expect(await counted(s, at.now)).toBe(1);
    await deliveredOnce(s, retry.body.id);
  });
});

describe('idempotency.store.ts › completeIdempotency: the completion recognises its own answer', () => {
  it('its answer lost: the re-read finds the key completed with this answer; accepted, not sent again', async () => {
    const { s, at, f } = await clocked();
    const rule = f.loseAnswerInRetry(writes.keyCompletion);
    const first = await s.send(body(s), 'lost-complete');
    expect(first.status).toBe(202);
    expect(first.body.deduplicated).toBe(false);
    expect(f.sent(rule)).toBe(1);
    expect((await s.send(body(s), 'lost-complete')).body).toEqual({ ...first.body, deduplicated: true });
    expect(await counted(s, at.now)).toBe(1);
    await deliveredOnce(s, first.body.id);
  });

  it('its answer lost and the message canceled before the re-read: the answer the key holds, replayed alike', async () => {
    const { s, f } = await clocked();
    f.loseAnswerInRetry(
      writes.keyCompletion,
      meanwhile(async () => {
        const [m] = await outbound(s);
        expect((await cancel(s, m.id)).status).toBe(200);
      }),
    );
    const first = await s.send(body(s), 'lost-complete-canceled');
    expect(first.status).toBe(202);
    expect(first.body).toMatchObject({ status: 'queued', deduplicated: false });
    expect((await s.send(body(s), 'lost-complete-canceled')).body).toEqual({
      ...first.body,
      deduplicated: true,
    });
    await s.settle();
    expect((await outbound(s)).map((m) => m.status)).toEqual(['canceled']);
    expect(await s.mailbox(s.peer.id, 'inbound')).toHaveLength(0);
  });
});

describe('idempotency.store.ts › stillOurs: the key given back only while it is ours', () => {
  const release = (c: Call) => c.command === 'DeleteItem' && c.sk.startsWith('IK#');
  const abandon = updating('IK#', 'SET lease_until = :now');
  // A reply to a message that does not exist fails after its reservation, which is deleted.
  const replyToNothing = (s: TestStack, key: string) =>
    s.call('POST', `/v1/identities/${s.agent.id}/messages/msg_${s.deps.newId()}/reply`, {
      body: { text: 'the reply' },
      headers: { 'idempotency-key': key },
    });

  it('the release: its answer lost, the re-read finds the key gone; not sent again', async () => {
    const { s, f } = await clocked();
    const rule = f.loseAnswerInRetry(release);
    expect((await replyToNothing(s, 'lost-release')).status).toBe(404);
    expect(f.sent(rule)).toBe(1);
    expect(await keyItem(s, 'lost-release')).toBeUndefined();
  });

  it("the release: another request reserves the key before the re-read: that request's reservation is kept", async () => {
    const { s, f } = await clocked();
    let other: Awaited<ReturnType<TestStack['send']>> | undefined;
    f.loseAnswerInRetry(
      release,
      meanwhile(async () => {
        other = await s.send(body(s), 'lost-release-reused');
      }),
    );
    expect((await replyToNothing(s, 'lost-release-reused')).status).toBe(404);
    expect(other?.status).toBe(202);
    expect(await keyItem(s, 'lost-release-reused')).toMatchObject({
      state: 'completed',
      message_id: other!.body.id,
    });
    await s.settle();
    expect((await outbound(s)).map((m) => [m.id, m.status])).toEqual([[other!.body.id, 'delivered']]);
  });

  it('the abandon: its answer lost, the re-read finds the lease ended; the retry completes from the message', async () => {
    const { s, at, f } = await clocked();
    f.loseAnswer(writes.message);
    const rule = f.loseAnswerInRetry(abandon);
    expect((await s.send(body(s), 'lost-abandon')).status).toBe(503);
    expect(f.sent(rule)).toBe(1);
    const [m] = await outbound(s);
    expect(await keyItem(s, 'lost-abandon')).toMatchObject({
      state: 'in_progress',
      message_id: m.id,
      lease_until: at.now,
    });
    const retry = await s.send(body(s), 'lost-abandon');
    expect(retry.body).toMatchObject({ id: m.id, deduplicated: true });
    expect(await counted(s, at.now)).toBe(1);
    await deliveredOnce(s, m.id);
  });

  it('the abandon: the retry takes the key over before the re-read: its completion is kept', async () => {
    const { s, at, f } = await clocked();
    f.loseAnswer(writes.message);
    let retry: Awaited<ReturnType<TestStack['send']>> | undefined;
    f.loseAnswerInRetry(
      abandon,
      meanwhile(async () => {
        retry = await s.send(body(s), 'lost-abandon-overtaken');
      }),
    );
    expect((await s.send(body(s), 'lost-abandon-overtaken')).status).toBe(503);
    expect(retry?.status).toBe(202);
    expect(await keyItem(s, 'lost-abandon-overtaken')).toMatchObject({
      state: 'completed',
      message_id: retry!.body.id,
    });
    expect((await s.send(body(s), 'lost-abandon-overtaken')).body).toEqual(retry!.body);
    expect(await counted(s, at.now)).toBe(1);
    await deliveredOnce(s, retry!.body.id);
  });
});

/** No execution starts: a queued message stays queued for the test to cancel. */
const undispatched = { dispatcher: { start: async () => undefined } } as Parameters<typeof stack>[0];

describe('the transactions: messages.store.ts › messagePutItem, events.store.ts › eventPutItem, idempotency.store.ts › completeIdempotencyUpdate', () => {
  it('a cancel: its answer lost, the SDK resends it with its ClientRequestToken; canceled once, one event, the count back once', async () => {
    const { s, at, f } = await clocked(undispatched);
    const sent = await s.send(body(s), 'tx-cancel');
    expect(await counted(s, at.now)).toBe(1);
    const rule = f.loseAnswerInRetry(messageTransaction);
    const canceled = await cancel(s, sent.body.id);
    expect(canceled.status).toBe(200);
    expect(canceled.body.status).toBe('canceled');
    expect(f.sent(rule)).toBe(2);
    expect((await events(s, 'message.canceled')).map((e) => e.data.message_id)).toEqual([sent.body.id]);
    expect(await counted(s, at.now)).toBe(0);
    expect((await s.message(s.agent.id, sent.body.id))?.status).toBe('canceled');
  });

  it('a cancel: another writer labels the message before the resend; the cancel answered once, both writes kept', async () => {
    const { s, at, f } = await clocked(undispatched);
    const sent = await s.send(body(s), 'tx-cancel-2');
    f.loseAnswerInRetry(
      messageTransaction,
      meanwhile(() =>
        mutateMessage(s.deps.db, s.agent.id, sent.body.id, (m) => ({
          next: { ...m, labels: [...m.labels, 'other'] },
          result: undefined,
        })),
      ),
    );
    const canceled = await cancel(s, sent.body.id);
    expect(canceled.status).toBe(200);
    expect(await s.message(s.agent.id, sent.body.id)).toMatchObject({
      status: 'canceled',
      labels: ['other'],
    });
    expect(await events(s, 'message.canceled')).toHaveLength(1);
    expect(await counted(s, at.now)).toBe(0);
  });

  it("a resolve under an Idempotency-Key: its answer lost and resent; resolved once, the key's answer replayed", async () => {
    const { s, f } = await clocked();
    const sent = await s.send(
      { to: ['timeout@simulator.invalid'], subject: 'T', text: 'x' },
      'tx-resolve-send',
    );
    await s.settle();
    expect((await s.message(s.agent.id, sent.body.id))?.status).toBe('uncertain');
    const path = `/v1/identities/${s.agent.id}/messages/${sent.body.id}/resolve`;
    const headers = { 'idempotency-key': 'tx-resolve' };
    const rule = f.loseAnswerInRetry(messageTransaction);
    const resolved = await s.call('POST', path, { body: { outcome: 'sent' }, headers });
    expect(resolved.status).toBe(200);
    expect(resolved.body.status).toBe('submitted');
    expect(f.sent(rule)).toBe(2);
    const replay = await s.call('POST', path, { body: { outcome: 'sent' }, headers });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(resolved.body);
    expect(await events(s, 'message.sent')).toHaveLength(1);
  });
});

describe('messages.store.ts › mutateMessage: a version write recognises its own token', () => {
  const label = (s: TestStack, id: string, name: string) =>
    mutateMessage(s.deps.db, s.agent.id, id, (m) =>
      m.labels.includes(name)
        ? { result: 'had' }
        : { next: { ...m, labels: [...m.labels, name] }, result: 'added' },
    );
  const putOf = (id: string) => on('PutItem', `M#${id}`);

  it('its answer lost: the re-read finds its own token one version on; written, not sent again', async () => {
    const { s, f } = await clocked();
    const sent = await s.send(body(s), 'mutate');
    await s.settle();
    const before = (await s.message(s.agent.id, sent.body.id))!;
    const rule = f.loseAnswerInRetry(putOf(sent.body.id));
    const out = await label(s, sent.body.id, 'mine');
    expect(out).toMatchObject({ found: true, written: true, result: 'added' });
    expect(f.sent(rule)).toBe(1);
    const stored = (await s.message(s.agent.id, sent.body.id))!;
    expect(stored).toMatchObject({ version: before.version + 1, labels: ['mine'] });
    expect(stored).not.toHaveProperty('mt');
  });

  it('its answer lost and another write on top of it: the unknown outcome goes up; the retry decides on the message as it is', async () => {
    const { s, f } = await clocked();
    const sent = await s.send(body(s), 'mutate-2');
    await s.settle();
    const before = (await s.message(s.agent.id, sent.body.id))!;
    f.loseAnswerInRetry(
      putOf(sent.body.id),
      meanwhile(() => label(s, sent.body.id, 'other')),
    );
    const err = await label(s, sent.body.id, 'mine').catch((e) => e);
    expect(isOutcomeUnknown(err)).toBe(true);
    expect(isTransient(err)).toBe(true);
    expect(await label(s, sent.body.id, 'mine')).toMatchObject({ written: false, result: 'had' });
    expect(await s.message(s.agent.id, sent.body.id)).toMatchObject({
      version: before.version + 2,
      labels: ['mine', 'other'],
    });
  });
});

describe('events.store.ts › appendEvent: an appended event recognises its own token', () => {
  const event = (s: TestStack, id = `evt_${s.deps.newId()}`) => ({
    id,
    type: 'test.event',
    tenant_id: s.tenantId,
    created_at: Date.now(),
    data: { n: 1 },
  });

  it("a suppressed send's event: its answer lost, sent again, true; one event", async () => {
    const { s, f } = await clocked();
    await s.call('POST', `/v1/tenants/${s.tenantId}/suppressions`, {
      body: { address: s.peer.address, reason: 'manual' },
    });
    const rule = f.loseAnswerInRetry(writes.event);
    const sent = await s.send(body(s), 'lost-event');
    expect(sent.body).toMatchObject({ status: 'suppressed', deduplicated: false });
    expect(f.sent(rule)).toBe(2);
    expect((await events(s, 'message.suppressed')).map((e) => e.data.message_id)).toEqual([sent.body.id]);
    expect((await s.send(body(s), 'lost-event')).body).toEqual({ ...sent.body, deduplicated: true });
  });

  it("its answer lost and another event appended before the resend: true; both once; another's id answers false", async () => {
    const { s, f } = await clocked();
    const mine = event(s);
    const other = event(s);
    f.loseAnswerInRetry(
      writes.event,
      meanwhile(() => appendEvent(s.deps.db, other, s.deps.clock())),
    );
    expect(await appendEvent(s.deps.db, mine, s.deps.clock())).toBe(true);
    expect((await events(s, 'test.event')).map((e) => e.id).sort()).toEqual([mine.id, other.id].sort());
    expect(await appendEvent(s.deps.db, other, s.deps.clock())).toBe(false);
  });
});

describe('threads.store.ts › threadSendItem: the thread write recognises its lock and its chain', () => {
  const threadOf = async (s: TestStack, identityId: string, threadId: string) =>
    (
      await s.deps.db.get({
        TableName: s.deps.db.table,
        Key: { pk: `I#${identityId}`, sk: `TH#${threadId}` },
        ConsistentRead: true,
      })
    ).Item;

  it('a reply: its answer lost, the re-read finds its lock and chain; accepted once, the chain moved once', async () => {
    const { s, f } = await clocked();
    await s.send(body(s, 'Thread'), 'thread-start');
    await s.settle();
    const [received] = await s.mailbox(s.peer.id, 'inbound');
    const seq = (await threadOf(s, s.peer.id, received.thread_id))?.seq ?? 0;
    const rule = f.loseAnswerInRetry(writes.thread);
    const reply = () =>
      s.call('POST', `/v1/identities/${s.peer.id}/messages/${received.id}/reply`, {
        body: { text: 'the reply' },
        headers: { 'idempotency-key': 'lost-thread' },
      });
    const first = await reply();
    expect(first.status).toBe(202);
    expect(first.body.deduplicated).toBe(false);
    expect(f.sent(rule)).toBe(1);
    expect((await reply()).body).toEqual({ ...first.body, deduplicated: true });
    await s.settle();
    const thread = (await threadOf(s, s.peer.id, received.thread_id))!;
    expect(thread.seq).toBe(seq + 1);
    expect(thread.refs.filter((r: string) => r === first.body.rfc_message_id)).toHaveLength(1);
    expect(thread.lock_owner).toBeUndefined();
    expect((await s.mailbox(s.peer.id, 'outbound')).map((m) => [m.id, m.status])).toEqual([
      [first.body.id, 'delivered'],
    ]);
    expect(await s.mailbox(s.agent.id, 'inbound')).toHaveLength(1);
  });

  it("its answer lost and another message's chain written on top of it: this message is in the chain, taken as written", async () => {
    const { s, f } = await clocked();
    const threadId = `thr_${s.deps.newId()}`;
    const take = (messageId: string, seenSeq: number, refs: string[]) =>
      takeThreadForSend(s.deps.db, {
        identityId: s.agent.id,
        threadId,
        messageId,
        now: Date.now(),
        seenSeq,
        refs,
        rfcMessageId: refs.at(-1)!,
        autoStreak: 0,
        fromAddress: s.agent.address,
        lock: false,
      });
    f.loseAnswerInRetry(
      writes.thread,
      meanwhile(() => take('msg_other', 1, ['<mine@x>', '<other@x>'])),
    );
    expect(await take('msg_mine', 0, ['<mine@x>'])).toBe(true);
    expect(await threadOf(s, s.agent.id, threadId)).toMatchObject({
      seq: 2,
      refs: ['<mine@x>', '<other@x>'],
    });
    // A write on a chain that moved is refused.
    expect(await take('msg_late', 0, ['<late@x>'])).toBe(false);
  });
});

describe('threads.store.ts › refreshThreadLock and threads.store.ts › releaseThreadLock: the lock written only while it is ours', () => {
  async function locked(s: TestStack, messageId: string, now: number) {
    const threadId = `thr_${s.deps.newId()}`;
    const taken = await takeThreadForSend(s.deps.db, {
      identityId: s.agent.id,
      threadId,
      messageId,
      now,
      seenSeq: 0,
      refs: [`<${messageId}@x>`],
      rfcMessageId: `<${messageId}@x>`,
      autoStreak: 0,
      fromAddress: s.agent.address,
      lock: true,
    });
    expect(taken).toBe(true);
    return threadId;
  }
  const thread = (s: TestStack, threadId: string) => getThread(s.deps.db, s.agent.id, threadId);
  const takeOver = (s: TestStack, threadId: string, messageId: string, now: number) =>
    takeThreadForSend(s.deps.db, {
      identityId: s.agent.id,
      threadId,
      messageId,
      now,
      seenSeq: 1,
      refs: ['<a@x>', `<${messageId}@x>`],
      rfcMessageId: `<${messageId}@x>`,
      autoStreak: 0,
      fromAddress: s.agent.address,
      lock: true,
    });

  it('the refresh: its answer lost, the re-read finds the lease refreshed; not sent again', async () => {
    const { s, f } = await clocked();
    const now = Date.now();
    const threadId = await locked(s, 'msg_a', now);
    const rule = f.loseAnswerInRetry(writes.threadLock);
    await refreshThreadLock(s.deps.db, s.agent.id, threadId, 'msg_a', now + LOCK_LEASE_MS + 5_000);
    expect(f.sent(rule)).toBe(1);
    expect(await thread(s, threadId)).toMatchObject({
      lock_owner: 'msg_a',
      lock_until: now + LOCK_LEASE_MS + 5_000,
    });
  });

  it("the refresh: the lock released and taken by another message before the re-read: the other's lock is left alone", async () => {
    const { s, f } = await clocked();
    const now = Date.now();
    const threadId = await locked(s, 'msg_a', now);
    const until = now + LOCK_LEASE_MS + 5_000;
    f.loseAnswerInRetry(
      writes.threadLock,
      meanwhile(async () => {
        await releaseThreadLock(s.deps.db, s.agent.id, threadId, 'msg_a');
        expect(await takeOver(s, threadId, 'msg_b', now)).toBe(true);
      }),
    );
    await refreshThreadLock(s.deps.db, s.agent.id, threadId, 'msg_a', until);
    expect(await thread(s, threadId)).toMatchObject({ lock_owner: 'msg_b', lock_until: now + LOCK_LEASE_MS });
  });

  it('the release: its answer lost, the re-read finds the lock gone; not sent again', async () => {
    const { s, f } = await clocked();
    const threadId = await locked(s, 'msg_a', Date.now());
    const rule = f.loseAnswerInRetry(writes.threadLock);
    await releaseThreadLock(s.deps.db, s.agent.id, threadId, 'msg_a');
    expect(f.sent(rule)).toBe(1);
    expect((await thread(s, threadId))?.lock_owner).toBeUndefined();
  });

  it("the release: another message takes the lock before the re-read: the other's lock is kept", async () => {
    const { s, f } = await clocked();
    const now = Date.now();
    const threadId = await locked(s, 'msg_a', now);
    f.loseAnswerInRetry(
      writes.threadLock,
      meanwhile(async () => expect(await takeOver(s, threadId, 'msg_b', now)).toBe(true)),
    );
    await releaseThreadLock(s.deps.db, s.agent.id, threadId, 'msg_a');
    expect(await thread(s, threadId)).toMatchObject({ lock_owner: 'msg_b', seq: 2 });
  });
});

describe('send-lists.store.ts › putListEntry and send-lists.store.ts › deleteListEntry: an entry named by its creation token', () => {
  const path = (s: TestStack) =>
    `/v1/tenants/${s.tenantId}/lists/send/block/${encodeURIComponent('someone@example.com')}`;
  const put = on('PutItem', 'L#block#');
  const del = (c: Call) => c.command === 'DeleteItem' && c.sk.startsWith('L#block#');

  it('the put: its answer lost, sent again, it finds its own entry: 201', async () => {
    const { s, f } = await clocked();
    const rule = f.loseAnswerInRetry(put);
    const created = await s.call('PUT', path(s));
    expect(created.status).toBe(201);
    expect(f.sent(rule)).toBe(2);
    expect((await s.call('PUT', path(s))).status).toBe(200);
  });

  it('the put: another request puts the same entry before the resend: one 201, the other 200', async () => {
    const { s, f } = await clocked();
    let other: Awaited<ReturnType<TestStack['call']>> | undefined;
    f.loseAnswerInRetry(
      put,
      meanwhile(async () => {
        other = await s.call('PUT', path(s));
      }),
    );
    const mine = await s.call('PUT', path(s));
    expect([mine.status, other?.status]).toEqual([201, 200]);
    expect(other!.body).toEqual(mine.body);
  });

  it('the delete: its answer lost, the re-read finds the entry gone: 204, not sent again', async () => {
    const { s, f } = await clocked();
    expect((await s.call('PUT', path(s))).status).toBe(201);
    const rule = f.loseAnswerInRetry(del);
    expect((await s.call('DELETE', path(s))).status).toBe(204);
    expect(f.sent(rule)).toBe(1);
    expect((await s.call('GET', path(s))).status).toBe(404);
  });

  it('the delete: the entry put again by another request before the re-read: 204, and the new entry is kept', async () => {
    const { s, f } = await clocked();
    expect((await s.call('PUT', path(s))).status).toBe(201);
    f.loseAnswerInRetry(
      del,
      meanwhile(async () => expect((await s.call('PUT', path(s))).status).toBe(201)),
    );
    expect((await s.call('DELETE', path(s))).status).toBe(204);
    expect((await s.call('GET', path(s))).status).toBe(200);
  });
});
