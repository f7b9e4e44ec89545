/**
 * One ingest in a process of its own, built as the ingest Lambda is (functions/inbound/ingest.handler.ts:
 * the ingest and its ports, nothing else), for bench/ingest-shapes.ts: the notification, the table
 * and the blob folder come in BENCH_CHILD; the CPU time, wall time and peak memory go out as JSON.
 */

import { ulidFrom } from '../functions/deps.ts';
import { ingestNotification } from '../functions/inbound/ingest.ts';
import type { SesReceivedNotification } from '../functions/inbound/notification.ts';
import { silentLogger } from '../functions/log.ts';
import { memoryMetrics } from '../functions/metrics.ts';
import { folderBlobStore } from '../functions/store/blobs.ts';
import { createDb } from '../functions/store/dynamodb.ts';

const given = JSON.parse(process.env.BENCH_CHILD ?? '{}') as {
  endpoint: string;
  table: string;
  blobs: string;
  config: never;
  notification: SesReceivedNotification;
};
const clock = () => Date.now();
const db = createDb({ table: given.table, endpoint: given.endpoint });
const deps = {
  db,
  blobs: folderBlobStore(given.blobs),
  events: { publish: async () => {} },
  clock,
  newId: ulidFrom(clock),
  log: silentLogger,
  metrics: memoryMetrics(),
  config: given.config,
};
const mb = (kb: number) => kb / 1024;
const baseRssMb = mb(process.resourceUsage().maxRSS);
const c0 = process.cpuUsage();
const t0 = performance.now();
const report = await ingestNotification(deps, given.notification);
const c = process.cpuUsage(c0);
process.stdout.write(
  JSON.stringify({
    cpuS: (c.user + c.system) / 1e6,
    wallS: (performance.now() - t0) / 1000,
    rssMb: mb(process.resourceUsage().maxRSS),
    baseRssMb,
    stored: report.stored.length,
  }),
);
db.destroy();
