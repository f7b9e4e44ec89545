import type { DynamoDBBatchResponse, DynamoDBRecord } from 'aws-lambda';
import { errorFields } from '../log.ts';
import { listConnections } from '../store/stream.store.ts';
import type { StreamConnections } from './connections.ts';
import { closeWith, deliverTo, type StreamDeps, wakeFor } from './deliver.ts';

/**
 * The stream's fan-out (docs/design/stream.md): a record of the table's stream only says which
 * tenant has something new — an outbox event, a new connection, a revoked key — and the fan-out
 * then reads that tenant's feed after each of its connections' positions (functions/stream/deliver.ts).
 * Records of one tenant's items come on many shards and in no order across items; the feed has the
 * order.
 */

/** The stream filter of the fan-out's event source mapping (lib/stream.ts), as data. */
export const STREAM_WAKE_FILTERS = [
  { eventName: ['INSERT'], dynamodb: { NewImage: { type: { S: ['event', 'stream_connection'] } } } },
  {
    eventName: ['MODIFY'],
    dynamodb: { NewImage: { type: { S: ['api_key'] }, revoked_at: { N: [{ exists: true }] } } },
  },
];

/** What one record wakes: a tenant, and a key of it that was revoked. */
export function wakeOf(record: DynamoDBRecord): { tenantId: string; revokedKey?: string } | undefined {
  const image = record.dynamodb?.NewImage;
  const type = image?.type?.S;
  const pk = image?.pk?.S ?? '';
  if (record.eventName === 'INSERT' && type === 'event' && pk.startsWith('T#'))
    return { tenantId: pk.slice(2) };
  if (record.eventName === 'INSERT' && type === 'stream_connection' && pk.startsWith('WS#'))
    return { tenantId: pk.slice(3) };
  const tenantId = image?.tenant_id?.S;
  const keyId = image?.key_id?.S;
  if (record.eventName === 'MODIFY' && type === 'api_key' && image?.revoked_at?.N && tenantId && keyId)
    return { tenantId, revokedKey: keyId };
  return undefined;
}

/** How long one invocation starts new rounds (the function's timeout is 60 s). */
const WAKE_BUDGET_MS = 40_000;

/**
 * A batch of stream records: each tenant woken once, tenants in parallel. A tenant that fails
 * reports the batch failed from its first record, and the stream retries from there (delivering
 * twice is not possible: positions move only forward, by their lease holder).
 */
export async function streamFanOut(
  deps: StreamDeps,
  connections: StreamConnections,
  records: DynamoDBRecord[],
): Promise<DynamoDBBatchResponse> {
  const wakes = new Map<string, { first: string; revoked: Set<string> }>();
  for (const record of records) {
    const wake = wakeOf(record);
    if (!wake) continue;
    const entry = wakes.get(wake.tenantId) ?? {
      first: record.dynamodb?.SequenceNumber ?? '',
      revoked: new Set(),
    };
    if (wake.revokedKey) entry.revoked.add(wake.revokedKey);
    wakes.set(wake.tenantId, entry);
  }
  const until = deps.clock() + WAKE_BUDGET_MS;
  const failed: string[] = [];
  await Promise.all(
    [...wakes].map(([tenantId, w]) =>
      deliverTenant(deps, connections, tenantId, { until, revoked: w.revoked }).catch((err) => {
        deps.log.error('stream fan-out failed', errorFields(err));
        failed.push(w.first);
      }),
    ),
  );
  const first = records.find((r) => failed.includes(r.dynamodb?.SequenceNumber ?? ''));
  return { batchItemFailures: first ? [{ itemIdentifier: first.dynamodb?.SequenceNumber ?? '' }] : [] };
}

/** Connections served at once within one tenant's wake. */
const PER_WAKE = 16;

/**
 * A tenant's wake: each of its connections on this gateway is closed when it was refused at its
 * connect or its key was revoked, else sent what it is owed.
 */
export async function deliverTenant(
  deps: StreamDeps,
  connections: StreamConnections,
  tenantId: string,
  opts: { until: number; revoked?: ReadonlySet<string> },
): Promise<void> {
  const wake = wakeFor(deps, connections, tenantId, opts.until);
  const mine = (await listConnections(deps.db, tenantId)).filter((c) => c.gateway === connections.gateway);
  const queue = [...mine];
  const worker = async () => {
    for (let c = queue.shift(); c; c = queue.shift()) {
      if (c.refused) await closeWith(wake, c, c.refused, undefined);
      else if (opts.revoked?.has(c.key_id)) await closeWith(wake, c, 'key_revoked', c.last_event_id);
      else await deliverTo(wake, c);
    }
  };
  await Promise.all(Array.from({ length: Math.min(PER_WAKE, queue.length) }, worker));
}
