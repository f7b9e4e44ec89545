import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../functions/core/fingerprint.ts';
import { permissionsOf } from '../../functions/core/keys.ts';
import {
  BATCH_CONCURRENCY,
  BATCH_TIME_BUDGET_MS,
  MAX_BATCH_BODY_BYTES,
} from '../../functions/core/limits.ts';
import { localDay } from '../../functions/core/quota.ts';
import { readDailyCounts } from '../../functions/store/quota.store.ts';
import { keys } from '../../functions/store/table-keys.ts';
import { faults, writes } from '../support/faults.ts';
import { stackPerTest, type TestStack } from '../support/local.ts';

/**
 * POST …/messages/batch (docs/guides/sending.md › Batches): each message a single send in full,
 * answered in order; what is wrong with the batch as a whole refused before any message runs.
 */
const stack = stackPerTest();
let s: TestStack;
/** Moved forward by the tests that spend a batch's time budget. */
let skew = 0;
const starts: string[] = [];
let onStart: () => void = () => undefined;
beforeAll(async () => {
  s = await stack({
    clock: () => Date.now() + skew,
    dispatcher: {
      start: async (name, input, machine) => {
        starts.push(name);
        onStart();
        await s.machine.start(name, input, machine);
      },
    },
  });
});

const batchPath = (t: TestStack) => `/v1/identities/${t.agent.id}/messages/batch`;
const batch = (t: TestStack, messages: unknown[], headers: Record<string, string> = {}, key?: string) =>
  t.call('POST', batchPath(t), { body: { messages }, headers, key });
const mail = (key: string, subject = key, to = ['delivered@simulator.invalid']) => ({
  idempotency_key: key,
  to,
  subject,
  text: `Body of ${subject}`,
});
const outbox = async (t: TestStack) => (await t.mailbox(t.agent.id, 'outbound')).map((m) => m.subject);
const sentToday = async (t: TestStack) =>
  (await readDailyCounts(t.deps.db, t.tenantId, t.agent.id, localDay(t.deps.clock(), 'UTC'))).identity;
const run = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => mail(`${prefix}-${i}`));

describe('a batch of sends', () => {
  it('answers 207 with each message in order, each sent once and counted as one send', async () => {
    const before = await sentToday(s);
    const messages = run('order', 30);
    const res = await batch(s, messages);
    expect(res.status).toBe(207);
    expect(res.headers['request-id']).toMatch(/^req_/);
    expect(res.body.data).toHaveLength(30);
    res.body.data.forEach((item: any, i: number) => {
      expect(item).toMatchObject({ status: 202, message: { subject: `order-${i}`, deduplicated: false } });
      expect(item.error).toBeUndefined();
    });
    expect(new Set(res.body.data.map((d: any) => d.message.id)).size).toBe(30);
    expect(await sentToday(s)).toBe(before + 30);
    await s.settle();
    const stored = await outbox(s);
    for (let i = 0; i < 30; i++) expect(stored.filter((x) => x === `order-${i}`)).toHaveLength(1);
  });

  it('replays the accepted messages of a retried batch and runs the rest: one message per key', async () => {
    const first = await batch(s, run('retry', 3));
    const again = await batch(s, run('retry', 5));
    expect(again.status).toBe(207);
    expect(again.body.data.map((d: any) => [d.status, d.message.deduplicated])).toEqual([
      [202, true],
      [202, true],
      [202, true],
      [202, false],
      [202, false],
    ]);
    expect(again.body.data.slice(0, 3).map((d: any) => d.message.id)).toEqual(
      first.body.data.map((d: any) => d.message.id),
    );
    await s.settle();
    const stored = await outbox(s);
    for (let i = 0; i < 5; i++) expect(stored.filter((x) => x === `retry-${i}`)).toHaveLength(1);
  });

  it('answers each message as its single send would: a replay, a conflict, a bad body, a key in progress', async () => {
    const single = await s.send(
      { to: ['delivered@simulator.invalid'], subject: 'alone', text: 'Body of alone' },
      'mixed-alone',
    );
    // A reservation a running request holds: its retry is told to wait, as a single send is.
    await s.deps.db.put({
      TableName: s.deps.db.table,
      Item: {
        ...keys.idempotency(s.agent.id, sha256Hex('mixed-held')),
        state: 'in_progress',
        owner: 'req_someone',
        lease_until: Date.now() + 60_000,
        fingerprint: 'x',
        expires_at: Date.now() + 1e9,
      },
    });
    const res = await batch(s, [
      mail('mixed-alone', 'alone'),
      mail('mixed-alone-2', 'fine'),
      { ...mail('mixed-alone', 'alone'), idempotency_key: 'mixed-conflict' },
      { idempotency_key: 'mixed-bad', to: ['delivered@simulator.invalid'], subject: 'no body' },
      mail('mixed-held'),
    ]);
    expect(res.status).toBe(207);
    const [replay, fine, conflict, bad, held] = res.body.data;
    expect(replay).toMatchObject({ status: 202, message: { id: single.body.id, deduplicated: true } });
    expect(fine).toMatchObject({ status: 202, message: { subject: 'fine', deduplicated: false } });
    expect(conflict).toMatchObject({ status: 202, message: { deduplicated: false } });
    expect(bad).toMatchObject({ status: 400, error: { code: 'invalid_request', retryable: false } });
    expect(bad.error.request_id).toMatch(/^req_/);
    expect(held).toMatchObject({ status: 409, error: { code: 'request_in_progress', retryable: true } });
    // The same key with another body: 409 idempotency_conflict, as alone.
    const other = await batch(s, [{ ...mail('mixed-alone-2', 'not fine') }]);
    expect(other.body.data[0]).toMatchObject({ status: 409, error: { code: 'idempotency_conflict' } });
  });

  it('answers not_attempted for the messages its time budget did not reach; sending the batch again sends each once', async () => {
    const messages = run('budget', BATCH_CONCURRENCY + 4);
    // The first dispatch spends the budget: the messages already started finish, the rest wait.
    onStart = () => {
      skew += BATCH_TIME_BUDGET_MS;
      onStart = () => undefined;
    };
    const res = await batch(s, messages);
    expect(res.status).toBe(207);
    const statuses = res.body.data.map((d: any) => d.status);
    expect(statuses).toEqual([...Array(BATCH_CONCURRENCY).fill(202), ...Array(4).fill(503)]);
    expect(res.body.data.at(-1)).toMatchObject({ error: { code: 'not_attempted', retryable: true } });
    expect((await outbox(s)).filter((x) => x.startsWith('budget-'))).toHaveLength(BATCH_CONCURRENCY);

    const again = await batch(s, messages);
    expect(again.body.data.map((d: any) => [d.status, d.message.deduplicated])).toEqual([
      ...Array(BATCH_CONCURRENCY).fill([202, true]),
      ...Array(4).fill([202, false]),
    ]);
    await s.settle();
    const stored = await outbox(s);
    for (const m of messages) expect(stored.filter((x) => x === m.subject)).toHaveLength(1);
  });
});

describe('a batch refused as a whole, before any message runs', () => {
  it('refuses an Idempotency-Key header, a key given twice, a message without a key, and too many messages', async () => {
    const before = await outbox(s);
    const header = await batch(s, run('whole-a', 2), { 'idempotency-key': 'batch-key' });
    expect(header.status).toBe(400);
    expect(header.body.error).toMatchObject({
      code: 'invalid_request',
      details: { errors: [{ path: 'Idempotency-Key' }] },
    });
    const twice = await batch(s, [mail('whole-b'), mail('whole-c'), mail('whole-b')]);
    expect(twice.status).toBe(400);
    expect(twice.body.error.details.errors).toEqual([
      { path: 'messages[2].idempotency_key', message: 'the same key as messages[0]' },
    ]);
    const keyless = await batch(s, [mail('whole-d'), { to: ['delivered@simulator.invalid'], text: 'x' }]);
    expect(keyless.body.error.details.errors).toEqual([
      { path: 'messages[1].idempotency_key', message: 'required' },
    ]);
    const many = await batch(s, run('whole-e', 101));
    expect(many.status).toBe(400);
    expect(many.body.error.details.errors).toEqual([{ path: 'messages', message: 'at most 100 messages' }]);
    const crowd = Array.from({ length: 101 }, (_, i) => `r${i}@simulator.invalid`);
    const wide = await batch(
      s,
      Array.from({ length: 10 }, (_, i) => mail(`whole-f-${i}`, 'wide', crowd)),
    );
    expect(wide.status).toBe(400);
    expect(wide.body.error.details.errors[0].message).toMatch(/^at most 1000 recipients across the batch/);
    expect(await outbox(s)).toEqual(before);
  });

  it('answers 413 above 4 MiB, naming the limit', async () => {
    const big = 'x'.repeat(MAX_BATCH_BODY_BYTES);
    const res = await batch(s, [{ ...mail('whole-big'), text: big }]);
    expect(res.status).toBe(413);
    expect(res.body.error).toMatchObject({
      code: 'payload_too_large',
      details: { max_bytes: MAX_BATCH_BODY_BYTES },
    });
    expect(res.body.error.message).toBe('The request body is larger than 4 MiB.');
  });

  it('authenticates and scopes the batch once: a wrong key or another identity is one error, not one per message', async () => {
    const res = await s.call('POST', batchPath(s), {
      key: 'pm_live_wrong',
      body: { messages: run('whole-g', 2) },
    });
    expect(res.status).toBe(401);
    const other = await s.call('POST', '/v1/identities/idn_01aaaaaaaaaaaaaaaaaaaaaaaa/messages/batch', {
      body: { messages: run('whole-h', 2) },
    });
    expect(other.status).toBe(404);
    expect(other.body.error.code).toBe('identity_not_found');
  });
});

describe('each message keeps the whole guarantee of a single send', () => {
  it('waits for approval where the identity requires it, counting nothing', async () => {
    const t = await stack({ seed: { identity: { send_policy: { require_approval: true } } } });
    const res = await batch(t, run('approve', 2));
    expect(res.body.data.map((d: any) => d.message.status)).toEqual(['pending_approval', 'pending_approval']);
    expect(await sentToday(t)).toBe(0);
  });

  it("holds every message for approval when the key is draft-only, whatever the identity's policy", async () => {
    const t = await stack();
    const minted = await t.call('POST', '/v1/keys', {
      body: {
        name: 'draft-only',
        level: 'identity',
        identity_id: t.agent.id,
        permissions: permissionsOf('identity'),
        sends_need_approval: true,
      },
    });
    expect(minted.status).toBe(201);
    const res = await batch(t, run('draft', 2), {}, minted.body.secret);
    expect(res.body.data.map((d: any) => d.message.status)).toEqual(['pending_approval', 'pending_approval']);
    expect(await sentToday(t)).toBe(0);
  });

  it('refuses a stranger where the identity requires known recipients, each message as its single send does', async () => {
    const t = await stack({ seed: { identity: { send_policy: { require_known_recipient: true } } } });
    const { idempotency_key, ...body } = mail('stranger-single');
    const single = await t.send(body, idempotency_key);
    const counted = await sentToday(t);
    const res = await batch(t, run('stranger', 2));
    expect(single.body.deliveries[0]).toMatchObject({
      status: 'suppressed',
      smtp_response: 'policy: unknown_recipient',
    });
    for (const item of res.body.data) {
      expect(item.status).toBe(single.status);
      expect(item.message.deliveries).toEqual([
        expect.objectContaining({ status: 'suppressed', smtp_response: 'policy: unknown_recipient' }),
      ]);
    }
    // The first message of the batch does not make its stranger known to the second.
    expect(await sentToday(t)).toBe(counted * 3);
  });

  it('stops at the daily cap: the messages past it are refused with their Retry-After, each counted as one send', async () => {
    const t = await stack({ seed: { identity: { send_policy: { daily_cap: 3 } } } });
    const res = await batch(t, run('cap', 5));
    const statuses = res.body.data.map((d: any) => d.status);
    expect(statuses.filter((x: number) => x === 202)).toHaveLength(3);
    const refused = res.body.data.filter((d: any) => d.status === 429);
    expect(refused).toHaveLength(2);
    for (const r of refused) {
      expect(r.error.code).toBe('daily_cap_reached');
      expect(r.retry_after).toBeGreaterThan(0);
    }
    expect(await sentToday(t)).toBe(3);
  });

  it('a message whose write answer was lost is sent once when the batch is sent again', async () => {
    const t = await stack();
    faults(t.deps.db).loseAnswer(writes.message);
    const messages = run('lost', 3);
    const first = await batch(t, messages);
    expect(first.status).toBe(207);
    const failed = first.body.data.filter((d: any) => d.status >= 500);
    expect(failed).toHaveLength(1);
    expect(failed[0].error.retryable).toBe(true);
    const again = await batch(t, messages);
    expect(again.body.data.every((d: any) => d.status === 202)).toBe(true);
    await t.settle();
    const stored = await outbox(t);
    for (const m of messages) expect(stored.filter((x) => x === m.subject)).toHaveLength(1);
  });
});
