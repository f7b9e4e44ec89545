import type { Db } from '../../functions/store/db.ts';

/** One DynamoDB call as a fault rule sees it: the operation and the item's sort key. */
export interface Call {
  command: string;
  sk: string;
  input: Record<string, unknown>;
}

const text = (v: unknown): string =>
  typeof v === 'string' ? v : v && typeof v === 'object' && 'S' in v ? String((v as { S: unknown }).S) : '';

function describeCall(commandName: string, input: Record<string, unknown>): Call {
  const item = (input.Item ?? input.Key ?? {}) as Record<string, unknown>;
  return { command: commandName.replace(/Command$/, ''), sk: text(item.sk), input };
}

/** The writes of the submit path, by what they write. */
export const writes = {
  message: (c: Call) => c.command === 'PutItem' && c.sk.startsWith('M#'),
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
  thread: (c: Call) => c.command === 'UpdateItem' && c.sk.startsWith('TH#'),
  event: (c: Call) => c.command === 'PutItem' && c.sk.startsWith('E#'),
};

/** The writes of the send attempt, by what they write. */
export const attemptWrites = {
  /** The transport task's claim with its `sending` mark (store/messages.store.ts › claimSending). */
  claimSending: (c: Call) =>
    c.command === 'UpdateItem' &&
    c.sk.startsWith('M#') &&
    String(c.input.UpdateExpression).includes('#claim = :claim'),
};

const killed = () => Object.assign(new Error('the Lambda was killed'), { name: 'Sandbox.Timedout' });
const lostAnswer = () => Object.assign(new Error('socket hang up'), { name: 'TimeoutError' });

/**
 * Faults made to happen on a Db's client. `crashBefore`/`crashAfter`: the process dies at that call
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
  db.doc.middlewareStack.add(
    (next, context) => async (args) => {
      if (dead) throw killed();
      const call = describeCall(String(context.commandName), args.input as Record<string, unknown>);
      const rule = rules.find((r) => !r.fired && r.match(call));
      if (rule) rule.fired = true;
      if (rule?.at === 'before') {
        if (rule.kind === 'pause') await rule.gate;
        else {
          dead = true;
          throw killed();
        }
      }
      const out = await next(args);
      if (rule?.at === 'after') {
        if (rule.kind === 'crash') {
          dead = true;
          throw killed();
        }
        throw lostAnswer();
      }
      return out;
    },
    { step: 'initialize', name: `faults-${Math.random().toString(36).slice(2)}` },
  );
  const add = (match: (c: Call) => boolean, at: 'before' | 'after', kind: 'crash' | 'lose' | 'pause') => {
    const rule = { match, at, kind, fired: false } as (typeof rules)[number];
    rules.push(rule);
    return rule;
  };
  return {
    crashBefore: (match: (c: Call) => boolean) => add(match, 'before', 'crash'),
    crashAfter: (match: (c: Call) => boolean) => add(match, 'after', 'crash'),
    loseAnswer: (match: (c: Call) => boolean) => add(match, 'after', 'lose'),
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
