import { beforeAll, describe, expect, it } from 'vitest';
import { FEED_SEAL_AFTER_MS } from '../../../functions/core/feed.ts';
import type { MessageRecord } from '../../../functions/core/model.ts';
import { getMessage, listMessagesAfter } from '../../../functions/store/messages.store.ts';
import { type Call, faults } from '../../support/faults.ts';
import { receivedRecord, storeMessage } from '../../support/feeds.ts';
import { stackPerTest, type TestStack } from '../../support/local.ts';

/**
 * The writes of the ordered feeds (store/feed.store.ts, docs/design/ordering.md) with their answers
 * lost, on DynamoDB Local: a positioned commit (its slot in its transaction), the counter's take,
 * and a reader's seal. Each test has an identity feed of its own; time is passed in, so a gap's
 * age is the test's to set.
 */
const stack = stackPerTest();
let s: TestStack;
beforeAll(async () => {
  s = await stack();
});

// biome-ignore lint/suspicious/noThenProperty: the fault rule's step after the loss (test/support/faults.ts)
const meanwhile = (write: () => Promise<unknown>) => ({ then: write });

const T = 1_800_000_000_000;
const LATE = T + FEED_SEAL_AFTER_MS + 1;

/** A fresh feed: an identity id no other test uses, and its messages. */
function feed() {
  const identityId = `idn_${s.deps.newId()}`;
  const message = (subject: string): MessageRecord =>
    receivedRecord({ id: `msg_${s.deps.newId()}`, tenantId: s.tenantId, identityId, subject, at: T });
  /** The subjects a reader from the beginning is given at `now`, and where it stopped. */
  const read = async (now: number, after = 0) => {
    const page = await listMessagesAfter(s.deps.db, identityId, { after, limit: 100, now });
    return { subjects: page.data.map((m) => m.subject), position: page.position };
  };
  const about = (id: string) => (c: Call) => JSON.stringify(c.input).includes(id);
  const commitOf = (m: MessageRecord) => (c: Call) => c.command === 'TransactWriteItems' && about(m.id)(c);
  const take = (c: Call) => c.command === 'UpdateItem' && c.sk === 'F#N' && about(identityId)(c);
  const seal = (n: number) => (c: Call) =>
    c.command === 'PutItem' && c.sk === `F#${String(n).padStart(15, '0')}` && about(identityId)(c);
  return { identityId, message, read, commitOf, take, seal };
}

describe('feed.store.ts › slotPut and feed.store.ts › transactAt: a positioned commit is applied once', () => {
  it('its answer lost in the retry after another writer committed: resent by its token, applied once, both read once in order', async () => {
    const q = feed();
    const [a, b] = [q.message('a'), q.message('b')];
    const f = faults(s.deps.db);
    const rule = f.loseAnswerInRetry(
      q.commitOf(a),
      meanwhile(() => storeMessage(s.deps.db, b, T)),
    );
    await storeMessage(s.deps.db, a, T);
    expect(f.sent(rule)).toBe(2);
    expect(await q.read(T)).toEqual({ subjects: ['a', 'b'], position: 2 });
    expect((await getMessage(s.deps.db, q.identityId, a.id, true))?.pos).toBe(1);
  });

  it('its answer lost to the caller: the error goes up, its own slot refuses its seal, read once', async () => {
    const q = feed();
    const a = q.message('a');
    faults(s.deps.db).loseAnswer(q.commitOf(a));
    await expect(storeMessage(s.deps.db, a, T)).rejects.toThrow();
    expect(await q.read(LATE)).toEqual({ subjects: ['a'], position: 1 });
  });

  it('slower than the seal delay: a reader seals its number, it takes a new one and commits; each read once', async () => {
    const q = feed();
    const [a, b] = [q.message('a'), q.message('b')];
    const held = faults(s.deps.db).pauseBefore(q.commitOf(a));
    const slow = storeMessage(s.deps.db, a, T);
    await held.reached;
    await storeMessage(s.deps.db, b, T);
    // Young: the reader waits at a's number; old: it seals it and reads on.
    expect(await q.read(T + 10)).toEqual({ subjects: [], position: 0 });
    expect(await q.read(LATE)).toEqual({ subjects: ['b'], position: 2 });
    held.go();
    await slow;
    expect(await q.read(LATE, 2)).toEqual({ subjects: ['a'], position: 3 });
    expect((await getMessage(s.deps.db, q.identityId, a.id, true))?.pos).toBe(3);
  });

  it('the counter’s answer lost: not resent, its number stays a gap until sealed; the write takes the next', async () => {
    const q = feed();
    const a = q.message('a');
    const f = faults(s.deps.db);
    const rule = f.loseAnswerInRetry(q.take);
    await storeMessage(s.deps.db, a, T);
    // The lost take is not resent: a second take is made, and the first one's number has no slot.
    expect(f.sent(rule)).toBe(2);
    expect(await q.read(T)).toEqual({ subjects: [], position: 0 });
    expect(await q.read(LATE)).toEqual({ subjects: ['a'], position: 2 });
  });
});

describe('feed.store.ts › sealPosition: a seal is done by any slot at its number', () => {
  it('its answer lost in the retry: not resent; the next read finds its tombstone and reads on', async () => {
    const q = feed();
    const [dead, b] = [q.message('dead'), q.message('b')];
    const f = faults(s.deps.db);
    // A writer killed between its number and its commit.
    f.crashBefore(q.commitOf(dead));
    await expect(storeMessage(s.deps.db, dead, T)).rejects.toThrow();
    f.revive();
    await storeMessage(s.deps.db, b, T);
    const rule = f.loseAnswerInRetry(q.seal(1));
    expect(await q.read(LATE)).toEqual({ subjects: ['b'], position: 2 });
    expect(f.sent(rule)).toBe(1);
  });

  it('losing the race to the writer: refused, the reader reads the message', async () => {
    const q = feed();
    const a = q.message('a');
    const f = faults(s.deps.db);
    const writer = f.pauseBefore(q.commitOf(a));
    const committing = storeMessage(s.deps.db, a, T);
    await writer.reached;
    const sealing = f.pauseBefore(q.seal(1));
    const reading = q.read(LATE);
    await sealing.reached;
    writer.go();
    await committing;
    sealing.go();
    expect(await reading).toEqual({ subjects: ['a'], position: 1 });
  });
});
