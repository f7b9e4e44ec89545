import type { StreamFilter } from '../core/stream.ts';
import {
  countUnderLimit,
  type Db,
  deleteCounted,
  failedConditions,
  isConditionFailed,
  isOutcomeUnknown,
  oldItem,
  putOnce,
  queryPrefix,
} from './db.ts';

/**
 * The event stream's items (docs/guides/stream.md, docs/design/stream.md):
 *
 * - a connection `WS#{ten}` / `C#{connection id}`: who it is for (the key's id, the hash of the
 *   secret it opened with, the identities it may read), its filter, its **position** (the tenant's
 *   event feed number it was sent up to) and the id of the last event sent; while a fan-out posts
 *   to it, that fan-out's lease (`lease`, `lease_until`). Listed per gateway in gsi1
 *   (`WSG#{gateway}`), for the schedule's heartbeats;
 * - the tenant's count of open connections `WS#{ten}` / `N` (`count`), against its limit;
 * - a ticket `WST#{sha256(ticket)}` / `T`: the key it was minted by, its filter, its end, and the
 *   connection that used it.
 */
export interface StreamConnection {
  tenant_id: string;
  connection_id: string;
  /** The gateway holding the socket: the fan-out of a gateway posts only to its own connections. */
  gateway: string;
  key_id: string;
  key_hash: string;
  /** An identity key's identities; absent for a tenant key. */
  identity_ids?: string[];
  /** Its key holds `messages:hold`: it reads the events that announce held mail. */
  sees_held?: boolean;
  filter: StreamFilter;
  position: number;
  last_event_id?: string;
  connected_at: number;
  /** When its key stops authenticating (expiry, a rotated secret's end). */
  key_ends_at?: number;
  /** It holds a place on the tenant's count (a refused connection does not). */
  counted: boolean;
  /** Refused at its connect: the fan-out closes it with this reason's code. */
  refused?: 'connection_limit' | 'after_too_old';
  lease?: string;
  lease_until?: number;
}

const TYPE = 'stream_connection';
const connectionKey = (tenantId: string, connectionId: string) => ({
  pk: `WS#${tenantId}`,
  sk: `C#${connectionId}`,
});
const counterKey = (tenantId: string) => ({ pk: `WS#${tenantId}`, sk: 'N' });
/** Connections are kept at most this long past their connect (API Gateway closes them at 2 h). */
const CONNECTION_TTL_MS = 3 * 3600_000;

const connectionItem = (c: StreamConnection) => ({
  ...connectionKey(c.tenant_id, c.connection_id),
  type: TYPE,
  ...c,
  gsi1pk: `WSG#${c.gateway}`,
  gsi1sk: `${c.tenant_id}#${c.connection_id}`,
  ttl: Math.ceil((c.connected_at + CONNECTION_TTL_MS) / 1000),
});

function fromItem(item: Record<string, unknown> | undefined): StreamConnection | undefined {
  if (!item) return undefined;
  const { pk: _p, sk: _s, type: _t, gsi1pk: _g, gsi1sk: _h, ttl: _l, wt: _w, ...rest } = item;
  return rest as unknown as StreamConnection;
}

/**
 * Record a new connection. Counted against the tenant's `limit` in one transaction with its
 * place on the count (docs/lost-answers.md › transaction: resent by its ClientRequestToken, the
 * place taken once). When the count is full, or the connection is `refused` already, it is
 * recorded without a place (a create, `putOnce`), for the fan-out to close with its code.
 * Answers the connection as recorded (a second `$connect` of the same id answers the first).
 */
export async function openConnection(db: Db, c: StreamConnection, limit: number): Promise<StreamConnection> {
  if (!c.refused) {
    const counted = { ...c, counted: true };
    try {
      await db.transact({
        TransactItems: [
          {
            Put: {
              TableName: db.table,
              Item: connectionItem(counted),
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
          countUnderLimit(db, counterKey(c.tenant_id), limit, 'stream_count'),
        ],
      });
      return counted;
    } catch (err) {
      const failed = failedConditions(err, ['connection', 'count'] as const);
      if (failed.has('connection')) return (await getConnection(db, c.tenant_id, c.connection_id)) ?? counted;
      if (!failed.has('count')) throw err;
    }
  }
  const refused: StreamConnection = { ...c, counted: false, refused: c.refused ?? 'connection_limit' };
  const out = await putOnce(db, { Item: connectionItem(refused) });
  return out.written ? refused : (fromItem(out.old) ?? refused);
}

export async function getConnection(
  db: Db,
  tenantId: string,
  connectionId: string,
): Promise<StreamConnection | undefined> {
  const out = await db.get({
    TableName: db.table,
    Key: connectionKey(tenantId, connectionId),
    ConsistentRead: true,
  });
  return fromItem(out.Item);
}

/** The tenant's connections, on every gateway (one Query; a tenant has at most its limit and the refused). */
export async function listConnections(db: Db, tenantId: string): Promise<StreamConnection[]> {
  return (await queryPrefix(db, `WS#${tenantId}`, 'C#')).map((i) => fromItem(i)!);
}

/** Every connection of a gateway, as (tenant, connection id): gsi1, eventually consistent. */
export async function gatewayConnections(
  db: Db,
  gateway: string,
): Promise<{ tenant_id: string; connection_id: string }[]> {
  const out: { tenant_id: string; connection_id: string }[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await db.query({
      TableName: db.table,
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :g',
      ExpressionAttributeValues: { ':g': `WSG#${gateway}` },
      ExclusiveStartKey: start,
    });
    for (const item of page.Items ?? []) {
      const [tenant, connection] = String(item.gsi1sk).split('#');
      out.push({ tenant_id: tenant, connection_id: connection });
    }
    start = page.LastEvaluatedKey;
  } while (start);
  return out;
}

/**
 * Forget a connection (`$disconnect`, or the fan-out finding it gone or closing it) and give its
 * place on the tenant's count back: `deleteCounted` (a transaction) for a counted one, a plain
 * delete for a refused one. False when it was not there (a second disconnect).
 */
export async function dropConnection(db: Db, tenantId: string, connectionId: string): Promise<boolean> {
  const c = await getConnection(db, tenantId, connectionId);
  if (!c) return false;
  const key = connectionKey(tenantId, connectionId);
  if (c.counted) return deleteCounted(db, key, counterKey(tenantId));
  await db.delete({ TableName: db.table, Key: key });
  return true;
}

/**
 * Take the connection for one fan-out while it posts (`token`, until `now + leaseMs`): the
 * connection as it stands with the lease, or undefined while another fan-out's lease runs (or the
 * connection is gone). An owned transition (docs/lost-answers.md): the lease carries this fan-out's
 * token, so a resend whose first send landed passes its own condition, and a lost answer is
 * settled by a consistent re-read (the lease is this token's, or not).
 */
export async function leaseConnection(
  db: Db,
  c: Pick<StreamConnection, 'tenant_id' | 'connection_id'>,
  token: string,
  now: number,
  leaseMs: number,
): Promise<StreamConnection | undefined> {
  try {
    const out = await db.update({
      TableName: db.table,
      Key: connectionKey(c.tenant_id, c.connection_id),
      UpdateExpression: 'SET lease = :token, lease_until = :until',
      ConditionExpression:
        'attribute_exists(pk) AND (attribute_not_exists(lease_until) OR lease_until < :now OR lease = :token)',
      ExpressionAttributeValues: { ':token': token, ':until': now + leaseMs, ':now': now },
      ReturnValues: 'ALL_NEW',
    });
    return fromItem(out.Attributes);
  } catch (err) {
    if (isConditionFailed(err)) return undefined;
    if (!isOutcomeUnknown(err)) throw err;
    const again = await getConnection(db, c.tenant_id, c.connection_id);
    return again?.lease === token ? again : undefined;
  }
}

/**
 * Move the connection's position on after a round of posts (`position`, the last event id sent),
 * keeping the lease until `leaseUntil` (0: released). Only the lease's holder moves it: false when
 * the lease is another fan-out's (this one's lapsed). An owned transition (docs/lost-answers.md):
 * the same values set again under the same token are idempotent, so a resend whose first send
 * landed passes; a lost answer is settled by a consistent re-read (the token still on it and the
 * position there: written; the token there, the position not: sent again).
 */
export async function advanceConnection(
  db: Db,
  c: Pick<StreamConnection, 'tenant_id' | 'connection_id'>,
  token: string,
  to: { position: number; lastEventId?: string; leaseUntil: number },
): Promise<boolean> {
  for (let send = 1; ; send++) {
    try {
      await db.update({
        TableName: db.table,
        Key: connectionKey(c.tenant_id, c.connection_id),
        UpdateExpression: `SET #position = :p, lease_until = :until${to.lastEventId ? ', last_event_id = :last' : ''}`,
        ConditionExpression: 'lease = :token',
        ExpressionAttributeNames: { '#position': 'position' },
        ExpressionAttributeValues: {
          ':p': to.position,
          ':until': to.leaseUntil,
          ':token': token,
          ...(to.lastEventId ? { ':last': to.lastEventId } : {}),
        },
      });
      return true;
    } catch (err) {
      if (isConditionFailed(err)) return false;
      if (!isOutcomeUnknown(err) || send >= 3) throw err;
      const again = await getConnection(db, c.tenant_id, c.connection_id);
      if (again?.lease !== token) return false;
      if (again.position === to.position && again.lease_until === to.leaseUntil) return true;
    }
  }
}

/** A ticket as stored: what it opens and until when. */
export interface StreamTicket {
  tenant_id: string;
  key_id: string;
  key_hash: string;
  filter: StreamFilter;
  after?: string;
  created_at: number;
  expires_at: number;
  used_by?: string;
}

const ticketKey = (hash: string) => ({ pk: `WST#${hash}`, sk: 'T' });

/** Store a new ticket under its hash (a create, `putOnce`: its own earlier send answers written). */
export async function createTicket(db: Db, hash: string, t: StreamTicket): Promise<void> {
  const out = await putOnce(db, {
    Item: { ...ticketKey(hash), type: 'stream_ticket', ...t, ttl: Math.ceil(t.expires_at / 1000) + 3600 },
  });
  if (!out.written) throw new Error('a ticket hash was minted twice');
}

/**
 * Use a ticket for one connection: the ticket, or why not (`unknown`, `used` by another
 * connection, `expired`). An owned transition (docs/lost-answers.md): `used_by` names the
 * connection, so a resend whose first send landed finds its own connection there and passes, and a
 * refusal is read from the item the condition found.
 */
export async function redeemTicket(
  db: Db,
  hash: string,
  connectionId: string,
  now: number,
): Promise<StreamTicket | 'unknown' | 'used' | 'expired'> {
  for (let send = 1; ; send++) {
    try {
      const out = await db.update({
        TableName: db.table,
        Key: ticketKey(hash),
        UpdateExpression: 'SET used_by = :conn',
        ConditionExpression:
          'attribute_exists(pk) AND expires_at > :now AND (attribute_not_exists(used_by) OR used_by = :conn)',
        ExpressionAttributeValues: { ':conn': connectionId, ':now': now },
        ReturnValues: 'ALL_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      });
      return out.Attributes as unknown as StreamTicket;
    } catch (err) {
      if (isConditionFailed(err)) {
        const old = oldItem<StreamTicket>(err);
        if (!old) return 'unknown';
        return old.used_by !== undefined && old.used_by !== connectionId ? 'used' : 'expired';
      }
      if (!isOutcomeUnknown(err) || send >= 3) throw err;
    }
  }
}
