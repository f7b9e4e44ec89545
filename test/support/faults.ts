import type { Db } from '../../functions/store/db.ts';
import { hooksOf } from '../../functions/store/dynamodb.ts';

/** One DynamoDB call as a fault rule sees it: the operation and the item's sort key. */
export interface Call {
  command: string;
  sk: string;
  input: Record<string, unknown>;
}

const text = (v: unknown): string =>
  typeof v === 'string' ? v : v && typeof v === 'object' && 'S' in v ? String((v as { S: unknown }).S) : '';

function describeCall(operation: string, input: Record<string, unknown>): Call {
  const item = (input.Item ?? input.Key ?? {}) as Record<string, unknown>;
  return { command: operation, sk: text(item.sk), input };
}

/**
 * A create of an item whose sort key starts with `prefix`: a PutItem, or a TransactWriteItems whose
 * first item puts it on condition it is absent (the item with the slot that positions it in its
 * feed: store/feed.store.ts › transactAt).
 */
function creates(c: Call, prefix: string): boolean {
  if (c.command === 'PutItem') return c.sk.startsWith(prefix);
  if (c.command !== 'TransactWriteItems') return false;
  const put = (
    c.input.TransactItems as { Put?: { Item?: { sk?: unknown }; ConditionExpression?: string } }[]
  )[0]?.Put;
  return text(put?.Item?.sk).startsWith(prefix) && put?.ConditionExpression === 'attribute_not_exists(pk)';
}

/** The writes of the submit path, by what they write. */
export const writes = {
  message: (c: Call) => creates(c, 'M#'),
  keyCompletion: (c: Call) =>
    c.command === 'UpdateItem' &&
    c.sk.startsWith('IK#') &&
    String(c.input.UpdateExpression).includes(':completed'),
  counts: (c: Call) => c.command === 'UpdateItem' && c.sk.startsWith('Q#'),
  /** A block of the tenant's day allowance leased (store/quota.store.ts reserveSend step 2). */
  lease: (c: Call) =>
    c.command === 'UpdateItem' &&
    c.sk.startsWith('Q#') &&
    String(c.input.UpdateExpression).includes('ADD leased :b'),
  /** The identity's count with the block granted (step 3). */
  grant: (c: Call) =>
    c.command === 'UpdateItem' &&
    c.sk.startsWith('Q#') &&
    String(c.input.UpdateExpression).includes('lease = if_not_exists'),
  /**
   * The send's write of its thread's chain and lock (store/threads.store.ts › threadSendItem): not the
   * attempt's refresh or release of the lock, which can run before the submit's answer is read.
   */
  thread: (c: Call) =>
    c.command === 'UpdateItem' &&
    c.sk.startsWith('TH#') &&
    c.input.ConditionExpression !== undefined &&
    String(c.input.UpdateExpression).includes('seq = :next'),
  /** The attempt's refresh or release of the thread's lock (store/threads.store.ts). */
  threadLock: (c: Call) =>
    c.command === 'UpdateItem' &&
    c.sk.startsWith('TH#') &&
    String(c.input.ConditionExpression).startsWith('lock_owner = :me'),
  /** The thread list's summary (store/thread-list.store.ts › threadNoteItem), unconditional. */
  threadNote: (c: Call) =>
    c.command === 'UpdateItem' &&
    c.sk.startsWith('TH#') &&
    String(c.input.UpdateExpression).includes('ADD message_ids'),
  event: (c: Call) => creates(c, 'E#'),
};

/** The writes of the send attempt, by what they write. */
export const attemptWrites = {
  /** The transport task's claim with its `sending` mark (store/messages.store.ts › claimSending). */
  claimSending: (c: Call) =>
    c.command === 'UpdateItem' &&
    c.sk.startsWith('M#') &&
    String(c.input.UpdateExpression).includes('#claim = :claim'),
  /** Record's versioned put of the message with its `recorded` answer (send/attempt.ts › writeRecord). */
  record: (c: Call) =>
    c.command === 'PutItem' &&
    c.sk.startsWith('M#') &&
    (c.input.Item as Record<string, unknown> | undefined)?.recorded !== undefined,
};

const killed = () => Object.assign(new Error('the Lambda was killed'), { name: 'Sandbox.Timedout' });
const lostAnswer = () => Object.assign(new Error('socket hang up'), { name: 'TimeoutError' });

/**
 * Faults made to happen on a Db's calls (store/dynamodb.ts › DbHooks).
 *
 * Two places a lost answer can happen (docs/lost-answers.md):
 * - `loseAnswer` (outside the table's retry policy): DynamoDB applied the call and the caller sees
 *   the error.
 * - `loseAnswerInRetry` (inside it, around the one request, where a socket timeout happens):
 *   DynamoDB answered the call (applied it, or refused it) and the answer does not come back; the
 *   retry policy decides whether to send it again. `then` runs
 *   before the error goes up, so whatever resends the write (the policy or pmail's own code) arrives
 *   after another writer's write. `sent(rule)` counts how often a matching request reached
 *   DynamoDB, resends included.
 * `crashBefore`/`crashAfter`: the process dies at that call
 * (before it reaches DynamoDB, or after DynamoDB applied it): that call and every later one fail
 * until `revive()` (a new Lambda). `loseAnswer`: DynamoDB applies the call, the caller gets a
 * timeout, and goes on. `pauseBefore`: the call waits until the returned `go()`.
 */
export function faults(db: Db) {
  let dead = false;
  const rules: {
    match: (c: Call) => boolean;
    at: 'before' | 'after';
    kind: 'crash' | 'lose' | 'pause';
    gate?: Promise<void>;
    fired: boolean;
  }[] = [];
  const inRetry: {
    match: (c: Call) => boolean;
    then?: () => Promise<unknown>;
    fired: boolean;
    sent: number;
  }[] = [];
  const hooks = hooksOf(db);
  hooks.aroundAttempt(async (operation, request, next) => {
    const call = describeCall(operation, request);
    const hits = inRetry.filter((r) => r.match(call));
    for (const r of hits) r.sent++;
    const rule = hits.find((r) => !r.fired);
    if (rule) rule.fired = true;
    // DynamoDB's answer, a refusal included, is lost on its way back when a rule fired.
    const answer = next().then(
      (out) => ({ out }),
      (err: unknown) => ({ err }),
    );
    const got = await answer;
    if (rule) {
      await rule.then?.();
      throw lostAnswer();
    }
    if ('err' in got) throw got.err;
    return got.out;
  });
  hooks.aroundCall(async (operation, input, next) => {
    if (dead) throw killed();
    const call = describeCall(operation, input);
    const rule = rules.find((r) => !r.fired && r.match(call));
    if (rule) rule.fired = true;
    if (rule?.at === 'before') {
      if (rule.kind === 'pause') await rule.gate;
      else {
        dead = true;
        throw killed();
      }
    }
    const out = await next();
    if (rule?.at === 'after') {
      if (rule.kind === 'crash') {
        dead = true;
        throw killed();
      }
      throw lostAnswer();
    }
    return out;
  });
  const add = (match: (c: Call) => boolean, at: 'before' | 'after', kind: 'crash' | 'lose' | 'pause') => {
    const rule = { match, at, kind, fired: false } as (typeof rules)[number];
    rules.push(rule);
    return rule;
  };
  return {
    crashBefore: (match: (c: Call) => boolean) => add(match, 'before', 'crash'),
    crashAfter: (match: (c: Call) => boolean) => add(match, 'after', 'crash'),
    loseAnswer: (match: (c: Call) => boolean) => add(match, 'after', 'lose'),
    /** Apply the next matching call, then lose its answer inside the SDK's retry (see above). */
    loseAnswerInRetry(match: (c: Call) => boolean, opts: { then?: () => Promise<unknown> } = {}) {
      // biome-ignore lint/suspicious/noThenProperty: the rule's step after the loss, never awaited as a promise
      const rule = { match, then: opts.then, fired: false, sent: 0 };
      inRetry.push(rule);
      return rule;
    },
    /** How often a `loseAnswerInRetry` rule's requests reached DynamoDB (its resends included). */
    sent: (rule: { sent: number }) => rule.sent,
    /** Hold the next matching call; it reaches DynamoDB after `go()`. `reached` resolves when held. */
    pauseBefore(match: (c: Call) => boolean) {
      let go!: () => void;
      let reachedNow!: () => void;
      const reached = new Promise<void>((r) => {
        reachedNow = r;
      });
      const gate = new Promise<void>((r) => {
        go = r;
      });
      const rule = add(
        (c) => {
          if (!match(c)) return false;
          reachedNow();
          return true;
        },
        'before',
        'pause',
      );
      rule.gate = gate;
      return { go, reached, rule };
    },
    revive() {
      dead = false;
    },
    get dead() {
      return dead;
    },
  };
}
