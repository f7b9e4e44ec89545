/**
 * `npm run bench:ordering` (part of `npm run bench`): what reading in commit order costs
 * (docs/design/ordering.md), on DynamoDB Local, through the messages API's Lambda handler alone:
 *   1. 50 sends at once on one identity (executions held): per send, the DynamoDB calls by kind, the
 *      failed writes by reason (a cancelled transaction's reasons, a refused condition), the feed's
 *      counter takes and seals, and the handler's latency;
 *   2. follow latency: a follower reading on with `GET …/messages?after=` back to back while sends
 *      commit one at a time: from a send's 202 to the read that returns it; and the DynamoDB calls
 *      and read units of one read that finds nothing new.
 * It reads only the API and the table's calls, so it runs the same on a build without the feed
 * (its counter and seal rows are then 0): compare the two.
 * Knobs (environment): BENCH_BURST (50), BENCH_FOLLOW_SENDS (40).
 */
import type { ApiEvent } from '../functions/api/http.ts';
import { hooksOf } from '../functions/store/dynamodb.ts';
import { machineLine } from './env.ts';
import { apiEvent, lambdaHandler } from './lambda.ts';
import { startBenchStack } from './stack.ts';
import { fixed, summarize, table } from './stats.ts';

const BURST = Number(process.env.BENCH_BURST ?? 50);
const FOLLOW_SENDS = Number(process.env.BENCH_FOLLOW_SENDS ?? 40);
const print = (s = '') => console.log(s);
const text = (v: unknown): string =>
  typeof v === 'string' ? v : typeof (v as { S?: unknown })?.S === 'string' ? (v as { S: string }).S : '';

/** What a call writes or reads, by its first item's sort key prefix (`F#N` a feed's counter, `F#` its slots). */
function what(operation: string, input: Record<string, unknown>): string {
  const first = (
    input.TransactItems as Record<string, { Item?: { sk?: unknown }; Key?: { sk?: unknown } }>[]
  )?.[0];
  const write = first
    ? Object.values(first)[0]
    : (input as { Item?: { sk?: unknown }; Key?: { sk?: unknown } });
  const sk = text(write?.Item?.sk ?? write?.Key?.sk);
  const prefix = sk.endsWith('#N') ? sk : sk.includes('#') ? sk.slice(0, sk.indexOf('#') + 1) : sk;
  return `${operation} ${prefix}`.trim();
}

async function main() {
  print('pmail bench: commit order (numbers are reported, never asserted)');
  print(`machine   ${machineLine()}`);
  const stack = await startBenchStack({ identities: ['burst', 'follow'] });
  try {
    const { runtime, tenant } = stack;
    stack.setAttribution(false);
    const invoke = lambdaHandler('messages', runtime.groups.messages);
    const id = (name: string) => tenant.identities.find((i) => i.name === name)!.id;
    const auth = { authorization: `Bearer ${tenant.apiKey}`, 'content-type': 'application/json' };
    const send = async (identityId: string, key: string) => {
      const started = performance.now();
      const res = await invoke(
        apiEvent(
          'POST',
          `/v1/identities/${identityId}/messages`,
          { ...auth, 'idempotency-key': key },
          JSON.stringify({ to: ['delivered@simulator.invalid'], subject: 'order', text: 'hello' }),
        ),
      );
      return {
        status: res.statusCode,
        id: JSON.parse(res.body ?? '{}').id as string,
        ms: performance.now() - started,
      };
    };
    const read = async (identityId: string, after: string) => {
      const path = `/v1/identities/${identityId}/messages`;
      const query = { after, direction: 'outbound', limit: '100' };
      const event: ApiEvent = { ...apiEvent('GET', path, auth), queryStringParameters: query };
      const res = await invoke(event);
      return JSON.parse(res.body ?? '{}') as { data: { id: string }[]; after: string };
    };

    // ── 1. A burst on one identity ───────────────────────────────────────────────────────────
    const burstId = id('burst');
    const start = await send(burstId, 'burst-start');
    await runtime.settle();
    const calls = new Map<string, { calls: number; failed: Map<string, number>; rcu: number }>();
    const count = (operation: string, input: Record<string, unknown>, failure?: string, rcu = 0) => {
      const key = what(operation, input);
      const c = calls.get(key) ?? { calls: 0, failed: new Map(), rcu: 0 };
      c.calls++;
      c.rcu += rcu;
      if (failure) c.failed.set(failure, (c.failed.get(failure) ?? 0) + 1);
      calls.set(key, c);
    };
    const hooks = hooksOf(runtime.deps.db);
    const remove = hooks.aroundAttempt(async (operation, input, next) => {
      try {
        const out = await next({ ...input, ReturnConsumedCapacity: 'TOTAL' });
        const consumed = ([] as { CapacityUnits?: number }[]).concat(out.ConsumedCapacity ?? []);
        count(
          operation,
          input,
          undefined,
          operation === 'Query' || operation.startsWith('Get') || operation.startsWith('Batch')
            ? consumed.reduce((n, c) => n + (c.CapacityUnits ?? 0), 0)
            : 0,
        );
        return out;
      } catch (err) {
        const e = err as { name?: string; CancellationReasons?: { Code?: string }[] };
        const reasons = (e.CancellationReasons ?? []).map((r) => r.Code).filter((c) => c && c !== 'None');
        count(operation, input, reasons.length ? `${e.name}: ${[...new Set(reasons)].join('+')}` : e.name);
        throw err;
      }
    });
    const hold = stack.holdExecutions();
    // A follower reads on back to back through the burst: what it is given, and how often.
    let burstAfter = start.id;
    const burstSeen: string[] = [];
    let bursting = true;
    const burstFollower = (async () => {
      for (let last = false; !last; ) {
        last = !bursting;
        for (;;) {
          const page = await read(burstId, burstAfter);
          burstSeen.push(...page.data.map((m) => m.id));
          burstAfter = page.after;
          if (page.data.length === 0) break;
        }
      }
    })();
    const started = performance.now();
    const answers = await Promise.all(Array.from({ length: BURST }, (_, i) => send(burstId, `burst-${i}`)));
    const wall = performance.now() - started;
    bursting = false;
    await burstFollower;
    remove();
    const accepted = answers.filter((a) => a.status === 202).length;
    const lat = summarize(answers.map((a) => a.ms));
    print(`\n1. ${BURST} sends at once on one identity (Lambda handler alone, executions held)`);
    print(
      `   ${accepted}/${BURST} accepted in ${fixed(wall, 0)} ms; handler p50 ${fixed(lat.p50, 0)} ms, p99 ${fixed(lat.p99, 0)} ms`,
    );
    const rows = [...calls]
      .filter(([k]) => !k.startsWith('GetItem') && !k.startsWith('BatchGetItem') && !k.startsWith('Query'))
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, c]) => [
        k,
        fixed(c.calls / BURST, 2),
        [...c.failed].map(([why, n]) => `${why} x${n}`).join(', ') || '-',
      ]);
    print(table(['write (by first item)', 'per send', 'failed'], rows, [1]));
    const takes = calls.get('UpdateItem F#N')?.calls ?? 0;
    const seals = calls.get('PutItem F#')?.calls ?? 0;
    const failed = [...calls.values()].reduce(
      (n, c) => n + [...c.failed.values()].reduce((a, b) => a + b, 0),
      0,
    );
    print(
      `   the feed: ${fixed(takes / BURST, 2)} counter takes per send, ${seals} seals; failed writes in all: ${failed}`,
    );
    const sent = new Set(answers.map((a) => a.id));
    print(
      `   a follower reading on through the burst was given ${burstSeen.filter((m) => sent.has(m)).length}/${BURST} ` +
        `(${burstSeen.length - new Set(burstSeen).size} twice)`,
    );
    await hold.release();

    // ── 2. Follow latency ────────────────────────────────────────────────────────────────────
    const followId = id('follow');
    const first = await send(followId, 'follow-start');
    let after = first.id;
    await read(followId, after);
    // When each send's 202 came back, and when the follower's read returned its message (it can
    // be before the 202: the commit is visible as soon as it lands).
    const answeredAt = new Map<string, number>();
    const seenAt = new Map<string, number>();
    let given = 0;
    let sending = true;
    const follower = (async () => {
      const deadline = performance.now() + 120_000;
      while ((sending || seenAt.size < answeredAt.size) && performance.now() < deadline) {
        const page = await read(followId, after);
        const at = performance.now();
        for (const m of page.data) seenAt.set(m.id, at);
        given += page.data.length;
        after = page.after;
      }
    })();
    for (let i = 0; i < FOLLOW_SENDS; i++) {
      const a = await send(followId, `follow-${i}`);
      answeredAt.set(a.id, performance.now());
      await new Promise((r) => setTimeout(r, 20));
    }
    sending = false;
    await follower;
    const seenAfter = [...answeredAt].flatMap(([m, at]) => (seenAt.has(m) ? [seenAt.get(m)! - at] : []));
    // One read that finds nothing new, once everything the sends started has settled.
    await runtime.settle();
    const idle = new Map<string, { calls: number; rcu: number }>();
    const reads = hooks.aroundAttempt(async (operation, input, next) => {
      const out = await next({ ...input, ReturnConsumedCapacity: 'TOTAL' });
      const consumed = ([] as { CapacityUnits?: number }[]).concat(out.ConsumedCapacity ?? []);
      const c = idle.get(operation) ?? { calls: 0, rcu: 0 };
      c.calls++;
      c.rcu += consumed.reduce((n, x) => n + (x.CapacityUnits ?? 0), 0);
      idle.set(operation, c);
      return out;
    });
    const IDLE_READS = 20;
    for (let i = 0; i < IDLE_READS; i++) await read(followId, after);
    reads();
    const l = summarize(seenAfter);
    print(`\n2. Follow latency (${FOLLOW_SENDS} sends, one at a time, a follower reading on back to back)`);
    print(
      `   from the 202 to the read that returns it: p50 ${fixed(l.p50, 1)} ms, p99 ${fixed(l.p99, 1)} ms; ` +
        `${seenAfter.length}/${FOLLOW_SENDS} seen (${given - seenAt.size} given twice), ` +
        `${seenAfter.filter((ms) => ms < 0).length} of them before their 202 came back`,
    );
    print(
      `   one read with nothing new: ${[...idle]
        .map(([op, c]) => `${op} ${fixed(c.calls / IDLE_READS, 2)} (${fixed(c.rcu / IDLE_READS, 2)} RCU)`)
        .join(', ')}`,
    );
  } finally {
    await stack.close();
  }
}

await main();
