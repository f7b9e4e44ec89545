import type { DynamoDBBatchResponse, DynamoDBRecord } from 'aws-lambda';
import { errorFields } from '../log.ts';
import { type StreamConnection, standing, streamsOf } from '../store/stream.store.ts';
import type { StreamConnections } from './connections.ts';
import { closeWith, deliverAll, eachAtMost, PER_ROUND, type StreamDeps, wakeFor } from './deliver.ts';

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

/**
 * A tenant's wake: each of its connections on this gateway is closed when it was refused at its
 * connect or its key was revoked, and the others are sent what they are owed.
 */
export async function deliverTenant(
  deps: StreamDeps,
  connections: StreamConnections,
  tenantId: string,
  opts: { until: number; revoked?: ReadonlySet<string> },
): Promise<void> {
  const wake = wakeFor(deps, connections, tenantId, opts.until);
  const view = await streamsOf(deps.db, tenantId, connections.gateway);
  const revoked = (c: StreamConnection) => opts.revoked?.has(c.key_id) ?? false;
  const closing = view.connections.filter(
    (c) => c.gateway === connections.gateway && (c.refused || revoked(c)),
  );
  await eachAtMost(closing, PER_ROUND, (c) =>
    c.refused
      ? closeWith(wake, c, c.refused, undefined)
      : closeWith(wake, c, 'key_revoked', standing(c, view.cursor).last_event_id),
  );
  await deliverAll(wake, view, (c) => !c.refused && !revoked(c));
}
