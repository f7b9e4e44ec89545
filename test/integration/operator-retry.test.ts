import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MachineKind, SendInput } from '../../functions/send/dispatcher.ts';
import { faults } from '../support/faults.ts';
import { type TestStack, tenantItems, testStack } from '../support/local.ts';

/**
 * POST …/messages/{id}/retry (docs/guides/sending.md › Operator retry): a failed message whose
 * failure was not a refusal is queued again under a new execution name minted in the write that
 * re-queues it; racing retries start exactly one execution; uncertain is resolve's, never retry's.
 * The failures are made to happen: a rate-limited send whose back-off would pass its 24 hours.
 */
const NO_WAITS = { Backoff: 0, WaitUntilSendAt: 0 };

let now = Date.UTC(2030, 5, 1, 9);
const held: { name: string; input: SendInput; machine?: MachineKind }[] = [];
let holding = false;
let s: TestStack;
beforeAll(async () => {
  s = await testStack({
    clock: () => now,
    waitTimeOverrides: NO_WAITS,
    config: { simEventDelaySeconds: 0 },
    dispatcher: {
      start: async (name, input, machine) => {
        if (holding) held.push({ name, input, machine });
        else await s.machine.start(name, input, machine);
      },
    },
  });
});
afterAll(async () => {
  await s.settle();
  await s.close();
});

const retry = (id: string) => s.call('POST', `/v1/identities/${s.agent.id}/messages/${id}/retry`);

/** Let the held starts of message `id` run; answer their names. */
async function release(id: string): Promise<string[]> {
  const mine = held.filter((h) => h.name.startsWith(id));
  held.splice(0, held.length, ...held.filter((h) => !h.name.startsWith(id)));
  for (const h of mine) await s.machine.start(h.name, h.input, h.machine);
  await s.settle();
  return mine.map((h) => h.name);
}

/**
 * The first attempt of a `ratelimit` recipient is rate-limited; when the clock has moved past the
 * back-off's 24 hours by then, Record ends the message `failed` (`quota_exhausted`): nothing sent.
 */
async function failAfterBackoffEnd(id: string): Promise<string[]> {
  now += 25 * 3600_000;
  const names = await release(id);
  const m = await s.message(s.agent.id, id);
  expect(m).toMatchObject({ status: 'failed', status_reason: 'quota_exhausted' });
  return names;
}

async function retryAudits(id: string) {
  return (await tenantItems(s, 'AU#')).filter((a) => a.action === 'message.retry' && a.message_id === id);
}

describe('operator retry', () => {
  it('re-queues a failed message under one new execution when two retries race, twice in a row, and it ends sent', async () => {
    holding = true;
    const sent = await s.send({ to: ['ratelimit@simulator.invalid'], subject: 'Retry me', text: 'x' });
    holding = false;
    expect(sent.status).toBe(202);
    const id = sent.body.id as string;
    expect(await failAfterBackoffEnd(id)).toEqual([`${id}-d1`]);

    // Round 1: two retries that both read the message failed (the first one's write is held until
    // the second has answered) → one write, one execution; the attempt fails again.
    holding = true;
    const gate = faults(s.deps.db).pauseBefore((c) => c.command === 'TransactWriteItems');
    const first = retry(id);
    await gate.reached;
    const b = await retry(id);
    gate.go();
    const a = await first;
    holding = false;
    expect([a.status, b.status]).toEqual([200, 200]);
    expect([a.body.status, b.body.status]).toEqual(['queued', 'queued']);
    expect(held.filter((h) => h.name.startsWith(id)).map((h) => h.name)).toEqual([`${id}-d2`]);
    expect(await retryAudits(id)).toHaveLength(1);
    expect((await s.message(s.agent.id, id))?.dispatch?.execution).toBe(`${id}-d2`);
    expect(await failAfterBackoffEnd(id)).toEqual([`${id}-d2`]);

    // Round 2: two retries in parallel, again one execution; this time the back-off stays inside its new 24 hours and the
    // message is delivered (the retry's Express attempt, then its back-off's Standard execution).
    holding = true;
    const [c, d] = await Promise.all([retry(id), retry(id)]);
    holding = false;
    expect([c.status, d.status]).toEqual([200, 200]);
    expect(held.filter((h) => h.name.startsWith(id)).map((h) => h.name)).toEqual([`${id}-d3`]);
    expect(await retryAudits(id)).toHaveLength(2);
    const startedBefore = s.machine.started.length;
    await release(id);
    expect(s.machine.started.slice(startedBefore).filter((n) => n.startsWith(id))).toEqual([
      `${id}-d3`,
      `${id}-s4`,
    ]);
    const m = await s.message(s.agent.id, id);
    expect(m?.status).toBe('delivered');
    expect(m?.deliveries?.map((x) => x.status)).toEqual(['delivered']);
    expect(m?.retry).toMatchObject({ n: 2 });

    // Idempotent for the operator: a retry of the re-queued (now delivered) message answers its state.
    holding = true;
    const again = await retry(id);
    holding = false;
    expect(again.status).toBe(200);
    expect(again.body.status).toBe('delivered');
    expect(held.filter((h) => h.name.startsWith(id))).toEqual([]);
    expect(await retryAudits(id)).toHaveLength(2);
  });

  it('answers 409 resolve_required for an uncertain message, and for one resolved as not sent', async () => {
    const sent = await s.send({ to: ['timeout@simulator.invalid'], subject: 'Unknown', text: 'x' });
    await s.settle();
    const id = sent.body.id as string;
    expect((await s.message(s.agent.id, id))?.status).toBe('uncertain');
    const started = s.machine.started.length;
    const r = await retry(id);
    expect(r.status).toBe(409);
    expect(r.body.error.code).toBe('resolve_required');
    const resolved = await s.call('POST', `/v1/identities/${s.agent.id}/messages/${id}/resolve`, {
      body: { outcome: 'not_sent' },
    });
    expect(resolved.body.status).toBe('failed');
    const r2 = await retry(id);
    expect(r2.status).toBe(409);
    expect(r2.body.error.code).toBe('resolve_required');
    expect(s.machine.started.length).toBe(started);
    expect((await s.message(s.agent.id, id))?.status).toBe('failed');
  });

  it('answers 409 not_retryable for a refused message and for one never failed', async () => {
    const rejected = await s.send({ to: ['reject@simulator.invalid'], subject: 'No', text: 'x' });
    const delivered = await s.send({ to: ['delivered@simulator.invalid'], subject: 'Yes', text: 'x' });
    await s.settle();
    for (const [id, status] of [
      [rejected.body.id, 'rejected'],
      [delivered.body.id, 'delivered'],
    ]) {
      expect((await s.message(s.agent.id, id))?.status).toBe(status);
      const r = await retry(id);
      expect(r.status).toBe(409);
      expect(r.body.error).toMatchObject({ code: 'not_retryable', details: { status } });
    }
  });

  it('answers 404 for a message of no such id', async () => {
    const r = await retry('msg_01J00000000000000000000000');
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe('message_not_found');
  });
});
