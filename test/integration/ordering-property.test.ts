import { AsyncLocalStorage } from 'node:async_hooks';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FEED_SEAL_AFTER_MS } from '../../functions/core/feed.ts';
import type { MessageRecord } from '../../functions/core/model.ts';
import type { Db } from '../../functions/store/db.ts';
import { createDb, type DynamoDb, hooksOf } from '../../functions/store/dynamodb.ts';
import { feedHead, identityFeed } from '../../functions/store/feed.store.ts';
import { getMessage, listMessagesAfter } from '../../functions/store/messages.store.ts';
import { faults } from '../support/faults.ts';
import { receivedRecord, storeMessage } from '../support/feeds.ts';
import { stackPerTest, type TestStack } from '../support/local.ts';

/**
 * Commit order as a property (docs/design/ordering.md), on DynamoDB Local: writers of one
 * identity's feed (store-level: a message and its slot, store/feed.store.ts › transactAt) with
 * random delays before they take their number (an id minted long before its commit: a takeover 61 s
 * later, a wait for a thread's lock, a slow raw copy) and after it (a stall: past the seal delay, a
 * reader seals the number and the writer takes a new one), writers killed between their number and
 * their commit (their gap is sealed by a reader), and lost answers (inside the table client's
 * retry, to the caller, of the counter's `ADD`); meanwhile followers read on from random positions,
 * polling, as a mailbox follower does. Time is virtual: a driver moves the clock on while the
 * writers hold, and stands still while one is committing.
 *
 * After each run, for every follower that started after number `p`: what it was given is exactly
 * the committed messages whose number is above `p`, each once, in number order; every writer that
 * was not killed committed once (an answer lost to the caller included), and a killed one nothing.
 * The seed is fixed: every run replays the same scenarios.
 */
const NUM_RUNS = 12;
const SEED = 20_261_207;
const T = 1_800_000_000_000;
/** Virtual milliseconds per real tick of the driver (4 ms). */
const TICK = 500;

type Fate = 'commits' | 'killed' | 'lostInRetry' | 'lostToCaller' | 'takeLost';
interface WriterSpec {
  startMs: number;
  before: number;
  after: number;
  fate: Fate;
}
interface FollowerSpec {
  startMs: number;
  from: number;
}

const delay = fc.oneof(
  { weight: 3, arbitrary: fc.constant(0) },
  { weight: 2, arbitrary: fc.integer({ min: 1, max: 2_000 }) },
  { weight: 1, arbitrary: fc.integer({ min: FEED_SEAL_AFTER_MS + 1, max: 62_000 }) },
);
const writer: fc.Arbitrary<WriterSpec> = fc.record({
  startMs: fc.integer({ min: 0, max: 30 }),
  before: delay,
  after: fc.oneof(
    { weight: 3, arbitrary: fc.constant(0) },
    { weight: 1, arbitrary: fc.integer({ min: 1, max: 2_000 }) },
    { weight: 2, arbitrary: fc.integer({ min: FEED_SEAL_AFTER_MS + 1, max: 20_000 }) },
  ),
  fate: fc.constantFrom<Fate>(
    'commits',
    'commits',
    'commits',
    'killed',
    'lostInRetry',
    'lostToCaller',
    'takeLost',
  ),
});
const follower: fc.Arbitrary<FollowerSpec> = fc.record({
  startMs: fc.integer({ min: 0, max: 40 }),
  from: fc.integer({ min: 0, max: 6 }),
});

const stack = stackPerTest();
let s: TestStack;
let writerDb: DynamoDb;
let f: ReturnType<typeof faults>;
beforeAll(async () => {
  s = await stack();
  // The writers' own table client: the faults and the held commits are theirs, never a follower's.
  writerDb = createDb({ table: s.deps.db.table, endpoint: (s.deps.db as DynamoDb).endpoint });
  f = faults(writerDb);
});
afterAll(() => writerDb?.destroy());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const killed = () => Object.assign(new Error('the writer was killed'), { name: 'Sandbox.Timedout' });

interface Writer extends WriterSpec {
  message: MessageRecord;
  /** When it took its number (the clock at its commit call). */
  at: number;
  dead: boolean;
}
/** The writer whose call a hook sees (the writers run in one process, on one client). */
const running = new AsyncLocalStorage<Writer>();

/** One run: its clock, its writers' hooks, the writers and the followers at once. */
async function run(writers: WriterSpec[], followers: FollowerSpec[]) {
  const identityId = `idn_${s.deps.newId()}`;
  let now = T;
  let busy = 0;
  const until = async (at: number) => {
    busy--;
    while (now < at) await sleep(2);
    busy++;
  };
  const ws: Writer[] = writers.map((w, i) => ({ ...w, message: message(identityId, i), at: T, dead: false }));
  const remove = hooksOf(writerDb).aroundCall(async (operation, _input, next) => {
    const w = running.getStore();
    if (!w) return next();
    if (w.dead) throw killed();
    if (operation === 'TransactWriteItems') {
      if (w.fate === 'killed') {
        w.dead = true;
        throw killed();
      }
      await until(w.at + w.after);
    }
    return next();
  });
  for (const w of ws) {
    const mine = (command: string) => (c: { command: string }) =>
      running.getStore() === w && c.command === command;
    if (w.fate === 'lostInRetry') f.loseAnswerInRetry(mine('TransactWriteItems'));
    if (w.fate === 'lostToCaller') f.loseAnswer(mine('TransactWriteItems'));
    if (w.fate === 'takeLost') f.loseAnswerInRetry(mine('UpdateItem'));
  }
  const driver = setInterval(() => {
    if (busy === 0) now += TICK;
  }, 4);
  const writing = ws.map((w) =>
    running.run(w, async () => {
      busy++;
      try {
        await sleep(w.startMs);
        await until(now + w.before);
        // The number is taken at the commit: the clock then is the slot's time.
        w.at = now;
        await storeMessage(writerDb, w.message, now);
        return 'ok' as const;
      } catch {
        return 'failed' as const;
      } finally {
        busy--;
      }
    }),
  );
  let writersDone = false;
  const reading = followers.map(async (spec) => {
    await sleep(spec.startMs);
    let position = spec.from;
    const given: string[] = [];
    const read = async () => {
      for (;;) {
        const page = await listMessagesAfter(s.deps.db, identityId, { after: position, limit: 3, now });
        given.push(...page.data.map((m) => m.id));
        position = page.position;
        if (!page.more) return;
      }
    };
    while (!writersDone) {
      await read();
      await sleep(3);
    }
    // Every writer is done: what is left is committed or a gap old enough to seal.
    now += FEED_SEAL_AFTER_MS + 1;
    for (let i = 0; i < 10 && position < (await feedHead(s.deps.db, identityFeed(identityId))); i++)
      await read();
    return { from: spec.from, given, position };
  });
  const outcomes = await Promise.all(writing);
  writersDone = true;
  const read = await Promise.all(reading);
  clearInterval(driver);
  remove();
  return { identityId, ws, outcomes, read };
}

function message(identityId: string, i: number): MessageRecord {
  const id = `msg_${s.deps.newId()}`;
  return receivedRecord({ id, tenantId: s.tenantId, identityId, subject: `w${i}`, at: T });
}

async function check(db: Db, r: Awaited<ReturnType<typeof run>>) {
  const stored = await Promise.all(r.ws.map((w) => getMessage(db, r.identityId, w.message.id, true)));
  r.ws.forEach((w, i) => {
    // A killed writer committed nothing; every other committed once, whatever its answers.
    expect(stored[i] !== undefined, `${w.fate} writer ${i}`).toBe(w.fate !== 'killed');
    if (w.fate !== 'killed' && w.fate !== 'lostToCaller') expect(r.outcomes[i]).toBe('ok');
  });
  const committed = stored
    .filter((m): m is MessageRecord => m !== undefined)
    .map((m) => ({ id: m.id, pos: m.pos! }))
    .sort((a, b) => a.pos - b.pos);
  expect(new Set(committed.map((m) => m.pos)).size).toBe(committed.length);
  const head = await feedHead(db, identityFeed(r.identityId));
  for (const follower of r.read) {
    expect(follower.given).toEqual(committed.filter((m) => m.pos > follower.from).map((m) => m.id));
    expect(follower.position).toBe(Math.max(follower.from, head));
  }
}

describe('commit order, as a property', () => {
  it('gives every follower every committed message after its position once, in number order', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(writer, { minLength: 1, maxLength: 6 }),
        fc.array(follower, { minLength: 1, maxLength: 3 }),
        async (writers, followers) => check(s.deps.db, await run(writers, followers)),
      ),
      { numRuns: NUM_RUNS, seed: SEED, endOnFailure: true },
    );
  }, 120_000);
});
