/**
 * `npm run bench:clients` (also part of `npm run bench`) — the DynamoDB client's own cost, per call,
 * on one DynamoDB Local in one run: the AWS SDK v3 document client as pmail configures it
 * (`store/db.ts`), `@aws-lite/client` with its DynamoDB plugin, and `aws4fetch` signing DynamoDB's
 * JSON protocol over Node's fetch. For each of GetItem (consistent), a conditional PutItem,
 * BatchGetItem, UpdateItem and TransactWriteItems: Node CPU per call and latency p50 (calls in
 * sequence, the clients interleaved in rounds so drift falls on all of them), then the bundle size
 * and module-load time of each client alone, then what pmail relies on, each checked by making it
 * happen: a refused conditional write answering the item (ALL_OLD), a cancelled transaction's
 * reasons, consumed capacity, and a client that sends a request once when told not to retry.
 * Ratios against the SDK are the point; nothing is asserted. docs/design/cost.md reads the result.
 *
 * Knobs: BENCH_CLIENT_CALLS (400 per operation, client and round), BENCH_CLIENT_ROUNDS (3).
 */
import { once } from 'node:events';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { startDynamoDbLocal } from '../functions/local/dynamodb-local.ts';
import { ensureTable } from '../functions/local/table.ts';
import { createDb } from '../functions/store/dynamodb.ts';
import { ESM_REQUIRE_BANNER, REPO_ROOT } from '../lib/defaults.ts';
import { type ClientPort, clientPorts, OPERATIONS, type Operation } from './client-ports.ts';
import { dynamoDbLocalLine, machineLine } from './env.ts';
import { medianLoadTime } from './load-time.ts';
import { fixed, percentile, ratio, table } from './stats.ts';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const CALLS = Number(process.env.BENCH_CLIENT_CALLS ?? 400) || 400;
const ROUNDS = Number(process.env.BENCH_CLIENT_ROUNDS ?? 3) || 3;
const WARMUP = 100;
const TABLE = 'pmail-bench-clients';

interface Sample {
  cpuMs: number[];
  latencies: number[];
}

/** `calls` sequential calls of one operation: Node CPU per call and every call's latency. */
async function measure(port: ClientPort, op: Operation, calls: number, seq: { n: number }) {
  const latencies: number[] = [];
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < calls; i++) {
    const t = performance.now();
    await port.run(op, seq.n++);
    latencies.push(performance.now() - t);
  }
  const cpu = process.cpuUsage(cpu0);
  return { cpuMs: (cpu.user + cpu.system) / 1000 / calls, latencies };
}

async function timeAll(ports: ClientPort[]): Promise<Map<string, Sample>> {
  const samples = new Map<string, Sample>();
  const seq = { n: 0 };
  for (const port of ports) for (const op of OPERATIONS) await measure(port, op, WARMUP, seq);
  for (let round = 0; round < ROUNDS; round++) {
    // Each round starts with the next client, so no client always runs first or last.
    const order = ports.map((_, i) => ports[(i + round) % ports.length]!);
    for (const op of OPERATIONS) {
      for (const port of order) {
        const s = await measure(port, op, CALLS, seq);
        const key = `${port.name}|${op}`;
        const acc = samples.get(key) ?? { cpuMs: [], latencies: [] };
        acc.cpuMs.push(s.cpuMs);
        acc.latencies.push(...s.latencies);
        samples.set(key, acc);
      }
    }
  }
  return samples;
}

function callTable(ports: ClientPort[], samples: Map<string, Sample>): string {
  const rows: string[][] = [];
  for (const op of OPERATIONS) {
    const base = samples.get(`${ports[0]!.name}|${op}`)!;
    const baseCpu = Math.min(...base.cpuMs);
    for (const port of ports) {
      const s = samples.get(`${port.name}|${op}`)!;
      const cpu = Math.min(...s.cpuMs);
      const p50 = percentile(
        [...s.latencies].sort((a, b) => a - b),
        50,
      );
      rows.push([
        op,
        port.name,
        `${fixed(Math.min(...s.cpuMs), 3)}–${fixed(Math.max(...s.cpuMs), 3)}`,
        fixed(p50, 2),
        ratio(cpu, baseCpu),
      ]);
    }
  }
  return table(
    ['operation', 'client', 'CPU ms/call (min–max of rounds)', 'p50 ms', 'CPU vs SDK'],
    rows,
    [2, 3, 4],
  );
}

/** Each client alone, bundled as the Lambda entries are, and its module-load time. */
async function bundleTable(): Promise<string> {
  const entries: Record<string, string> = {
    'aws-sdk v3 (lib-dynamodb)': `export { DynamoDBClient } from '@aws-sdk/client-dynamodb'; export { DynamoDBDocumentClient, GetCommand, PutCommand, BatchGetCommand, UpdateCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';`,
    '@aws-lite/client + dynamodb': `export { default as awsLite } from '@aws-lite/client'; export { default as dynamodb } from '@aws-lite/dynamodb';`,
    'aws4fetch + util-dynamodb': `export { AwsClient } from 'aws4fetch'; export { marshall, unmarshall } from '@aws-sdk/util-dynamodb';`,
  };
  const dir = mkdtempSync(join(tmpdir(), 'pmail-bench-clients-'));
  try {
    const rows: string[][] = [];
    for (const [name, source] of Object.entries(entries)) {
      const entry = join(dir, `${rows.length}.ts`);
      const out = join(dir, `${rows.length}.mjs`);
      writeFileSync(entry, source);
      await build({
        entryPoints: [entry],
        outfile: out,
        bundle: true,
        minify: true,
        platform: 'node',
        format: 'esm',
        target: 'node22',
        banner: { js: ESM_REQUIRE_BANNER },
        nodePaths: [join(REPO_ROOT, 'node_modules')],
        logLevel: 'silent',
      });
      rows.push([
        name,
        `${fixed(statSync(out).size / 1024, 0)} KB`,
        `${fixed(medianLoadTime(out, 5), 1)} ms`,
      ]);
    }
    return table(['client', 'bundle (minified)', 'module load'], rows, [1, 2]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** How many requests a client sends for one call to a server that answers 500, told not to retry. */
async function sendsOnA500(make: (endpoint: string) => Promise<ClientPort>): Promise<number> {
  let hits = 0;
  const server = createServer((req, res) => {
    hits++;
    req.resume();
    res.writeHead(500, { 'content-type': 'application/x-amz-json-1.0' });
    res.end(
      JSON.stringify({ __type: 'com.amazonaws.dynamodb.v20120810#InternalServerError', message: 'bench' }),
    );
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const port = await make(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    await port.run('GetItem', 0).catch(() => undefined);
    return hits;
  } finally {
    server.close();
  }
}

async function capabilityTable(ports: ClientPort[], makers: ((e: string) => Promise<ClientPort>)[]) {
  const rows: string[][] = [];
  for (const [i, port] of ports.entries()) {
    const c = await port.capabilities();
    const sends = await sendsOnA500(makers[i]!);
    const yes = (b: boolean) => (b ? 'yes' : 'NO');
    rows.push([
      port.name,
      yes(c.allOld),
      yes(c.reasons),
      yes(c.capacity),
      `${sends} (${sends === 1 ? 'owned' : 'its own'})`,
    ]);
  }
  return table(
    [
      'client',
      'refusal answers ALL_OLD',
      'cancellation reasons',
      'consumed capacity',
      'requests on a 500, retries off',
    ],
    rows,
  );
}

async function main() {
  console.log(`# pmail bench: the DynamoDB client\n${machineLine()}\n${dynamoDbLocalLine()}`);
  const ddb = await startDynamoDbLocal();
  try {
    await ensureTable(createDb({ table: TABLE, endpoint: ddb.endpoint }));
    const makers = clientPorts(TABLE);
    const ports = await Promise.all(makers.map((make) => make(ddb.endpoint)));
    for (const p of ports) await p.seed();
    console.log(`\n## Per call (${ROUNDS} rounds of ${CALLS} calls per operation and client, in sequence)\n`);
    console.log(callTable(ports, await timeAll(ports)));
    console.log('\n## What pmail relies on, made to happen\n');
    console.log(await capabilityTable(ports, makers));
    console.log(
      '\n## Each client alone (esbuild, ESM, node22, minified; load = median of fresh processes)\n',
    );
    console.log(await bundleTable());
  } finally {
    await ddb.stop();
  }
}

await main();
