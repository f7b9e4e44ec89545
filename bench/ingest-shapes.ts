/**
 * `npm run bench:ingest` (and part of `npm run bench`) — the ingest of one received message, by
 * shape and size: seconds per MB of each shape of test/fixtures/mail-shapes.ts at 1, 4 and 40 MB,
 * through `ingestNotification` on DynamoDB Local (the raw message read from the blob folder, parsed,
 * copied, stored with its event), and the ratio of the 40 MB figure to the 1 MB one (about 1 or
 * below when the cost is linear in the size).
 *
 * Then each shape at 40 MB again, in a fresh process built as the ingest Lambda is (the ingest's
 * bundle and its ports only): its CPU time and peak memory, and the CPU time as the Lambda would take
 * it at its configured memory (lib/inbound.ts), whose CPU share is memory / 1769 MB of one vCPU
 * (AWS Lambda's documented ratio), against a quarter of its configured timeout.
 *
 * Nothing is asserted. Seconds are CPU seconds of this process (process.cpuUsage: every thread,
 * the collector's included), steadier than wall time on a shared machine; DynamoDB Local's own
 * time is not in them. Knob: BENCH_INGEST_SIZES (MB, default "1,4,40").
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { INBOUND_CAPS } from '../functions/core/inbound.ts';
import { ingestNotification } from '../functions/inbound/ingest.ts';
import { INBOUND_RAW_PREFIX } from '../functions/inbound/notification.ts';
import { receivedNotification } from '../functions/inbound/received.ts';
import { portsFor } from '../functions/lambda-ports.ts';
import { startDynamoDbLocal } from '../functions/local/dynamodb-local.ts';
import { createLocalRuntime, type LocalRuntime } from '../functions/local/runtime.ts';
import { seedTestTenant } from '../functions/local/seed.ts';
import { silentLogger } from '../functions/log.ts';
import { getMessage } from '../functions/store/messages.store.ts';
import { BUNDLE_BUILD } from '../lib/defaults.ts';
import { INGEST_BATCH_SIZE, INGEST_MEMORY_MB, INGEST_TIMEOUT_SECONDS } from '../lib/inbound.ts';
import { MAIL_SHAPES, type MailShape, mailOfShape } from '../test/fixtures/mail-shapes.ts';
import { machineLine } from './env.ts';
import { fixed, table } from './stats.ts';

const MB = 1024 * 1024;
/** AWS Lambda: a function with 1,769 MB has the equivalent of one vCPU; CPU scales with memory. */
const ONE_VCPU_MB = 1769;
const SIZES = (process.env.BENCH_INGEST_SIZES ?? '1,4,40').split(',').map(Number);
/** A "40 MB" message stays under the size cap (40 MiB, SES's limit), headers included. */
const bytesOf = (mb: number) => Math.min(mb * MB, INBOUND_CAPS.maxBytes) - 64 * 1024;

interface Run {
  cpuS: number;
  wallS: number;
  bytes: number;
  parse: string;
}

let seq = 0;
/** Store `raw` as the receipt's S3 action does and ingest its notification; the CPU it took. */
async function ingestOnce(rt: LocalRuntime, inbox: Inbox, raw: Buffer): Promise<Omit<Run, 'bytes'>> {
  const n = await received(rt, inbox.address, raw, `bench-shape-${process.pid}-${++seq}`);
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const report = await ingestNotification(portsFor(rt.deps, 'inbound-ingest'), n);
  const c = process.cpuUsage(c0);
  const stored = report.stored[0]
    ? await getMessage(rt.deps.db, inbox.id, report.stored[0], true)
    : undefined;
  return {
    cpuS: (c.user + c.system) / 1e6,
    wallS: (performance.now() - t0) / 1000,
    parse: stored?.inbound?.parse ?? '?',
  };
}

type Inbox = { id: string; address: string };

/** The raw message stored where the receipt's S3 action puts it, and the notification SES publishes. */
async function received(rt: LocalRuntime, to: string, raw: Buffer, id: string) {
  await rt.deps.blobs.put(`${INBOUND_RAW_PREFIX}${id}`, raw, {});
  return receivedNotification({
    id,
    at: Date.now(),
    source: 'sender@example.org',
    destination: [to],
    recipients: [to],
  });
}

async function main(): Promise<void> {
  console.log(`ingest by shape — ${machineLine()}`);
  const stateDir = mkdtempSync(join(tmpdir(), 'pmail-bench-ingest-'));
  const ddb = await startDynamoDbLocal();
  const rt = await createLocalRuntime({ endpoint: ddb.endpoint, stateDir, log: silentLogger });
  try {
    const tenant = await seedTestTenant(rt.deps, { names: ['inbox'] });
    const inbox = tenant.identities[0];
    // Warm the parser, the HTML steps and the table's connection.
    for (const shape of MAIL_SHAPES) await ingestOnce(rt, inbox, mailOfShape(shape, 64 * 1024));

    const runs = new Map<MailShape, Map<number, Run>>();
    for (const shape of MAIL_SHAPES) {
      const bySize = new Map<number, Run>();
      for (const mb of SIZES) {
        const raw = mailOfShape(shape, bytesOf(mb), { to: inbox.address });
        bySize.set(mb, { ...(await ingestOnce(rt, inbox, raw)), bytes: raw.byteLength });
      }
      runs.set(shape, bySize);
    }
    report(runs);
    if (SIZES.includes(40)) await lambdaRows(rt, stateDir, inbox.address);
  } finally {
    await rt.close();
    await ddb.stop();
    rmSync(stateDir, { recursive: true, force: true });
  }
}

const perMb = (bySize: Map<number, Run>, mb: number) => {
  const r = bySize.get(mb);
  return r ? r.cpuS / (r.bytes / MB) : Number.NaN;
};

function report(runs: Map<MailShape, Map<number, Run>>): void {
  const [first, last] = [SIZES[0], SIZES.at(-1)!];
  const rows = [...runs].map(([shape, bySize]) => [
    shape,
    ...SIZES.map((mb) => fixed(perMb(bySize, mb), 3)),
    fixed(perMb(bySize, last) / perMb(bySize, first), 2),
    fixed(bySize.get(last)?.cpuS ?? Number.NaN, 2),
    [...new Set([...bySize.values()].map((r) => r.parse))].join('/'),
  ]);
  console.log('\nCPU seconds per MB of message, by size (the ingest: read, parse, copy, store)\n');
  console.log(
    table(
      ['shape', ...SIZES.map((mb) => `${mb} MB`), `${last}/${first} MB`, `s at ${last} MB`, 'parse'],
      rows,
      SIZES.map((_, i) => i + 1).concat([SIZES.length + 1, SIZES.length + 2]),
    ),
  );
}

interface ChildRun {
  cpuS: number;
  wallS: number;
  rssMb: number;
  baseRssMb: number;
}

/**
 * Each shape at 40 MB in a fresh process that loads only the ingest, bundled as the functions are
 * (lib/defaults.ts › BUNDLE_BUILD, so the memory is the bundle's): bench/ingest-child.ts.
 */
async function lambdaRows(rt: LocalRuntime, stateDir: string, to: string): Promise<void> {
  const outfile = join(stateDir, 'ingest-child.mjs');
  await build({
    ...BUNDLE_BUILD,
    entryPoints: [join(import.meta.dirname, 'ingest-child.ts')],
    outfile,
    logLevel: 'error',
  });
  const share = Math.min(1, INGEST_MEMORY_MB / ONE_VCPU_MB);
  const runs: [MailShape, ChildRun][] = [];
  for (const shape of MAIL_SHAPES) {
    const n = await received(rt, to, mailOfShape(shape, bytesOf(40), { to }), `bench-shape-child-${shape}`);
    runs.push([shape, await inChild(outfile, { ...childPorts(rt, stateDir), notification: n })]);
  }
  console.log(`\nAt 40 MB, each in a fresh process with only the ingest's bundle loaded\n`);
  console.log(
    table(
      ['shape', 'CPU s', 'wall s', 'peak RSS MB', `Lambda s at ${INGEST_MEMORY_MB} MB`],
      runs.map(([shape, r]) => [
        shape,
        fixed(r.cpuS, 2),
        fixed(r.wallS, 2),
        fixed(r.rssMb, 0),
        fixed(r.cpuS / share, 1),
      ]),
      [1, 2, 3, 4],
    ),
  );
  const [slowest, slow] = runs.reduce((a, b) => (b[1].cpuS > a[1].cpuS ? b : a));
  const rss = Math.max(...runs.map(([, r]) => r.rssMb));
  const lambdaS = slow.cpuS / share;
  const budget = INGEST_TIMEOUT_SECONDS / 4;
  const verdict = (ok: boolean) => (ok ? 'within' : 'OVER');
  console.log(
    [
      `\nThe ingest Lambda (${INGEST_MEMORY_MB} MB: ${fixed(share, 2)} of a vCPU, at 1769 MB a vCPU), the costliest shape (${slowest}):`,
      `  about ${fixed(lambdaS, 1)} s against a quarter of its ${INGEST_TIMEOUT_SECONDS} s timeout (${fixed(budget, 0)} s): ${verdict(lambdaS <= budget)};`,
      `  a batch of ${INGEST_BATCH_SIZE} such messages, one after another: ${fixed(INGEST_BATCH_SIZE * lambdaS, 1)} s of ${INGEST_TIMEOUT_SECONDS} s: ${verdict(INGEST_BATCH_SIZE * lambdaS <= INGEST_TIMEOUT_SECONDS)};`,
      `  peak memory of any shape ${fixed(rss, 0)} of ${INGEST_MEMORY_MB} MB: ${verdict(rss <= INGEST_MEMORY_MB)}.`,
    ].join('\n'),
  );
}

/** Where the child finds the table, the blob folder and the configuration. */
const childPorts = (rt: LocalRuntime, stateDir: string) => ({
  endpoint: (rt.deps.db as { endpoint?: string }).endpoint,
  table: rt.deps.db.table,
  blobs: join(stateDir, 'blobs'),
  config: rt.deps.config,
});

function inChild(outfile: string, given: object): Promise<ChildRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [outfile], {
      env: { ...process.env, BENCH_CHILD: JSON.stringify(given) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let text = '';
    child.stdout.on('data', (d) => {
      text += d;
    });
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve(JSON.parse(text)) : reject(new Error(`the child exited ${code}`)),
    );
  });
}

await main();
