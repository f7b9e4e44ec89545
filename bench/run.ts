/**
 * `npm run bench` — pmail against bare DynamoDB operations on the same DynamoDB Local, in one process:
 *   1. submit throughput at 32 in flight vs bare conditional PutItems at 32 in flight;
 *   2. duplicate-replay latency vs a bare consistent GetItem of an idempotency-sized item (and vs
 *      the replay's own BatchGetItem, bare: its floor);
 *   3. DynamoDB capacity per accepted send (submit alone, end to end) and per replay, through the
 *      simulator transport and through SES (bench/ses-capacity.ts), and the $ of a send through SES.
 * pmail is driven two ways: over HTTP (the local server and a fetch client, both in this process)
 * and as Lambda runs the API (its handler invoked with an API Gateway event: bench/lambda.ts). The
 * summary's verdicts on CPU, replay and throughput stand on the second: on AWS, API Gateway
 * terminates the HTTP and the API's Lambda runs the handler alone.
 * Ratios are the point: absolute numbers on DynamoDB Local and a laptop are not AWS numbers.
 * Nothing here asserts a number; failures (non-202 answers, runtime errors) are reported.
 *
 * Knobs (environment): BENCH_SENDS (400), BENCH_ROUNDS (1), BENCH_REPLAYS (300),
 * BENCH_CAPACITY_SENDS (20).
 */
import { marshall } from '@aws-sdk/util-dynamodb';
import { sha256Hex } from '../functions/core/fingerprint.ts';
import { possibleLocalDays } from '../functions/core/quota.ts';
import { hooksOf } from '../functions/store/dynamodb.ts';
import { getMessage } from '../functions/store/messages.store.ts';
import { keys } from '../functions/store/table-keys.ts';
import { itemBytes, itemName, type Tally, type Totals, totals } from './capacity.ts';
import { dynamoDbLocalLine, machineLine } from './env.ts';
import { apiEvent, lambdaHandler } from './lambda.ts';
import { costPerThousand, PRICES } from './prices.ts';
import { RoundTrips } from './round-trips.ts';
import { type SesRun, sesCapacityRun } from './ses-capacity.ts';
import { type BenchStack, startBenchStack } from './stack.ts';
import { fixed, pool, ratio, summarize, table } from './stats.ts';

// The SDK's notice about Node versions is known, and the node version is printed below.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const CONCURRENCY = 32;
const SENDS = intEnv('BENCH_SENDS', 400);
const ROUNDS = intEnv('BENCH_ROUNDS', 1);
const REPLAYS = intEnv('BENCH_REPLAYS', 300);
const CAPACITY_SENDS = intEnv('BENCH_CAPACITY_SENDS', 20);
const WARMUP_SENDS = 64;
const WARMUP_PUTS = 600;
/** The target pmail holds itself to (informational, never asserted). */
const TARGET_WCU_PER_SEND = 10;
const TARGET_WCU_PER_REPLAY = 0;
/** The goals, printed beside the figures (never asserted; docs/design/cost.md). */
const GOAL_ROUND_TRIPS = 6;
const GOAL_CPU_MS = 8;
const GOAL_REPLAY_RATIO = 1.5;
const GOAL_THROUGHPUT_RATIO = 0.3;
const GOAL_SES_SHARE = 0.1;
/** Sequential sends (executions held) whose DynamoDB round trips are counted. */
const ROUND_TRIP_SENDS = 5;

const BODY = JSON.stringify({ to: ['delivered@simulator.invalid'], subject: 'bench', text: 'hello' });
/** The rate limit is 120 sends per minute per identity: spread the load so no window fills. */
const LOAD_IDENTITIES = Math.max(
  4,
  Math.ceil((2 * WARMUP_SENDS + ROUNDS * SENDS * 3 + ROUND_TRIP_SENDS) / 90),
);
/** ~1 KB items for the put baseline (key, type and pad together just under 1,024 bytes). */
const PAD_1KB = 'x'.repeat(1024 - 64);

function intEnv(name: string, fallback: number): number {
  const v = Number(process.env[name]);
  return Number.isInteger(v) && v > 0 ? v : fallback;
}

interface Answer {
  status: number;
  replayed: boolean;
  messageId?: string;
  code?: string;
}

/**
 * Sends as an API client would: POSTs through the local HTTP server (`http`: the server and the
 * fetch client run in this process too), or invokes the API's Lambda handler with an API Gateway
 * event (`lambda`: what the API's Lambda runs on AWS, bench/lambda.ts).
 */
class Client {
  private n = 0;
  readonly failures = new Map<string, number>();
  /** The `messages` route group's Lambda, which API Gateway invokes for the send routes. */
  private readonly invoke: ReturnType<typeof lambdaHandler>;
  constructor(
    private readonly stack: BenchStack,
    private readonly load: string[],
    private readonly via: 'http' | 'lambda',
  ) {
    this.invoke = lambdaHandler('messages', stack.runtime.groups.messages);
  }

  private async post(path: string, headers: Record<string, string>, body: string) {
    if (this.via === 'lambda') {
      const res = await this.invoke(apiEvent('POST', path, headers, body));
      return { status: res.statusCode ?? 200, header: (h: string) => res.headers[h], text: res.body ?? '' };
    }
    const res = await fetch(`${this.stack.url}${path}`, { method: 'POST', headers, body });
    return {
      status: res.status,
      header: (h: string) => res.headers.get(h) ?? undefined,
      text: await res.text(),
    };
  }

  async send(
    identityId: string,
    key: string,
    body = BODY,
    apiKey = this.stack.tenant.apiKey,
  ): Promise<Answer> {
    const res = await this.post(
      `/v1/identities/${identityId}/messages`,
      {
        authorization: `Bearer ${apiKey}`,
        'idempotency-key': key,
        'content-type': 'application/json',
      },
      body,
    );
    let parsed: { id?: string; error?: { code?: string } } = {};
    try {
      parsed = JSON.parse(res.text);
    } catch {
      // reported as a failure without a code
    }
    const answer: Answer = {
      status: res.status,
      replayed: res.header('idempotent-replayed') === 'true',
      messageId: parsed.id,
      code: parsed.error?.code,
    };
    if (res.status !== 202) {
      const k = `${res.status} ${answer.code ?? ''}`.trim();
      this.failures.set(k, (this.failures.get(k) ?? 0) + 1);
    }
    return answer;
  }

  /** A new send with a distinct key, round-robin over the load identities. */
  fresh(tag: string): Promise<Answer> {
    const i = this.n++;
    return this.send(this.load[i % this.load.length], `bench-${tag}-${i}`);
  }
}

const print = (s = '') => console.log(s);

async function main(stack: BenchStack, names: string[]) {
  const { runtime, tenant, meter } = stack;
  const db = runtime.deps.db;
  const byName = new Map(tenant.identities.map((i) => [i.name, i.id]));
  const load = names.filter((n) => n.startsWith('load')).map((n) => byName.get(n)!);
  const client = new Client(stack, load, 'http');
  const lambda = new Client(stack, load, 'lambda');
  const trips = new RoundTrips();
  trips.install(hooksOf(db));
  print(`dynamodb  ${dynamoDbLocalLine()}`);
  print(
    `load      ${SENDS} sends x ${ROUNDS} round(s) at ${CONCURRENCY} in flight over ${LOAD_IDENTITIES} identities; ` +
      `${REPLAYS} replays x 2; ${CAPACITY_SENDS} sends for capacity`,
  );

  // ── Calibration: what DynamoDB Local reports for transactions vs what DynamoDB bills ──────────
  meter.collect(); // seeding
  stack.setPhase('calibration');
  meter.exactTransactions = true;
  const cal: string[] = [];
  for (const [name, sizes] of [
    ['2 x 100 B', [100, 100]],
    ['1 x 3 KB', [3000]],
    ['2 x 3 KB', [3000, 3000]],
    ['100 B + 3 KB', [100, 3000]],
  ] as const) {
    await db.transact({
      TransactItems: sizes.map((n, i) => ({
        Put: { TableName: db.table, Item: { pk: `BENCH#cal#${name}`, sk: `C#${i}`, pad: 'x'.repeat(n) } },
      })),
    });
    const [t] = meter.collect();
    cal.push(`${name}: reported ${t.units}, billed ${t.corrected}`);
  }
  print(`          TransactWriteItems of new items (DynamoDB bills 2 x each item's WCU): ${cal.join('; ')}`);
  print(
    '          -> the raw figure is neither undoubled nor doubled; "corrected" = 2 x each item\'s WCU, read back.',
  );
  meter.exactTransactions = false;

  // ── Warm-up: JIT both paths (Node and the JVM) before anything is timed ─────────────────────
  let putCounter = 0;
  const barePut = (id: string) =>
    db.put({
      TableName: db.table,
      Item: { pk: `BENCH#${id}`, sk: `P#${putCounter++}`, type: 'bench', pad: PAD_1KB },
      ConditionExpression: 'attribute_not_exists(pk)',
    });
  stack.setPhase('warmup');
  await pool(WARMUP_SENDS, CONCURRENCY, () => client.fresh('warm'));
  await pool(WARMUP_SENDS, CONCURRENCY, () => lambda.fresh('warm'));
  await pool(WARMUP_PUTS, CONCURRENCY, (i) => barePut(`warm#${i}`));
  await runtime.settle();
  meter.collect();

  // ── 1. Throughput ──────────────────────────────────────────────────────────────────────────
  const putRates: number[] = [];
  const putLat: number[] = [];
  const putCpu: number[] = [];
  let putUnits = 0;
  const baseline = async (tag: string) => {
    stack.setPhase('baseline');
    const run = await pool(SENDS, CONCURRENCY, (i) => barePut(`${tag}#${i}`));
    putRates.push((SENDS / run.elapsedMs) * 1000);
    putLat.push(...run.latencies);
    putCpu.push(run.cpuMs / SENDS);
    putUnits += totals(meter.collect()).wcu;
  };
  const liveRates: number[] = [];
  const liveLat: number[] = [];
  const liveCpu: number[] = [];
  const heldRates: number[] = [];
  const heldLat: number[] = [];
  const heldCpu: number[] = [];
  const heldCalls: number[] = [];
  const lambdaRates: number[] = [];
  const lambdaLat: number[] = [];
  const lambdaCpu: number[] = [];
  const lambdaCalls: number[] = [];
  const underLoad: Tally[] = [];
  let liveAccepted = 0;
  let heldAccepted = 0;
  let lambdaAccepted = 0;
  // DynamoDB calls a timed run made under the phase `submit` (the executions it started run after, under `idle`).
  const submitCalls = (tallies: Tally[]) => totals(tallies, ['submit']).calls / SENDS;
  // The handler-alone runs' calls by command, and how many failed a condition (races).
  const lambdaByCommand = new Map<string, { calls: number; failed: number }>();
  const byCommand = (tallies: Tally[]) => {
    for (const t of tallies.filter((x) => x.stage === 'submit')) {
      const c = lambdaByCommand.get(t.command) ?? { calls: 0, failed: 0 };
      lambdaByCommand.set(t.command, { calls: c.calls + t.calls, failed: c.failed + t.failed });
    }
    return tallies;
  };
  let drainMs = 0;
  stack.setAttribution(false);
  for (let r = 0; r < ROUNDS; r++) {
    await baseline(`r${r}a`);

    // pmail as `npm start` runs it: attempts and the event consumer share the process and the table.
    stack.setPhase('submit');
    const live = await pool(SENDS, CONCURRENCY, () => client.fresh(`live${r}`));
    const d0 = performance.now();
    await runtime.settle();
    drainMs += performance.now() - d0;
    liveRates.push((SENDS / live.elapsedMs) * 1000);
    liveLat.push(...live.latencies);
    liveCpu.push(live.cpuMs / SENDS);
    liveAccepted += live.results.filter((a) => a.status === 202).length;
    underLoad.push(...meter.collect());

    // The submit path alone: executions held until the timed window closes (on AWS they run elsewhere).
    const hold = stack.holdExecutions();
    const held = await pool(SENDS, CONCURRENCY, () => client.fresh(`held${r}`));
    stack.setPhase('idle');
    await hold.release();
    heldRates.push((SENDS / held.elapsedMs) * 1000);
    heldLat.push(...held.latencies);
    heldCpu.push(held.cpuMs / SENDS);
    heldAccepted += held.results.filter((a) => a.status === 202).length;
    heldCalls.push(submitCalls(meter.collect()));

    // The same, as the API's Lambda runs it: the handler invoked with an API Gateway event, no HTTP
    // server or client in the process (bench/lambda.ts).
    stack.setPhase('submit');
    const holdLambda = stack.holdExecutions();
    const alone = await pool(SENDS, CONCURRENCY, () => lambda.fresh(`lambda${r}`));
    stack.setPhase('idle');
    await holdLambda.release();
    lambdaRates.push((SENDS / alone.elapsedMs) * 1000);
    lambdaLat.push(...alone.latencies);
    lambdaCpu.push(alone.cpuMs / SENDS);
    lambdaAccepted += alone.results.filter((a) => a.status === 202).length;
    lambdaCalls.push(submitCalls(byCommand(meter.collect())));

    await baseline(`r${r}b`);
  }
  stack.setAttribution(true);
  const bestPut = Math.max(...putRates);
  const row = (name: string, rates: number[], lat: number[], cpu: number[]) => {
    const s = summarize(lat);
    return [
      name,
      fixed(Math.max(...rates)),
      rates.map((x) => fixed(x, 0)).join(' / '),
      fixed(s.p50),
      fixed(s.p99),
      fixed(Math.min(...cpu), 2),
      ratio(Math.max(...rates), bestPut),
    ];
  };
  print(`\n1. Submit throughput, ${CONCURRENCY} in flight, ${SENDS} per run (best run counts)`);
  print(
    table(
      ['', 'per second', 'runs', 'p50 ms', 'p99 ms', 'node CPU ms/op', 'vs baseline'],
      [
        row('baseline: conditional PutItem, ~1 KB, distinct keys', putRates, putLat, putCpu),
        row('pmail submit over HTTP (executions running)', liveRates, liveLat, liveCpu),
        row('pmail submit over HTTP (executions held)', heldRates, heldLat, heldCpu),
        row('pmail submit, Lambda handler alone (executions held)', lambdaRates, lambdaLat, lambdaCpu),
      ],
      [1, 3, 4, 5, 6],
    ),
  );
  const ul = totals(underLoad);
  print(
    `   baseline runs bracket the pmail runs (before / after); ${fixed(putUnits / (putRates.length * SENDS), 2)} WCU per put.`,
  );
  print(
    `   executions held: started after the timed window, as on AWS where they run off the API's CPU. ` +
      `Drain after the live run: ${fixed(drainMs / ROUNDS, 0)} ms.`,
  );
  print(
    '   over HTTP: the local HTTP server and the fetch client run in this process too; Lambda handler alone: ' +
      "the API's handler invoked as Lambda invokes it (API Gateway event, Lambda context), as on AWS where API Gateway " +
      "terminates the HTTP (it leaves out the Lambda runtime's own GET and POST per invocation).",
  );
  // Why the throughput ratio is what it is: both sides share DynamoDB Local's one Java process and the
  // same 2 cores; a submit is several DynamoDB calls, the baseline one.
  const callsPerSubmit = Math.min(...heldCalls, ...lambdaCalls);
  const heldBestRate = Math.max(...heldRates);
  const lambdaBestRate = Math.max(...lambdaRates);
  const bestPutRate = Math.max(...putRates);
  print(
    `   DynamoDB calls per submit (counted, executions held): over HTTP ${heldCalls.map((x) => fixed(x, 2)).join(' / ')}, ` +
      `handler alone ${lambdaCalls.map((x) => fixed(x, 2)).join(' / ')}; per baseline put: 1. DynamoDB calls per ` +
      `second: baseline ${fixed(bestPutRate, 0)}, pmail over HTTP ${fixed(heldBestRate * Math.min(...heldCalls), 0)} ` +
      `(${ratio(heldBestRate * Math.min(...heldCalls), bestPutRate)}), handler alone ` +
      `${fixed(lambdaBestRate * Math.min(...lambdaCalls), 0)} (${ratio(lambdaBestRate * Math.min(...lambdaCalls), bestPutRate)}).`,
  );
  print(
    `   handler alone, DynamoDB calls per submit by command: ${[...lambdaByCommand]
      .map(
        ([c, x]) =>
          `${c} ${fixed(x.calls / (ROUNDS * SENDS), 2)}${x.failed ? ` (${fixed(x.failed / (ROUNDS * SENDS), 2)} failed a condition)` : ''}`,
      )
      .join(', ')}; sends per load identity in flight: ${fixed(CONCURRENCY / LOAD_IDENTITIES, 1)} ` +
      "(their counts race on the identity's counter item and its lease).",
  );
  print(
    `   -> at the baseline's rate of calls, ${fixed(callsPerSubmit, 2)} calls per submit cap the ratio at ` +
      `${ratio(1, callsPerSubmit)} (node CPU per call: baseline ${fixed(Math.min(...putCpu), 2)} ms, pmail handler alone ` +
      `${fixed(Math.min(...lambdaCpu) / callsPerSubmit, 2)} ms with the handler's own work).`,
  );

  // ── Round trips on the submit critical path: sequential sends, executions held ───────────────
  const tripCounts: number[] = [];
  let tripShape = '';
  {
    const hold = stack.holdExecutions();
    stack.setPhase('submit');
    for (let i = 0; i < ROUND_TRIP_SENDS; i++) {
      trips.take();
      trips.recording = true;
      await client.fresh('trips');
      trips.recording = false;
      const waves = trips.take();
      tripCounts.push(waves.length);
      tripShape = waves.map((w) => w.join('+')).join(' -> ');
    }
    stack.setPhase('idle');
    await hold.release();
    meter.collect();
  }

  // ── 3. Capacity: sequential sends, settled after each, transactions accounted exactly ────────
  meter.exactTransactions = true;
  const capacityId = byName.get('capacity')!;
  const capacityAnswers: Answer[] = [];
  for (let i = 0; i < CAPACITY_SENDS; i++) {
    stack.setPhase('submit');
    capacityAnswers.push(await lambda.send(capacityId, `bench-capacity-${i}`));
    stack.setPhase('idle');
    await runtime.settle();
  }
  const cap = meter.collect();
  stack.setPhase('verify');
  const finalStatus = new Map<string, number>();
  let messageBytes = 0;
  for (const a of capacityAnswers) {
    if (!a.messageId) continue;
    const m = await getMessage(db, capacityId, a.messageId, true);
    const s = `${m?.status ?? 'missing'} (${m?.deliveries?.map((d) => d.status).join(',') ?? ''})`;
    finalStatus.set(s, (finalStatus.get(s) ?? 0) + 1);
    messageBytes = Math.max(messageBytes, Buffer.byteLength(JSON.stringify(m ?? {})));
  }
  meter.collect();
  const capAccepted = capacityAnswers.filter((a) => a.status === 202).length;
  const sesRun = await sesCapacityRun(stack, CAPACITY_SENDS, (id, key, body, apiKey) =>
    lambda.send(id, key, body, apiKey),
  );

  // ── 2. Replays ─────────────────────────────────────────────────────────────────────────────
  const replayId = byName.get('replay')!;
  const replayKey = 'bench-replay-key';
  stack.setPhase('setup');
  const first = await client.send(replayId, replayKey);
  await runtime.settle();
  const ik = await db.get({
    TableName: db.table,
    Key: { pk: `I#${replayId}`, sk: `IK#${sha256Hex(replayKey)}` },
    ConsistentRead: true,
  });
  const ikBytes = docBytes(ik.Item ?? {});
  const getKey = { pk: 'BENCH#get', sk: `IK#${sha256Hex('baseline')}` };
  const padFor = Math.max(0, ikBytes - docBytes({ ...getKey, type: 'bench', pad: '' }));
  await db.put({ TableName: db.table, Item: { ...getKey, type: 'bench', pad: 'x'.repeat(padFor) } });
  const bareGet = () => db.get({ TableName: db.table, Key: getKey, ConsistentRead: true });
  const replay = () => client.send(replayId, replayKey);
  const replayAlone = () => lambda.send(replayId, replayKey);
  // The replay's own read, bare: the one consistent BatchGetItem its first read sends (the key, the
  // identity, the Idempotency-Key item, the identity's counter of each possible local day).
  const firstReadKeys = [
    keys.apiKey(sha256Hex(tenant.apiKey)),
    keys.identity(replayId),
    keys.idempotency(replayId, sha256Hex(replayKey)),
    ...possibleLocalDays(Date.now()).map((day) => ({ pk: `I#${replayId}`, sk: `Q#${day}` })),
  ];
  const bareBatch = () =>
    db.batchGet({ RequestItems: { [db.table]: { Keys: firstReadKeys, ConsistentRead: true } } });
  await pool(60, CONCURRENCY, replay);
  await pool(60, CONCURRENCY, replayAlone);
  await pool(60, CONCURRENCY, bareGet);
  await pool(60, CONCURRENCY, bareBatch);
  meter.collect();

  trips.take();
  trips.recording = true;
  await replay();
  trips.recording = false;
  const replayWaves = trips.take();
  meter.collect();

  stack.setPhase('replay');
  const rSeq = await pool(REPLAYS, 1, replay);
  const rPar = await pool(REPLAYS, CONCURRENCY, replay);
  const replayTallies = meter.collect();
  const lSeq = await pool(REPLAYS, 1, replayAlone);
  const lPar = await pool(REPLAYS, CONCURRENCY, replayAlone);
  meter.collect();
  stack.setPhase('baseline');
  const gSeq = await pool(REPLAYS, 1, bareGet);
  const gPar = await pool(REPLAYS, CONCURRENCY, bareGet);
  const getTallies = meter.collect();
  const bSeq = await pool(REPLAYS, 1, bareBatch);
  const bPar = await pool(REPLAYS, CONCURRENCY, bareBatch);
  meter.collect();
  meter.exactTransactions = false;
  const replays = [...rSeq.results, ...rPar.results];
  const isReplay = (a: Answer) => a.status === 202 && a.replayed && a.messageId === first.messageId;
  const replayedOk = replays.filter(isReplay).length;
  const aloneReplays = [...lSeq.results, ...lPar.results];
  const aloneReplayedOk = aloneReplays.filter(isReplay).length;

  print(`\n2. Duplicate replay latency, ms (${REPLAYS} per row; the idempotency item is ${ikBytes} B)`);
  const latRows: string[][] = [];
  for (const [name, r, l, g, b] of [
    ['sequential', rSeq, lSeq, gSeq, bSeq],
    [`${CONCURRENCY} in flight`, rPar, lPar, gPar, bPar],
  ] as const) {
    const gs = summarize(g.latencies);
    const row = (label: string, s: ReturnType<typeof summarize>) =>
      latRows.push([`${name}: ${label}`, fixed(s.p50, 2), fixed(s.p95, 2), fixed(s.p99, 2)]);
    /** A figure's row, then its ratio to the baseline GetItem. */
    const measured = (label: string, vs: string, s: ReturnType<typeof summarize>) => {
      row(label, s);
      latRows.push([`${name}: ${vs}`, ratio(s.p50, gs.p50), ratio(s.p95, gs.p95), ratio(s.p99, gs.p99)]);
    };
    row('baseline consistent GetItem', gs);
    measured('pmail replay over HTTP', 'replay / baseline', summarize(r.latencies));
    measured('pmail replay, Lambda handler alone', 'handler alone / baseline', summarize(l.latencies));
    measured(
      `the replay's BatchGetItem, bare (${firstReadKeys.length} keys)`,
      'bare BatchGetItem / baseline',
      summarize(b.latencies),
    );
  }
  print(table(['', 'p50', 'p95', 'p99'], latRows, [1, 2, 3]));
  print(
    "   the bare BatchGetItem is the floor of a replay answered from one read: what is above it is pmail's work " +
      '(authentication, scope, the body and its fingerprint, the answer) and, over HTTP, the local server and client.',
  );

  // ── 3. Report ──────────────────────────────────────────────────────────────────────────────
  print(
    `\n3. DynamoDB capacity (${CAPACITY_SENDS} sequential sends, settled after each; ${replays.length} replays; ` +
      `${2 * REPLAYS} baseline gets)`,
  );
  const stageOrder = ['submit', 'attempt', 'event'];
  const per = (n: number) => (x: number) => fixed(x / n, 2);
  const rows: string[][] = [];
  const sorted = [...cap].sort(
    (a, b) => rank(stageOrder, a.stage) - rank(stageOrder, b.stage) || a.label.localeCompare(b.label),
  );
  for (const x of sorted) rows.push(breakdownRow(x, per(CAPACITY_SENDS)));
  for (const x of [...replayTallies].sort((a, b) => a.label.localeCompare(b.label)))
    rows.push(breakdownRow(x, per(replays.length)));
  for (const x of getTallies) rows.push(breakdownRow(x, per(2 * REPLAYS)));
  print(
    table(
      ['stage', 'call', 'item', 'what', 'calls', 'R/W', 'units', 'corrected', 'cond.failed'],
      rows,
      [4, 6, 7, 8],
    ),
  );
  print(
    '   calls, units and failures per accepted send (submit/attempt/event), per replay, per baseline get;',
  );
  print('   "units" as DynamoDB Local reports them, "corrected" as DynamoDB bills them.');
  for (const x of cap.filter((t) => t.itemUnits.size > 0)) {
    const parts = [...x.itemUnits].map(
      ([prefix, u]) => `${itemName(prefix)} ${fixed(u.units / u.n, 2)} WCU (${fixed(u.bytes / u.n, 0)} B)`,
    );
    const index = x.indexUnits ? ` + ${(x.indexUnits / x.calls).toFixed(2)} index writes` : '';
    print(`   ${x.stage} ${x.label}: corrected = 2 x (${parts.join(' + ')})${index}`);
  }

  const sub = totals(cap, ['submit']);
  const e2e = totals(cap, stageOrder);
  const rep = totals(replayTallies);
  const verdict = (wcu: number, target: number) => (wcu <= target + 1e-9 ? 'PASS' : 'OVER');
  print('');
  print(
    table(
      ['per accepted send', 'RCU', 'WCU raw', 'WCU corrected', 'target', 'verdict'],
      [
        totalsRow('submit request alone', sub, CAPACITY_SENDS),
        totalsRow('send attempt (Claim, Transport, Record)', totals(cap, ['attempt']), CAPACITY_SENDS),
        totalsRow('applying the delivered event', totals(cap, ['event']), CAPACITY_SENDS),
        [
          ...totalsRow('end to end', e2e, CAPACITY_SENDS),
          `<= ${TARGET_WCU_PER_SEND} WCU`,
          verdict(e2e.wcuCorrected / CAPACITY_SENDS, TARGET_WCU_PER_SEND),
        ],
        [
          ...totalsRow('per replay', rep, replays.length),
          `${TARGET_WCU_PER_REPLAY} WCU`,
          verdict(rep.wcuCorrected / replays.length, TARGET_WCU_PER_REPLAY),
        ],
      ],
      [1, 2, 3],
    ),
  );
  const failedPerSend = e2e.failed / CAPACITY_SENDS;
  if (e2e.failed + rep.failed > 0) {
    print(
      `   ${e2e.failed + rep.failed} conditional writes failed (${fixed(failedPerSend, 2)} per send); DynamoDB Local ` +
        `reported capacity for ${e2e.failed + rep.failed - e2e.unreported - rep.unreported} of them. ` +
        `On DynamoDB they bill ${fixed(e2e.failedBilled / CAPACITY_SENDS, 2)} WCU per send (bench/capacity.ts › ` +
        'failedBilled), counted in the summary and the cost.',
    );
  }
  const ulSends = liveAccepted || 1;
  print(
    `   under load (the live throughput run, DynamoDB Local's raw figures): ${fixed(ul.wcu / ulSends, 2)} WCU ` +
      `end to end per send vs ${fixed(e2e.wcu / CAPACITY_SENDS, 2)} sequential; ${ul.failed} conditional writes ` +
      `lost a race and were retried (${fixed(ul.failed / ulSends, 2)} per send).`,
  );
  print(`   the message item after delivery is ~${messageBytes} B as JSON.`);
  print(
    '   DynamoDB Local reports 0 for a BatchGetItem that finds nothing (the simulator recipient); DynamoDB bills ' +
      'a read of a missing item too (0.5 RCU eventually consistent): not added above.',
  );
  const stray = cap.filter((x) => !stageOrder.includes(x.stage));
  if (stray.length > 0)
    print(
      `   note: ${stray.reduce((s, x) => s + x.calls, 0)} calls ran outside any stage during the capacity run.`,
    );
  const onSes = reportSesRun(sesRun);

  // ── The figures, with their goals ──────────────────────────────────────────────────────
  const heldBest = Math.max(...heldRates);
  const lambdaBest = Math.max(...lambdaRates);
  const rSeqP50 = summarize(rSeq.latencies).p50;
  const lSeqP50 = summarize(lSeq.latencies).p50;
  const gSeqP50 = summarize(gSeq.latencies).p50;
  const wcuPerSend = (e2e.wcuCorrected + e2e.failedBilled) / CAPACITY_SENDS;
  const sesSends = sesRun.accepted || 1;
  const wcuOnSes = (onSes.wcuCorrected + onSes.failedBilled) / sesSends;
  const costs = costPerThousand({
    wcu: onSes.wcuCorrected / sesSends,
    rcu: onSes.rcuCorrected / sesSends,
    failedWriteUnits: onSes.failedBilled / sesSends,
    apiHandlerMs: summarize(sesRun.handlerMs).p50,
    executions: sesRun.executions,
    settleMs: summarize(sesRun.settleMs).p50,
    eventsMs: summarize(sesRun.eventsMs).p50,
  });
  const dynamoCost = costs[0].perThousand + costs[1].perThousand;
  const allCost = costs.reduce((sum, c) => sum + c.perThousand, 0);
  const tripsMax = Math.max(...tripCounts);
  const cpu = Math.min(...heldCpu);
  const cpuAlone = Math.min(...lambdaCpu);
  const yes = (ok: boolean) => (ok ? 'PASS' : 'OVER');
  print('\nsummary (figure, goal, verdict)');
  print(
    table(
      ['measure', 'figure', 'goal', 'verdict'],
      [
        [
          'WCU per accepted one-recipient send through SES, end to end, billed (failed conditional writes in)',
          fixed(wcuOnSes, 2),
          `<= ${TARGET_WCU_PER_SEND}`,
          yes(wcuOnSes <= TARGET_WCU_PER_SEND + 1e-9),
        ],
        [
          '  the same through the simulator transport (no Send event, no provider index entry)',
          fixed(wcuPerSend, 2),
          `<= ${TARGET_WCU_PER_SEND}`,
          yes(wcuPerSend <= TARGET_WCU_PER_SEND + 1e-9),
        ],
        [
          `duplicate replay p50 vs one consistent GetItem (${replayWaves.length} round trip(s)), over local HTTP`,
          ratio(rSeqP50, gSeqP50),
          `<= ${GOAL_REPLAY_RATIO}x`,
          yes(rSeqP50 / gSeqP50 <= GOAL_REPLAY_RATIO),
        ],
        [
          '  the same, Lambda handler alone *',
          ratio(lSeqP50, gSeqP50),
          `<= ${GOAL_REPLAY_RATIO}x`,
          yes(lSeqP50 / gSeqP50 <= GOAL_REPLAY_RATIO),
        ],
        [
          'sequential DynamoDB round trips on the submit critical path',
          String(tripsMax),
          `<= ${GOAL_ROUND_TRIPS}`,
          yes(tripsMax <= GOAL_ROUND_TRIPS),
        ],
        [
          `node CPU per submit, ms (bare put ${fixed(Math.min(...putCpu), 2)}), over local HTTP`,
          fixed(cpu, 2),
          `<= ${GOAL_CPU_MS}`,
          yes(cpu <= GOAL_CPU_MS),
        ],
        [
          '  the same, Lambda handler alone *',
          fixed(cpuAlone, 2),
          `<= ${GOAL_CPU_MS}`,
          yes(cpuAlone <= GOAL_CPU_MS),
        ],
        [
          `submit throughput at ${CONCURRENCY} in flight, executions held, vs bare put, over local HTTP`,
          ratio(heldBest, bestPut),
          `>= ${GOAL_THROUGHPUT_RATIO}x`,
          yes(heldBest / bestPut >= GOAL_THROUGHPUT_RATIO),
        ],
        [
          `  the same, Lambda handler alone * (${fixed(callsPerSubmit, 2)} DynamoDB calls per submit vs 1)`,
          ratio(lambdaBest, bestPut),
          `>= ${GOAL_THROUGHPUT_RATIO}x`,
          yes(lambdaBest / bestPut >= GOAL_THROUGHPUT_RATIO),
        ],
        [
          "$ per 1,000 sends through SES, DynamoDB from counted units (failed writes in), vs SES's $0.10",
          `$${dynamoCost.toFixed(4)} (${fixed((100 * dynamoCost) / PRICES.sesPerThousand, 1)} %)`,
          '',
          '',
        ],
        [
          "$ per 1,000 sends through SES, all in (each service's line below), vs SES's $0.10",
          `$${allCost.toFixed(4)} (${fixed((100 * allCost) / PRICES.sesPerThousand, 1)} %)`,
          `<= ${100 * GOAL_SES_SHARE} %`,
          yes(allCost <= GOAL_SES_SHARE * PRICES.sesPerThousand),
        ],
      ],
      [1],
    ),
  );
  print(
    "   * the figure the goal is judged on: on AWS the API's Lambda runs the handler alone (API Gateway terminates " +
      'the HTTP); over local HTTP adds an HTTP server and a fetch client in the same process. Both are printed.',
  );
  print(`   submit round trips per send: ${tripCounts.join(', ')}; the last: ${tripShape}`);
  print(`   replay round trips: ${replayWaves.map((w) => w.join('+')).join(' -> ')}`);
  print(
    '   $ per 1,000 one-recipient sends through SES, all in (bench/prices.ts: us-east-1 on-demand list prices; ' +
      `the SES run's ${sesRun.sends} sends: handler p50 ${fixed(summarize(sesRun.handlerMs).p50, 1)} ms, 202 to ` +
      `settled p50 ${fixed(summarize(sesRun.settleMs).p50, 0)} ms, both events applied p50 ` +
      `${fixed(summarize(sesRun.eventsMs).p50, 1)} ms, ${fixed(sesRun.executions, 2)} executions per send):`,
  );
  for (const c of costs) print(`     ${c.what.padEnd(58)} $${c.perThousand.toFixed(4)}`);
  print(
    `     ${'total'.padEnd(58)} $${allCost.toFixed(4)} = ${fixed((100 * allCost) / PRICES.sesPerThousand, 1)} % of SES's $${PRICES.sesPerThousand.toFixed(2)}`,
  );

  // ── Checks ─────────────────────────────────────────────────────────────────────────────────
  print('\nchecks');
  print(
    `   202 accepted: live ${liveAccepted}/${ROUNDS * SENDS}, held ${heldAccepted}/${ROUNDS * SENDS}, ` +
      `handler alone ${lambdaAccepted}/${ROUNDS * SENDS}, capacity ${capAccepted}/${CAPACITY_SENDS}; replays ` +
      `answered 202 + Idempotent-Replayed + original id: over HTTP ${replayedOk}/${replays.length}, handler alone ` +
      `${aloneReplayedOk}/${aloneReplays.length}`,
  );
  print(
    `   capacity sends' final status: ${[...finalStatus].map(([s, n]) => `${s} x${n}`).join(', ') || 'none'}; ` +
      `through SES: ${[...sesRun.finalStatus].map(([s, n]) => `${s} x${n}`).join(', ') || 'none'} ` +
      `(${sesRun.accepted}/${sesRun.sends} accepted, ${sesRun.applied} of their Send and Delivery events applied)`,
  );
  const failures = [...client.failures, ...lambda.failures].map(([k, n]) => `${k} x${n}`).join(', ');
  print(`   non-202 answers: ${failures || 'none'}`);
  print(
    `   runtime log: ${stack.logged.error} errors, ${stack.logged.warn} warnings` +
      (stack.logged.last ? ` (last: ${stack.logged.last})` : '') +
      `; dead-lettered events: ${runtime.queue.deadLetters.length}; executions: ${runtime.machine.started.length}`,
  );
}

/** The SES run's breakdown and per-send totals (bench/ses-capacity.ts); returns its end-to-end totals. */
function reportSesRun(run: SesRun): Totals {
  const stages = ['submit', 'attempt', 'Send event', 'Delivery event'];
  const n = run.accepted || 1;
  print(
    `\n3b. A send through SES (${run.sends} sequential sends to aws-ses-v2-local, settled after each; then SES's ` +
      'Send and Delivery events applied through the consumer)',
  );
  const rows = [...run.tallies]
    .filter((x) => stages.includes(x.stage))
    .sort((a, b) => rank(stages, a.stage) - rank(stages, b.stage) || a.label.localeCompare(b.label))
    .map((x) => breakdownRow(x, (v) => fixed(v / n, 2)));
  print(
    table(
      ['stage', 'call', 'item', 'what', 'calls', 'R/W', 'units', 'corrected', 'cond.failed'],
      rows,
      [4, 6, 7, 8],
    ),
  );
  const all = totals(run.tallies, stages);
  print('');
  print(
    table(
      ['per accepted send through SES', 'RCU', 'WCU raw', 'WCU corrected', 'target', 'verdict'],
      [
        ...stages.map((s) => totalsRow(s, totals(run.tallies, [s]), n)),
        [
          ...totalsRow('end to end', all, n),
          `<= ${TARGET_WCU_PER_SEND} WCU`,
          (all.wcuCorrected + all.failedBilled) / n <= TARGET_WCU_PER_SEND + 1e-9 ? 'PASS' : 'OVER',
        ],
      ],
      [1, 2, 3],
    ),
  );
  print(
    "   SES's message id is a live provider id: Record writes it to the provider index (gsi1) and each event " +
      "finds the message through it; the simulator's test ids name their message.",
  );
  return all;
}

function breakdownRow(x: Tally, per: (n: number) => string): string[] {
  return [
    x.stage,
    x.label,
    x.items,
    PURPOSE[`${x.stage === 'replay' ? 'submit' : x.stage}|${x.label}`] ?? '',
    per(x.calls),
    x.kind === 'read' ? 'R' : 'W',
    per(x.units),
    x.inexact ? 'n/a' : per(x.corrected),
    x.failed ? per(x.failed) : '',
  ];
}

function totalsRow(name: string, t: Totals, n: number): string[] {
  return [
    name,
    fixed(t.rcuCorrected / n, 2),
    fixed(t.wcu / n, 2),
    t.inexact ? 'n/a' : fixed(t.wcuCorrected / n, 2),
  ];
}

const rank = (order: string[], s: string) => (order.includes(s) ? order.indexOf(s) : order.length);

/** What each call is for, as the code reads today (a call not listed prints without a note). */
const PURPOSE: Record<string, string> = {
  'submit|GetItem K': 'authenticate',
  'submit|BatchGetItem I+T': 'identity + tenant in scope',
  'submit|GetItem Q#': 'rate peek (identity counter)',
  'submit|GetItem IK#': 'idempotency lookup (5.1 step 1)',
  'submit|UpdateItem Q#': 'count: rate window, daily caps',
  'submit|PutItem IK#': 'idempotency reserve (5.1 step 2)',
  'submit|BatchGetItem A': 'recipient addresses (loopback?)',
  'submit|TransactWriteItems Put M# + Update IK#': 'commit: message + key completed',
  'submit|DeleteItem IK#': 'idempotency release',
  'attempt|GetItem M#': 'Claim, Record: read message',
  'attempt|PutItem M#': 'Record: versioned put',
  'attempt|UpdateItem M#': 'Transport: claim + sending mark',
  'attempt|GetItem T': 'Transport: tenant mode',
  'event|GetItem A': 'route by sender',
  'event|GetItem M#': 'read message',
  'event|PutItem M#': 'apply delivered (versioned put)',
  'baseline|GetItem IK#': 'bare consistent get',
};

/** DynamoDB's size of a document-form item. */
const docBytes = (item: Record<string, unknown>) =>
  itemBytes(marshall(item, { removeUndefinedValues: true, convertClassInstanceToMap: false }));

// ── Entry (last, so every constant above is initialised) ─────────────────────────────────────
const startedAt = performance.now();
print('pmail bench (numbers are reported, never asserted; compare the ratios)');
print(`machine   ${machineLine()}`);
const names = [...Array.from({ length: LOAD_IDENTITIES }, (_, i) => `load${i}`), 'capacity', 'replay'];
const stack = await startBenchStack({ identities: names });
try {
  await main(stack, names);
} finally {
  await stack.close();
}
print(`\ntotal bench time ${fixed((performance.now() - startedAt) / 1000)} s`);
