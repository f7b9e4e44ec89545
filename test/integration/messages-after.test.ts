import { beforeAll, describe, expect, it } from 'vitest';
import { ingestNotification } from '../../functions/inbound/ingest.ts';
import { INBOUND_RAW_PREFIX } from '../../functions/inbound/notification.ts';
import { portsFor } from '../../functions/lambda-ports.ts';
import { seedTestTenant } from '../../functions/local/seed.ts';
import { faults } from '../support/faults.ts';
import { receivedRecord, storeMessage } from '../support/feeds.ts';
import { stackPerTest, type TestStack } from '../support/local.ts';

/**
 * Reading on: GET …/messages?after= through the messages route group on DynamoDB Local, with
 * received mail stored by ingest (docs/guides/receiving.md › Reading on).
 */
const stack = stackPerTest();
let s: TestStack;

beforeAll(async () => {
  // One sender writes dozens of messages to the peer here: above the stranger rate's default,
  // which would hold them (docs/guides/receiving.md › How much a stranger can make an agent read).
  s = await stack({
    seed: { identity: { receive_policy: { stranger_rate: { per_sender: 1000, total: 1000 } } } },
  });
});

/** `subject` received for the peer as SES's S3 action hands it over, through ingest; its id. */
async function receive(subject: string, receivedAt = s.deps.clock()): Promise<string> {
  const report = await deliver(subject, receivedAt);
  expect(report.stored).toHaveLength(1);
  return report.stored[0];
}

async function deliver(subject: string, receivedAt = s.deps.clock(), sesId = `ses-after-${s.deps.newId()}`) {
  const key = `${INBOUND_RAW_PREFIX}${sesId}`;
  const raw = [
    'From: A Customer <customer@outside.example>',
    `To: ${s.peer.address}`,
    `Subject: ${subject}`,
    `Message-ID: <after-${subject}-${sesId}@outside.example>`,
    'Content-Type: text/plain; charset=utf-8',
    '',
    `About ${subject}.`,
    '',
  ].join('\r\n');
  await s.deps.blobs.put(key, new TextEncoder().encode(raw), {});
  const at = new Date(receivedAt).toISOString();
  return ingestNotification(portsFor(s.deps, 'inbound-ingest'), {
    notificationType: 'Received',
    mail: {
      timestamp: at,
      source: 'customer@outside.example',
      messageId: sesId,
      destination: [s.peer.address],
    },
    receipt: {
      timestamp: at,
      recipients: [s.peer.address],
      action: { type: 'S3', bucketName: 'local', objectKey: key },
    },
  });
}

const list = (query: Record<string, string>, identityId = s.peer.id, key?: string) =>
  s.call('GET', `/v1/identities/${identityId}/messages`, { query, key });

/** Read on from `after` until nothing more is waiting; every message's subject, in order. */
async function readAll(after: string, query: Record<string, string> = {}) {
  const subjects: string[] = [];
  let position = after;
  let pages = 0;
  for (;;) {
    const res = await list({ direction: 'inbound', ...query, after: position });
    expect(res.status).toBe(200);
    pages++;
    subjects.push(...res.body.data.map((m: { subject: string }) => m.subject));
    position = res.body.after;
    if (res.body.next_cursor === null) return { subjects, after: position, pages };
    expect(res.body.next_cursor).toBe(res.body.after);
  }
}

describe('GET …/messages?after=', () => {
  it('returns only the messages after a message id, oldest first, in pages, and reads on from `after`', async () => {
    const first = await receive('after-1');
    for (const n of [2, 3, 4, 5]) await receive(`after-${n}`);
    const paged = await readAll(first, { limit: '2' });
    expect(paged.subjects).toEqual(['after-2', 'after-3', 'after-4', 'after-5']);
    expect(paged.pages).toBe(2);

    // Nothing new: the same position answers an empty page, and what arrives next is read once.
    const idle = await list({ direction: 'inbound', after: paged.after });
    expect(idle.body).toMatchObject({ data: [], next_cursor: null });
    await receive('after-6');
    const next = await readAll(idle.body.after);
    expect(next.subjects).toEqual(['after-6']);
    expect((await readAll(next.after)).subjects).toEqual([]);
  });

  it('finds a message received before the reader’s position but stored after it (a late ingest)', async () => {
    const start = await receive('late-0');
    const position = (await readAll(start)).after;
    // A notification redelivered ten minutes after its receipt (the same holds for a loopback
    // copy, received when its message was composed): its id is the write's, after the position.
    const late = await receive('late-1', s.deps.clock() - 10 * 60_000);
    const read = await readAll(position);
    expect(read.subjects).toEqual(['late-1']);
    expect(late > start).toBe(true);
  });

  it('stores a redelivered notification once, under a new write time, and keeps one copy of it', async () => {
    const sesId = `ses-after-repeat-${s.deps.newId()}`;
    const first = await deliver('repeat-1', s.deps.clock(), sesId);
    expect(first.stored).toHaveLength(1);
    const again = await deliver('repeat-1', s.deps.clock(), sesId);
    expect(again).toMatchObject({ stored: [], duplicates: 1 });
    const copies: string[] = [];
    for await (const k of s.deps.blobs.list(`t/${s.tenantId}/i/${s.peer.id}/in/`)) copies.push(k);
    expect(copies.filter((k) => k.includes(first.stored[0]))).toHaveLength(1);
    const before = copies.length;
    await deliver('repeat-1', s.deps.clock(), sesId);
    const after: string[] = [];
    for await (const k of s.deps.blobs.list(`t/${s.tenantId}/i/${s.peer.id}/in/`)) after.push(k);
    expect(after).toHaveLength(before);
  });

  it('waits at a number taken before a newer message’s until its message commits, then gives both in order', async () => {
    const start = await receive('race-0');
    const position = (await readAll(start)).after;
    // A writer takes its number, and its commit is held while a newer message commits.
    const slowId = `msg_${s.deps.newId()}`;
    const held = faults(s.deps.db).pauseBefore(
      (c) => c.command === 'TransactWriteItems' && JSON.stringify(c.input).includes(slowId),
    );
    const slow = storeMessage(
      s.deps.db,
      receivedRecord({
        id: slowId,
        tenantId: s.tenantId,
        identityId: s.peer.id,
        subject: 'race-1',
        at: s.deps.clock(),
      }),
      s.deps.clock(),
    );
    await held.reached;
    await receive('race-2');
    const waiting = await readAll(position);
    expect(waiting.subjects).toEqual([]);
    expect(waiting.after).toBe(position);
    held.go();
    await slow;
    const again = await readAll(waiting.after);
    expect(again.subjects).toEqual(['race-1', 'race-2']);
    expect((await readAll(again.after)).subjects).toEqual([]);
  });

  it('reads on in both directions and outbound only', async () => {
    const start = await receive('both-0');
    const sent = await s.call('POST', `/v1/identities/${s.peer.id}/messages`, {
      body: { to: ['delivered@simulator.invalid'], subject: 'both-1', text: 'out' },
      headers: { 'idempotency-key': `after-both-${s.deps.newId()}` },
    });
    expect(sent.status).toBe(202);
    await receive('both-2');
    const all = await list({ after: start });
    expect(
      all.body.data.map((m: { subject: string; direction: string }) => [m.subject, m.direction]),
    ).toEqual([
      ['both-1', 'outbound'],
      ['both-2', 'inbound'],
    ]);
    const out = await list({ direction: 'outbound', after: start });
    expect(out.body.data.map((m: { id: string }) => m.id)).toEqual([sent.body.id]);
  });

  it('answers 404 for an id that is no message of this identity, 400 for what is no id or cursor', async () => {
    const mine = await receive('scope-0');
    const unknown = await list({ after: `msg_${s.deps.newId()}` });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('message_not_found');
    // The peer's message id, read from the agent's mailbox: the same 404.
    const foreign = await list({ after: mine }, s.agent.id);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('message_not_found');
    for (const after of ['garbage', Buffer.from('{"a":"x","s":[]}').toString('base64url')]) {
      const bad = await list({ after });
      expect(bad.status).toBe(400);
      expect(bad.body.error).toMatchObject({
        code: 'invalid_request',
        details: { errors: [{ path: 'after' }] },
      });
    }
    const both = await list({ after: mine, cursor: 'x' });
    expect(both.status).toBe(400);
    // A status filter belongs to the list, not to a read on: refused rather than ignored.
    const filtered = await list({ after: mine, status: 'pending_approval' });
    expect(filtered.status).toBe(400);
    expect(filtered.body.error.details.errors[0].path).toBe('status');
  });

  it('is 404 for another tenant’s identity, and filters by thread', async () => {
    const other = await seedTestTenant(s.deps);
    const start = await receive('thread-0');
    const foreign = await list({ after: start }, s.peer.id, other.apiKey);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('identity_not_found');

    const a = await receive('thread-a');
    const b = await receive('thread-b');
    const threadOf = async (id: string) =>
      (await s.call('GET', `/v1/identities/${s.peer.id}/messages/${id}`)).body.thread_id as string;
    const onlyB = await list({ direction: 'inbound', after: start, thread_id: await threadOf(b) });
    expect(onlyB.body.data.map((m: { id: string }) => m.id)).toEqual([b]);
    expect(await threadOf(a)).not.toBe(await threadOf(b));
    const noThread = await list({ after: start, thread_id: `thr_${s.deps.newId()}` });
    expect(noThread.status).toBe(404);
    expect(noThread.body.error.code).toBe('thread_not_found');
  });
});
