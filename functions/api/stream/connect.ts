import { afterTooOld, STREAM_CONNECTIONS_PER_TENANT } from '../../core/stream.ts';
import type { BaseDeps } from '../../deps.ts';
import { eventPlace, tenantFeed } from '../../store/events.store.ts';
import { feedHead } from '../../store/feed.store.ts';
import { dropConnection, openConnection, type StreamConnection } from '../../store/stream.store.ts';
import type { StreamGrant } from './admit.ts';

/**
 * A stream's `$connect` and `$disconnect` (API Gateway's routes, the local server's upgrade and
 * close): the connection item the fan-out delivers by (store/stream.store.ts). Nothing is posted
 * here: on AWS a connection cannot be posted to before its `$connect` returns, and only the fan-out
 * posts. The item's insert on the table's stream wakes the fan-out, which sends what the stream
 * has from its position on, or closes it with its code when it was refused.
 */

/**
 * Record an admitted connection on `gateway`. Its position: the event `after` names (an `after`
 * older than the feed keeps refuses the stream with `after_too_old`; an unknown younger id starts at
 * the feed's beginning, as `GET /v1/events` does), or without `after` the feed's head: what is
 * committed from now on. Counted against the tenant's limit (refused with `connection_limit` past it).
 */
export async function openStream(
  deps: Pick<BaseDeps, 'db' | 'clock' | 'config' | 'metrics'>,
  gateway: string,
  connectionId: string,
  grant: StreamGrant,
): Promise<StreamConnection> {
  const now = deps.clock();
  const start = await startOf(deps, grant, now);
  const connection: StreamConnection = {
    tenant_id: grant.tenant_id,
    connection_id: connectionId,
    gateway,
    key_id: grant.key_id,
    key_hash: grant.key_hash,
    ...(grant.identity_ids ? { identity_ids: grant.identity_ids } : {}),
    ...(grant.sees_held ? { sees_held: true } : {}),
    filter: grant.filter,
    position: start.position,
    connected_at: now,
    ...(grant.key_ends_at !== undefined ? { key_ends_at: grant.key_ends_at } : {}),
    counted: false,
    ...(start.refused ? { refused: start.refused } : {}),
  };
  const limit = deps.config.streamConnectionsPerTenant ?? STREAM_CONNECTIONS_PER_TENANT;
  const opened = await openConnection(deps.db, connection, limit);
  deps.metrics.add('stream_connections', { result: opened.refused ?? 'opened' });
  return opened;
}

async function startOf(
  deps: Pick<BaseDeps, 'db'>,
  grant: StreamGrant,
  now: number,
): Promise<{ position: number; refused?: 'after_too_old' }> {
  if (!grant.after) return { position: await feedHead(deps.db, tenantFeed(grant.tenant_id)) };
  const place = await eventPlace(deps.db, grant.tenant_id, grant.after);
  if (afterTooOld(grant.after, place !== undefined, now)) return { position: 0, refused: 'after_too_old' };
  return { position: place ?? 0 };
}

/** A socket closed (by the client, the gateway or pmail): its item goes, its place on the count is given back. */
export async function closeStream(
  deps: Pick<BaseDeps, 'db'>,
  tenantId: string,
  connectionId: string,
): Promise<void> {
  await dropConnection(deps.db, tenantId, connectionId);
}
