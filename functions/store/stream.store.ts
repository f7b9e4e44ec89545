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
} from './db.ts';

/**
 * The event stream's items (docs/guides/stream.md, docs/design/stream.md):
 *
 * - a connection `WS#{ten}` / `C#{connection id}`: who it is for (the key's id, the hash of the
 *   secret it opened with, the identities it may read), its filter, its **position** at its connect
 *   (the tenant's event feed number it is owed events after) and the id of the last event sent.
 *   Listed per gateway in gsi1 (`WSG#{gateway}`), for the schedule's heartbeats;
 * - the fan-out's cursor for the tenant's connections on a gateway `WS#{ten}` / `G#{gateway}`: the
 *   lease of the fan-out posting to them and each one's position as it moved since its connect;
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

/** Where the fan-out got one connection to: its position (`p`) and the last event id sent (`e`). */
export interface StreamMark {
  p: number;
  e?: string;
}

/**
 * The fan-out's cursor for a tenant's connections on one gateway: the lease of the fan-out posting
 * to them (`lease`, `lease_until`) and each connection's position as it moved (`at`, by connection
 * id; a connection absent from it stands where its connect put it).
 */
export interface StreamCursor {
  lease?: string;
  lease_until?: number;
  at: Record<string, StreamMark>;
}

const cursorKey = (tenantId: string, gateway: string) => ({ pk: `WS#${tenantId}`, sk: `G#${gateway}` });
const cursorOf = (item: Record<string, unknown> | undefined): StreamCursor => ({
  lease: item?.lease as string | undefined,
  lease_until: item?.lease_until as number | undefined,
  at: (item?.at as Record<string, StreamMark> | undefined) ?? {},
});

/** A connection where the cursor has it: its mark's position and last event id, else its own. */
export const standing = (c: StreamConnection, cursor: StreamCursor): StreamConnection => {
  const mark = cursor.at[c.connection_id];
  return mark ? { ...c, position: mark.p, last_event_id: mark.e } : c;
};

/**
 * The tenant's connections on every gateway and the cursor of `gateway`, from one consistent
 * Query of the tenant's stream items (a connection put before the read is in it).
 */
export async function streamsOf(
  db: Db,
  tenantId: string,
  gateway: string,
): Promise<{ connections: StreamConnection[]; cursor: StreamCursor }> {
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const out = await db.query({
      TableName: db.table,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': `WS#${tenantId}` },
      ConsistentRead: true,
      ExclusiveStartKey: start,
    });
    items.push(...(out.Items ?? []));
    start = out.LastEvaluatedKey;
  } while (start);
  const cursor = items.find((i) => i.sk === cursorKey(tenantId, gateway).sk);
  return {
    connections: items.filter((i) => String(i.sk).startsWith('C#')).map((i) => fromItem(i)!),
    cursor: cursorOf(cursor),
  };
}

/**
 * Take the cursor of a tenant's connections on a gateway for one fan-out while it posts to them
 * (`token`, until `now + leaseMs`; the item is created on first use, kept a connection's lifetime
 * past its last lease): the cursor with the lease, or undefined while another fan-out's lease runs.
 * An owned transition (docs/lost-answers.md): the lease carries this fan-out's token, so a resend
 * whose first send landed passes its own condition, and a lost answer is settled by a consistent
 * re-read (the lease is this token's, or not).
 */
export async function leaseCursor(
  db: Db,
  tenantId: string,
  gateway: string,
  lease: { token: string; now: number; leaseMs: number },
): Promise<StreamCursor | undefined> {
  const key = cursorKey(tenantId, gateway);
  try {
    const out = await db.update({
      TableName: db.table,
      Key: key,
      UpdateExpression:
        'SET #type = :type, lease = :token, lease_until = :until, #at = if_not_exists(#at, :none), #ttl = :ttl',
      ConditionExpression: 'attribute_not_exists(lease_until) OR lease_until < :now OR lease = :token',
      ExpressionAttributeNames: { '#type': 'type', '#at': 'at', '#ttl': 'ttl' },
      ExpressionAttributeValues: {
        ':type': 'stream_cursor',
        ':token': lease.token,
        ':until': lease.now + lease.leaseMs,
        ':now': lease.now,
        ':none': {},
        ':ttl': Math.ceil((lease.now + CONNECTION_TTL_MS) / 1000),
      },
      ReturnValues: 'ALL_NEW',
    });
    return cursorOf(out.Attributes);
  } catch (err) {
    if (isConditionFailed(err)) return undefined;
    if (!isOutcomeUnknown(err)) throw err;
    const again = await db.get({ TableName: db.table, Key: key, ConsistentRead: true });
    return again.Item?.lease === lease.token ? cursorOf(again.Item) : undefined;
  }
}

const sameMarks = (a: Record<string, StreamMark>, b: Record<string, StreamMark>) =>
  Object.keys(a).length === Object.keys(b).length &&
  Object.entries(a).every(([id, m]) => b[id]?.p === m.p && b[id]?.e === m.e);

/**
 * Move the positions on after a round of posts to the gateway's connections (`at`, the whole map:
 * the holder alone writes it), keeping the lease until `leaseUntil` (0: released). Only the
 * lease's holder moves them: false when the lease is another fan-out's (this one's lapsed). An
 * owned transition (docs/lost-answers.md): the same map set again under the same token is
 * idempotent, so a resend whose first send landed passes; a lost answer is settled by a consistent
 * re-read (the token still on it and the map there: written; the token there, the map not: sent
 * again; another's token: stop).
 */
export async function advanceCursor(
  db: Db,
  tenantId: string,
  gateway: string,
  token: string,
  to: { at: Record<string, StreamMark>; leaseUntil: number },
): Promise<boolean> {
  const key = cursorKey(tenantId, gateway);
  for (let send = 1; ; send++) {
    try {
      await db.update({
        TableName: db.table,
        Key: key,
        UpdateExpression: 'SET #at = :at, lease_until = :until',
        ConditionExpression: 'lease = :token',
        ExpressionAttributeNames: { '#at': 'at' },
        ExpressionAttributeValues: { ':at': to.at, ':until': to.leaseUntil, ':token': token },
      });
      return true;
    } catch (err) {
      if (isConditionFailed(err)) return false;
      if (!isOutcomeUnknown(err) || send >= 3) throw err;
      const again = cursorOf((await db.get({ TableName: db.table, Key: key, ConsistentRead: true })).Item);
      if (again.lease !== token) return false;
      if (sameMarks(to.at, again.at) && again.lease_until === to.leaseUntil) return true;
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
