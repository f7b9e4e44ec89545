/**
 * `npm run bench` — pmail against bare DynamoDB operations on the same DynamoDB Local, in one process:
 *   1. submit throughput at 32 in flight vs bare conditional PutItems at 32 in flight;
 *   2. duplicate-replay latency vs a bare consistent GetItem of an idempotency-sized item;
 *   3. DynamoDB capacity per accepted send (submit alone, end to end) and per replay.
 * Ratios are the point: absolute numbers on DynamoDB Local and a laptop are not AWS numbers.
 * Nothing here asserts a number; failures (non-202 answers, runtime errors) are reported.
 *
 * Knobs (environment): BENCH_SENDS (400), BENCH_ROUNDS (1), BENCH_REPLAYS (300),
 * BENCH_CAPACITY_SENDS (20).
 */
import { GetCommand, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { sha256Hex } from '../functions/core/fingerprint.ts';
import { getMessage } from '../functions/store/messages.store.ts';
import { itemBytes, itemName, type Tally, type Totals, totals } from './capacity.ts';
import { dynamoDbLocalLine, machineLine } from './env.ts';
import { costPerThousand, PRICES } from './prices.ts';
import { RoundTrips } from './round-trips.ts';
import { type BenchStack, startBenchStack } from './stack.ts';
import { fixed, pool, ratio, summarize, table } from './stats.ts';

// The SDK's Node 22 notice is known (TOOLCHAIN.md) and the node version is printed below.
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
/** Issue 12's goals, printed beside the figures (never asserted). */
const GOAL_ROUND_TRIPS = 6;
const GOAL_CPU_MS = 8;
const GOAL_REPLAY_RATIO = 1.5;
const GOAL_THROUGHPUT_RATIO = 0.3;
const GOAL_SES_SHARE = 0.1;
/** Sequential sends (executions held) whose DynamoDB round trips are counted. */
const ROUND_TRIP_SENDS = 5;

const BODY = JSON.stringify({ to: ['delivered@simulator.invalid'], subject: 'bench', text: 'hello' });
/** The rate limit is 120 sends per minute per identity: spread the load so no window fills. */
const LOAD_IDENTITIES = Math.max(4, Math.ceil((WARMUP_SENDS + ROUNDS * SENDS * 2) / 90));
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

/** POSTs sends through the local HTTP server, as an API client would. */
class Client {
  private n = 0;
  readonly failures = new Map<string, number>();
  constructor(
    private readonly stack: BenchStack,
    private readonly load: string[],
  ) {}

  async send(identityId: string, key: string, body = BODY): Promise<Answer> {
    const res = await fetch(`${this.stack.url}/v1/identities/${identityId}/messages`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${this.stack.tenant.apiKey}`,
        'idempotency-key': key,
        'content-type': 'application/json',
      },
      body,
    });
    const text = await res.text();
    let parsed: { id?: string; error?: { code?: string } } = {};
    try {
      parsed = JSON.parse(text);
    } catch {
      // reported as a failure without a code
    }
    const answer: Answer = {
      status: res.status,
      replayed: res.headers.get('idempotent-replayed') === 'true',
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
  const client = new Client(stack, load);
  const trips = new RoundTrips();
  trips.install(db.doc);
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
    await db.doc.send(
      new TransactWriteCommand({
        TransactItems: sizes.map((n, i) => ({
          Put: { TableName: db.table, Item: { pk: `BENCH#cal#${name}`, sk: `C#${i}`, pad: 'x'.repeat(n) } },
        })),
      }),
    );
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
    db.doc.send(
      new PutCommand({
        TableName: db.table,
        Item: { pk: `BENCH#${id}`, sk: `P#${putCounter++}`, type: 'bench', pad: PAD_1KB },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  stack.setPhase('warmup');
  await pool(WARMUP_SENDS, CONCURRENCY, () => client.fresh('warm'));
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
  const underLoad: Tally[] = [];
  let liveAccepted = 0;
  let heldAccepted = 0;
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
    meter.collect();

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
    capacityAnswers.push(await client.send(capacityId, `bench-capacity-${i}`));
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

  // ── 2. Replays ─────────────────────────────────────────────────────────────────────────────
  const replayId = byName.get('replay')!;
  const replayKey = 'bench-replay-key';
  stack.setPhase('setup');
  const first = await client.send(replayId, replayKey);
  await runtime.settle();
  const ik = await db.doc.send(
    new GetCommand({
      TableName: db.table,
      Key: { pk: `I#${replayId}`, sk: `IK#${sha256Hex(replayKey)}` },
      ConsistentRead: true,
    }),
  );
  const ikBytes = docBytes(ik.Item ?? {});
  const getKey = { pk: 'BENCH#get', sk: `IK#${sha256Hex('baseline')}` };
  const padFor = Math.max(0, ikBytes - docBytes({ ...getKey, type: 'bench', pad: '' }));
  await db.doc.send(
    new PutCommand({ TableName: db.table, Item: { ...getKey, type: 'bench', pad: 'x'.repeat(padFor) } }),
  );
  const bareGet = () =>
    db.doc.send(new GetCommand({ TableName: db.table, Key: getKey, ConsistentRead: true }));
  const replay = () => client.send(replayId, replayKey);
  await pool(60, CONCURRENCY, replay);
  await pool(60, CONCURRENCY, bareGet);
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
  stack.setPhase('baseline');
  const gSeq = await pool(REPLAYS, 1, bareGet);
  const gPar = await pool(REPLAYS, CONCURRENCY, bareGet);
  const getTallies = meter.collect();
  meter.exactTransactions = false;
  const replays = [...rSeq.results, ...rPar.results];
  const replayedOk = replays.filter(
    (a) => a.status === 202 && a.replayed && a.messageId === first.messageId,
  ).length;

  print(`\n2. Duplicate replay latency, ms (${REPLAYS} per row; the idempotency item is ${ikBytes} B)`);
  const latRows: string[][] = [];
  for (const [name, r, g] of [
    ['sequential', rSeq, gSeq],
    [`${CONCURRENCY} in flight`, rPar, gPar],
  ] as const) {
    const rs = summarize(r.latencies);
    const gs = summarize(g.latencies);
    latRows.push([
      `${name}: baseline consistent GetItem`,
      fixed(gs.p50, 2),
      fixed(gs.p95, 2),
      fixed(gs.p99, 2),
    ]);
    latRows.push([`${name}: pmail replay over HTTP`, fixed(rs.p50, 2), fixed(rs.p95, 2), fixed(rs.p99, 2)]);
    latRows.push([
      `${name}: replay / baseline`,
      ratio(rs.p50, gs.p50),
      ratio(rs.p95, gs.p95),
      ratio(rs.p99, gs.p99),
    ]);
  }
  print(table(['', 'p50', 'p95', 'p99'], latRows, [1, 2, 3]));

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
        'On DynamoDB each still costs >= 1 WCU.',
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

  // ── The figures issue 12 moves, with their goals ───────────────────────────────────────────
  const heldBest = Math.max(...heldRates);
  const rSeqP50 = summarize(rSeq.latencies).p50;
  const gSeqP50 = summarize(gSeq.latencies).p50;
  const wcuPerSend = e2e.wcuCorrected / CAPACITY_SENDS;
  const rcuPerSend = e2e.rcuCorrected / CAPACITY_SENDS;
  const costs = costPerThousand(wcuPerSend, rcuPerSend);
  const dynamoCost = costs[0].perThousand + costs[1].perThousand;
  const allCost = costs.reduce((sum, c) => sum + c.perThousand, 0);
  const tripsMax = Math.max(...tripCounts);
  const cpu = Math.min(...heldCpu);
  const yes = (ok: boolean) => (ok ? 'PASS' : 'OVER');
  print('\nsummary (issue 12: figure, goal, verdict)');
  print(
    table(
      ['measure', 'figure', 'goal', 'verdict'],
      [
        [
          'WCU per accepted one-recipient send, end to end, billed',
          fixed(wcuPerSend, 2),
          `<= ${TARGET_WCU_PER_SEND}`,
          yes(wcuPerSend <= TARGET_WCU_PER_SEND + 1e-9),
        ],
        [
          `duplicate replay p50 vs one consistent GetItem (${replayWaves.length} round trip(s))`,
          ratio(rSeqP50, gSeqP50),
          `<= ${GOAL_REPLAY_RATIO}x`,
          yes(rSeqP50 / gSeqP50 <= GOAL_REPLAY_RATIO),
        ],
        [
          'sequential DynamoDB round trips on the submit critical path',
          String(tripsMax),
          `<= ${GOAL_ROUND_TRIPS}`,
          yes(tripsMax <= GOAL_ROUND_TRIPS),
        ],
        [
          `node CPU per submit, ms (bare put ${fixed(Math.min(...putCpu), 2)})`,
          fixed(cpu, 2),
          `<= ${GOAL_CPU_MS}`,
          yes(cpu <= GOAL_CPU_MS),
        ],
        [
          `submit throughput at ${CONCURRENCY} in flight, executions held, vs bare put`,
          ratio(heldBest, bestPut),
          `>= ${GOAL_THROUGHPUT_RATIO}x`,
          yes(heldBest / bestPut >= GOAL_THROUGHPUT_RATIO),
        ],
        [
          "$ per 1,000 sends, DynamoDB from counted units, vs SES's $0.10",
          `$${dynamoCost.toFixed(4)} (${fixed((100 * dynamoCost) / PRICES.sesPerThousand, 1)} %)`,
          `<= ${100 * GOAL_SES_SHARE} %`,
          yes(dynamoCost <= GOAL_SES_SHARE * PRICES.sesPerThousand),
        ],
      ],
      [1],
    ),
  );
  print(`   submit round trips per send: ${tripCounts.join(', ')}; the last: ${tripShape}`);
  print(`   replay round trips: ${replayWaves.map((w) => w.join('+')).join(' -> ')}`);
  print('   $ per 1,000 one-recipient sends, all in (bench/prices.ts: us-east-1 on-demand list prices):');
  for (const c of costs) print(`     ${c.what.padEnd(58)} $${c.perThousand.toFixed(4)}`);
  print(
    `     ${'total'.padEnd(58)} $${allCost.toFixed(4)} = ${fixed((100 * allCost) / PRICES.sesPerThousand, 1)} % of SES's $${PRICES.sesPerThousand.toFixed(2)}`,
  );

  // ── Checks ─────────────────────────────────────────────────────────────────────────────────
  print('\nchecks');
  print(
    `   202 accepted: live ${liveAccepted}/${ROUNDS * SENDS}, held ${heldAccepted}/${ROUNDS * SENDS}, ` +
      `capacity ${capAccepted}/${CAPACITY_SENDS}; replays answered 202 + Idempotent-Replayed + original id: ` +
      `${replayedOk}/${replays.length}`,
  );
  print(
    `   capacity sends' final status: ${[...finalStatus].map(([s, n]) => `${s} x${n}`).join(', ') || 'none'}`,
  );
  const failures = [...client.failures].map(([k, n]) => `${k} x${n}`).join(', ');
  print(`   non-202 answers: ${failures || 'none'}`);
  print(
    `   runtime log: ${stack.logged.error} errors, ${stack.logged.warn} warnings` +
      (stack.logged.last ? ` (last: ${stack.logged.last})` : '') +
      `; dead-lettered events: ${runtime.queue.deadLetters.length}; executions: ${runtime.machine.started.length}`,
  );
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
