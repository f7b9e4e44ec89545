/**
 * `npm run bench:stream` (part of `npm run bench`): the event stream's latency on the local stack
 * (DynamoDB Local's stream → the fan-out → the `ws` gateway behind the HTTP server, as `npm start`
 * runs it), docs/guides/stream.md:
 *   1. event-to-client latency, from the start of the event's committing write to the frame's
 *      arrival at each subscriber, p50/p99, for 1, 100 and 1,000 subscribers of one tenant; and the
 *      time until the last subscriber has it;
 *   2. what the fan-out asks of the table per event and subscriber (DynamoDB calls by kind): the
 *      input of the AWS cost in docs/design/cost.md;
 *   3. the baseline: a client polling `GET /v1/events?after=` every second, same events.
 * Subscribers are plain `ws` clients in this process, so at 1,000 the clients' own work is in the
 * number too. Numbers are reported, never asserted.
 * $ from the list prices in bench/prices.ts. Knobs (environment): BENCH_STREAM_SUBSCRIBERS (1,100,1000), BENCH_STREAM_EVENTS (10),
 * BENCH_STREAM_GAP_MS (100).
 */
import WebSocket from 'ws';
import { hooksOf } from '../functions/store/dynamodb.ts';
import { appendEvent } from '../functions/store/events.store.ts';
import { machineLine } from './env.ts';
import { PRICES } from './prices.ts';
import { type BenchStack, startBenchStack } from './stack.ts';
import { fixed, ratio, type Summary, summarize, table } from './stats.ts';

const SUBSCRIBERS = (process.env.BENCH_STREAM_SUBSCRIBERS ?? '1,100,1000').split(',').map(Number);
const EVENTS = Number(process.env.BENCH_STREAM_EVENTS ?? 10);
const GAP_MS = Number(process.env.BENCH_STREAM_GAP_MS ?? 100);
const print = (s = '') => console.log(s);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One subscriber: when each event id arrived. */
interface Subscriber {
  ws: WebSocket;
  arrived: Map<string, number>;
}

function subscribe(url: string, key: string): Promise<Subscriber> {
  const ws = new WebSocket(url, { headers: { authorization: `Bearer ${key}` }, perMessageDeflate: false });
  const arrived = new Map<string, number>();
  ws.on('message', (data) => {
    const frame = JSON.parse(data.toString()) as { type: string; event?: { id: string } };
    if (frame.type === 'event' && frame.event) arrived.set(frame.event.id, performance.now());
  });
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve({ ws, arrived }));
    ws.once('error', reject);
    ws.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
  });
}

/** Commit `n` events of the tenant, `GAP_MS` apart: each id and when its committing write started. */
async function emit(stack: BenchStack, n: number, tag: string): Promise<Map<string, number>> {
  const { deps } = stack.runtime;
  const started = new Map<string, number>();
  for (let i = 0; i < n; i++) {
    const id = `evt_${deps.newId()}`;
    const at = performance.now();
    await appendEvent(
      deps.db,
      {
        id,
        type: 'bench.stream',
        tenant_id: stack.tenant.tenantId,
        created_at: Date.now(),
        data: { tag, i },
      },
      Date.now(),
    );
    started.set(id, at);
    await sleep(GAP_MS);
  }
  return started;
}

function closed(ws: WebSocket): Promise<void> {
  if (ws.readyState === WebSocket.CLOSED) return Promise.resolve();
  const done = new Promise<void>((r) => ws.once('close', () => r()));
  ws.close();
  return done;
}

async function until(check: () => boolean, ms: number): Promise<boolean> {
  const end = performance.now() + ms;
  while (!check()) {
    if (performance.now() > end) return false;
    await sleep(20);
  }
  return true;
}

/** The DynamoDB calls made while `fn` runs, by operation, and the units they consumed. */
interface Usage {
  calls: Map<string, number>;
  wru: number;
  rru: number;
}

async function counting<T>(stack: BenchStack, fn: () => Promise<T>): Promise<[T, Usage]> {
  const usage: Usage = { calls: new Map(), wru: 0, rru: 0 };
  const remove = hooksOf(stack.runtime.deps.db).aroundAttempt(async (operation, input, next) => {
    usage.calls.set(operation, (usage.calls.get(operation) ?? 0) + 1);
    // The event's own commit (the only transaction here) is the send's cost, not the stream's.
    if (operation === 'TransactWriteItems') return next(input);
    const out = await next({ ...input, ReturnConsumedCapacity: 'TOTAL' });
    for (const c of ([] as { CapacityUnits?: number }[]).concat(out.ConsumedCapacity ?? [])) {
      const units = c.CapacityUnits ?? 0;
      if (/Get|Query|Scan/.test(operation)) usage.rru += units;
      else usage.wru += units;
    }
    return out;
  });
  try {
    return [await fn(), usage];
  } finally {
    remove();
  }
}

/**
 * $ per 1,000 events sent to one connection, at the list prices: a WebSocket message each, the
 * fan-out's DynamoDB units as counted, and one fan-out invocation per event shared by the `n`
 * connections (its duration is not priced: a laptop's time is not Lambda's).
 */
function perThousandEvents(u: Usage, events: number, n: number): number {
  const per = events * n;
  return (
    1000 *
    (PRICES.wsMessage +
      ((u.wru / per) * PRICES.dynamoWriteUnit + (u.rru / per) * PRICES.dynamoReadUnit) +
      PRICES.lambdaRequest / n)
  );
}

async function streamRun(stack: BenchStack, url: string, n: number) {
  const subs: Subscriber[] = [];
  for (let i = 0; i < n; i += 50)
    subs.push(
      ...(await Promise.all(
        Array.from({ length: Math.min(50, n - i) }, () => subscribe(url, stack.tenant.apiKey)),
      )),
    );
  // Each connection's first fan-out (its start position) has run before the events come.
  await sleep(500);
  const [started, calls] = await counting(stack, async () => {
    const s = await emit(stack, EVENTS, `n${n}`);
    const all = await until(() => subs.every((x) => [...s.keys()].every((id) => x.arrived.has(id))), 300_000);
    return Object.assign(s, { all });
  });
  const each: number[] = [];
  const last: number[] = [];
  let missing = 0;
  for (const [id, at] of started) {
    const times = subs.flatMap((x) => (x.arrived.has(id) ? [x.arrived.get(id)! - at] : []));
    missing += n - times.length;
    each.push(...times);
    if (times.length) last.push(Math.max(...times));
  }
  await Promise.all(subs.map((x) => closed(x.ws)));
  await sleep(500);
  return { each: summarize(each), last: summarize(last), missing, calls };
}

async function pollRun(stack: BenchStack) {
  const auth = { authorization: `Bearer ${stack.tenant.apiKey}` };
  const read = async (after?: string) => {
    const q = new URLSearchParams({ limit: '100', ...(after ? { after } : {}) });
    const res = await fetch(`${stack.url}/v1/events?${q}`, { headers: auth });
    return (await res.json()) as { data: { id: string }[] };
  };
  let after = (await read()).data.at(-1)?.id;
  for (let page = await read(after); page.data.length; page = await read(after)) after = page.data.at(-1)!.id;
  const seen = new Map<string, number>();
  let polling = true;
  const poller = (async () => {
    while (polling) {
      const page = await read(after);
      const at = performance.now();
      for (const e of page.data) seen.set(e.id, at);
      after = page.data.at(-1)?.id ?? after;
      await sleep(1000);
    }
  })();
  // Commits fall anywhere in the poller's second.
  const started = await emit(stack, EVENTS, 'poll');
  await until(() => [...started.keys()].every((id) => seen.has(id)), 30_000);
  polling = false;
  await poller;
  return summarize([...started].flatMap(([id, at]) => (seen.has(id) ? [seen.get(id)! - at] : [])));
}

type Run = Awaited<ReturnType<typeof streamRun>> & { n: number };

function printLatency(runs: Run[], polled: Summary) {
  const rows = runs.map((r) => [
    `stream, ${r.n} subscriber${r.n === 1 ? '' : 's'}`,
    fixed(r.each.p50, 0),
    fixed(r.each.p99, 0),
    fixed(r.last.p50, 0),
    `${ratio(r.each.p50, polled.p50)}`,
    String(r.missing),
  ]);
  rows.push(['poll GET /v1/events every 1 s', fixed(polled.p50, 0), fixed(polled.p99, 0), '-', '1.00', '-']);
  print(
    `\n1. event-to-client latency, ${EVENTS} events ${GAP_MS} ms apart (ms from the committing write's start)`,
  );
  const header = ['client', 'p50', 'p99', 'last subscriber p50', 'p50 / polling p50', 'missing'];
  print(table(header, rows, [1, 2, 3, 4, 5]));
}

function printCost(runs: Run[]) {
  const rows = runs.map((r) => {
    const per = EVENTS * r.n;
    const calls = [...r.calls.calls]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([op, c]) => `${op} ${fixed(c / per, 2)}`);
    return [
      String(r.n),
      calls.join(', '),
      fixed(r.calls.wru / per, 2),
      fixed(r.calls.rru / per, 2),
      `$${fixed(perThousandEvents(r.calls, EVENTS, r.n), 5)}`,
    ];
  });
  print("\n2. the fan-out's DynamoDB calls per event and subscriber (the cost model, docs/design/cost.md)");
  const header = [
    'subscribers',
    "calls per event and subscriber (the event's own write included)",
    'fan-out WRU',
    'fan-out RRU',
    '$ / 1,000 events / connection',
  ];
  print(table(header, rows, [0, 2, 3, 4]));
  // A connection open an hour: its minutes, a heartbeat a minute, a reconnect every 2 hours
  // (the authorizer's and the route's invocations; the connection's put and delete, 2 WRU).
  const hour =
    60 * PRICES.wsConnectionMinute +
    60 * PRICES.wsMessage +
    0.5 * (2 * PRICES.lambdaRequest + 2 * PRICES.dynamoWriteUnit);
  print(
    `   one connection open an hour, idle (minutes, heartbeats, a reconnect every 2 h): $${fixed(hour, 6)}`,
  );
}

async function main() {
  print('pmail bench: the event stream (numbers are reported, never asserted)');
  print(`machine   ${machineLine()}`);
  const stack = await startBenchStack({
    identities: ['agent'],
    stream: {},
    config: { streamConnectionsPerTenant: Math.max(...SUBSCRIBERS) + 10 },
  });
  try {
    stack.setAttribution(false);
    const url = `${stack.url.replace('http:', 'ws:')}/v1/stream`;
    const polled = await pollRun(stack);
    const runs: Run[] = [];
    for (const n of SUBSCRIBERS) runs.push({ n, ...(await streamRun(stack, url, n)) });
    printLatency(runs, polled);
    printCost(runs);
    const { error, warn, last } = stack.logged;
    print(`\nlogged: ${error} errors, ${warn} warnings${last ? ` (last: ${last})` : ''}`);
  } finally {
    await stack.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
