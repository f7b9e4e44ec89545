import { beforeAll, describe, expect, it } from 'vitest';
import type { MessageRecord } from '../../../functions/core/model.ts';
import { releaseMessage } from '../../../functions/inbound/held.ts';
import { receivedEvent } from '../../../functions/inbound/inbound-record.ts';
import { auditPut } from '../../../functions/store/audit-log.store.ts';
import { deleteHeld, getHeldSummary, listHeld } from '../../../functions/store/hold.store.ts';
import { storeInbound } from '../../../functions/store/inbound.store.ts';
import { getMessage, listMessagesAfter } from '../../../functions/store/messages.store.ts';
import { type Call, faults } from '../../support/faults.ts';
import { listEvents, receivedRecord } from '../../support/feeds.ts';
import { stackPerTest, type TestStack } from '../../support/local.ts';

/**
 * The writes of held mail (store/hold.store.ts, docs/guides/receiving.md › Held mail) with their
 * answers lost, on DynamoDB Local: a held message's store with the held counter's cap
 * (`heldCapUpdate`, in storeInbound's transaction), its delete, and its release. Each test has an
 * identity of its own.
 */
const stack = stackPerTest();
let s: TestStack;
beforeAll(async () => {
  s = await stack();
});

// biome-ignore lint/suspicious/noThenProperty: the fault rule's step after the loss (test/support/faults.ts)
const meanwhile = (write: () => Promise<unknown>) => ({ then: write });
const T = 1_800_000_000_000;

/** A fresh identity id and held messages of it. */
function identity() {
  const identityId = `idn_${s.deps.newId()}`;
  const held = (subject: string): MessageRecord => ({
    ...receivedRecord({ id: `msg_${s.deps.newId()}`, tenantId: s.tenantId, identityId, subject, at: T }),
    raw_size: 100,
    held: { reason: 'unauthenticated', at: T },
  });
  const store = (m: MessageRecord) =>
    storeInbound(s.deps.db, {
      message: m,
      dedupeKey: `key-${m.id}`,
      event: receivedEvent(m, T),
      routedTo: 'agent@example.test',
      snippet: '',
      now: T,
    });
  const about = (id: string) => (c: Call) =>
    c.command === 'TransactWriteItems' && JSON.stringify(c.input).includes(id);
  return { identityId, held, store, about };
}

describe('hold.store.ts › heldCapUpdate: a held message counted under the caps in its store', () => {
  it('its answer lost in the retry after another held message was stored: resent by its token, each counted once', async () => {
    const q = identity();
    const [a, b] = [q.held('a'), q.held('b')];
    const f = faults(s.deps.db);
    const rule = f.loseAnswerInRetry(
      q.about(a.id),
      meanwhile(() => q.store(b)),
    );
    expect(await q.store(a)).toBe('stored');
    expect(f.sent(rule)).toBe(2);
    expect(await getHeldSummary(s.deps.db, q.identityId)).toEqual({ count: 2, bytes: 200, dropped: 0 });
    expect(
      (await listHeld(s.deps.db, q.identityId, { limit: 10 })).data.map((m) => m.subject).sort(),
    ).toEqual(['a', 'b']);
    // Held mail takes no place in the identity's feed.
    const page = await listMessagesAfter(s.deps.db, q.identityId, { after: 0, limit: 10, now: T });
    expect(page.data).toEqual([]);
  });

  it('past the count cap the store is refused whole: over_cap, nothing written', async () => {
    const q = identity();
    await s.deps.db.put({
      TableName: s.deps.db.table,
      Item: { pk: `I#${q.identityId}`, sk: 'HOLD', type: 'hold_counter', count: 1000, bytes: 0 },
    });
    const m = q.held('over');
    expect(await q.store(m)).toBe('over_cap');
    expect(await getMessage(s.deps.db, q.identityId, m.id, true)).toBeUndefined();
    expect((await getHeldSummary(s.deps.db, q.identityId)).count).toBe(1000);
  });
});

describe('hold.store.ts › deleteHeld: a held message deleted with the counter', () => {
  it('its answer lost in the retry after another held message was stored: resent by its token, applied once', async () => {
    const q = identity();
    const [a, b] = [q.held('a'), q.held('b')];
    await q.store(a);
    const stored = (await getMessage(s.deps.db, q.identityId, a.id, true))!;
    const f = faults(s.deps.db);
    const rule = f.loseAnswerInRetry(
      q.about(a.id),
      meanwhile(() => q.store(b)),
    );
    const audit = auditPut(s.deps.db, {
      id: s.deps.newId(),
      tenant_id: s.tenantId,
      action: 'message.delete',
      actor: 'key_test',
      message_id: a.id,
      details: {},
      at: T,
    });
    expect(await deleteHeld(s.deps.db, stored, audit)).toBe(true);
    expect(f.sent(rule)).toBe(2);
    expect(await getMessage(s.deps.db, q.identityId, a.id, true)).toBeUndefined();
    expect(await getHeldSummary(s.deps.db, q.identityId)).toEqual({ count: 1, bytes: 100, dropped: 0 });
  });
});

describe('hold.store.ts › releaseHeld: a release takes one new position and writes one event', () => {
  const releaseOf = (id: string) => (c: Call) =>
    c.command === 'TransactWriteItems' &&
    JSON.stringify(c.input).includes(id) &&
    JSON.stringify(c.input).includes('"message.received"');

  it('its answer lost in the retry after another held message was stored: resent by its token, released once', async () => {
    const q = identity();
    const [a, b] = [q.held('a'), q.held('b')];
    await q.store(a);
    const f = faults(s.deps.db);
    const rule = f.loseAnswerInRetry(
      releaseOf(a.id),
      meanwhile(() => q.store(b)),
    );
    const released = await releaseMessage(s.deps, {
      identityId: q.identityId,
      messageId: a.id,
      actor: 'key_test',
    });
    expect(released.held).toBeUndefined();
    expect(f.sent(rule)).toBe(2);
    const page = await listMessagesAfter(s.deps.db, q.identityId, { after: 0, limit: 10, now: T });
    expect(page.data.map((m) => m.subject)).toEqual(['a']);
    expect(await getHeldSummary(s.deps.db, q.identityId)).toEqual({ count: 1, bytes: 100, dropped: 0 });
  });

  it('its answer lost to the caller: the error goes up, and the retried release answers the message released once', async () => {
    const q = identity();
    const a = q.held('a');
    await q.store(a);
    const f = faults(s.deps.db);
    f.loseAnswer(releaseOf(a.id));
    const args = { identityId: q.identityId, messageId: a.id, actor: 'key_test' };
    await expect(releaseMessage(s.deps, args)).rejects.toThrow();
    const again = await releaseMessage(s.deps, args);
    expect(again.held).toBeUndefined();
    expect(again.released?.by).toBe('key_test');
    const events = (await listEvents(s.deps.db, s.tenantId, { limit: 1000 })).data.filter(
      (e) => e.data.message_id === a.id,
    );
    expect(events.map((e) => e.type)).toEqual(['message.held', 'message.received']);
    const page = await listMessagesAfter(s.deps.db, q.identityId, { after: 0, limit: 10, now: T });
    expect(page.data.map((m) => m.id)).toEqual([a.id]);
  });
});
