/**
 * `npm run bench:batch` (also part of `npm run bench`) — a batch of sends against the same sends
 * one by one, in one run on one local stack, over HTTP: 100 messages as one POST …/messages/batch,
 * as 100 POST …/messages one after another, and as 100 with 8 in flight (the batch's own
 * concurrency, core/limits.ts › BATCH_CONCURRENCY). Each round sends from fresh identities (the
 * rate window is 120 sends a minute per identity) and holds the executions until the timed window
 * closes, so only the submit path is timed. Reported per round's best: wall time, messages per
 * second, DynamoDB calls and units per message, requests (on AWS, Lambda invocations). The ratios
 * against the one-by-one sends are the point; nothing is asserted.
 *
 * Knobs: BENCH_BATCH_MESSAGES (100), BENCH_BATCH_ROUNDS (3).
 */
import { MAX_BATCH_MESSAGES } from '../functions/core/limits.ts';
import { totals } from './capacity.ts';
import { dynamoDbLocalLine, machineLine } from './env.ts';
import { startBenchStack } from './stack.ts';
import { fixed, pool, ratio, table } from './stats.ts';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const N = Math.min(MAX_BATCH_MESSAGES, Number(process.env.BENCH_BATCH_MESSAGES ?? 100) || 100);
const ROUNDS = Number(process.env.BENCH_BATCH_ROUNDS ?? 3) || 3;
const WAYS = ['one by one', '8 in flight', 'one batch'] as const;
type Way = (typeof WAYS)[number];

interface Run {
  ms: number;
  accepted: number;
  requests: number;
  calls: number;
  rcu: number;
  wcu: number;
}

const mail = (tag: string, i: number) => ({
  to: ['delivered@simulator.invalid'],
  subject: `bench ${tag} ${i}`,
  text: `Message ${i} of the batch bench.`,
});

async function main() {
  const identities = Array.from({ length: ROUNDS * WAYS.length }, (_, i) => `bench${i}`);
  const stack = await startBenchStack({ identities });
  const { tenant, meter } = stack;
  stack.setAttribution(false);
  const post = (path: string, body: unknown, key?: string) =>
    fetch(`${stack.url}${path}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${tenant.apiKey}`,
        'content-type': 'application/json',
        ...(key ? { 'idempotency-key': key } : {}),
      },
      body: JSON.stringify(body),
    }).then(async (r) => ({ status: r.status, body: (await r.json()) as { data: { status: number }[] } }));

  const runs = new Map<Way, Run[]>(WAYS.map((w) => [w, []]));
  try {
    // Warm-up: the handlers' first calls and DynamoDB Local's first writes are not timed.
    const warm = tenant.identities[0]!;
    await post(`/v1/identities/${warm.id}/messages/batch`, {
      messages: [0, 1, 2].map((i) => ({ idempotency_key: `warm-${i}`, ...mail('warm', i) })),
    });
    await stack.runtime.settle();
    meter.collect();
    for (let r = 0; r < ROUNDS; r++) {
      for (const [w, way] of WAYS.entries()) {
        const identity = tenant.identities[r * WAYS.length + w]!;
        const path = `/v1/identities/${identity.id}/messages`;
        const tag = `${r}-${w}`;
        stack.setPhase('submit');
        const hold = stack.holdExecutions();
        const t0 = performance.now();
        let accepted: number;
        let requests: number;
        if (way === 'one batch') {
          const res = await post(`${path}/batch`, {
            messages: Array.from({ length: N }, (_, i) => ({
              idempotency_key: `${tag}-${i}`,
              ...mail(tag, i),
            })),
          });
          accepted = (res.body.data as { status: number }[]).filter((d) => d.status === 202).length;
          requests = 1;
        } else {
          const run = await pool(N, way === 'one by one' ? 1 : 8, (i) =>
            post(path, mail(tag, i), `${tag}-${i}`),
          );
          accepted = run.results.filter((x) => x.status === 202).length;
          requests = N;
        }
        const ms = performance.now() - t0;
        stack.setPhase('idle');
        const t = totals(meter.collect(), ['submit']);
        await hold.release();
        meter.collect();
        runs.get(way)!.push({ ms, accepted, requests, calls: t.calls, rcu: t.rcu, wcu: t.wcu });
      }
    }
  } finally {
    await stack.close();
  }
  report(runs, stack.logged);
}

function report(runs: Map<Way, Run[]>, logged: { error: number; warn: number; last?: string }) {
  const best = (way: Way) => runs.get(way)!.reduce((a, b) => (b.ms < a.ms ? b : a));
  const base = best('one by one');
  const rows = WAYS.map((way) => {
    const b = best(way);
    return [
      way,
      String(b.requests),
      fixed(b.ms, 0),
      runs
        .get(way)!
        .map((x) => fixed(x.ms, 0))
        .join(' / '),
      fixed((N / b.ms) * 1000),
      `${runs.get(way)!.reduce((n, x) => n + x.accepted, 0)}/${N * ROUNDS}`,
      fixed(b.calls / N, 2),
      fixed(b.rcu / N, 2),
      fixed(b.wcu / N, 2),
      ratio(base.ms, b.ms),
    ];
  });
  const lines = [
    `batch bench: ${N} messages per way, ${ROUNDS} rounds (best round shown; all rounds' ms beside it)`,
    machineLine(),
    dynamoDbLocalLine(),
    '',
    table(
      [
        'way',
        'requests',
        'ms',
        'rounds ms',
        'msg/s',
        'accepted',
        'ddb calls/msg',
        'rcu/msg',
        'wcu/msg',
        'speed-up',
      ],
      rows,
      [1, 2, 4, 6, 7, 8, 9],
    ),
    '',
    "speed-up: the one-by-one wall time over this way's. requests: HTTP requests, on AWS one Lambda invocation each.",
    `runtime log: ${logged.error} errors, ${logged.warn} warnings${logged.last ? ` (last: ${logged.last})` : ''}`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

await main();
