import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Db } from './db.ts';
import { conditionally, isConditionFailed, oldItem } from './db.ts';
import { ttlOf } from './idempotency.store.ts';

/**
 * The counters of an accepted send (seed 000 › Handler step 2 RL_SEND, step 18 daily caps):
 *
 * - `I#{idn}` / `Q#{day}`: the identity's sends of the local day (`sends`) and its current
 *   one-minute rate window (`rm` its start, `rn` the sends in it);
 * - `T#{ten}` / `Q#{day}`: the tenant's sends of the local day.
 *
 * Both are counted by conditional ADDs *before* the storage transaction and given back if the send
 * is then refused (the seed's TenantQuota Reserve / Release around the thread lock), instead of
 * inside the transaction, where every item costs twice: 2 WCU for the two counters instead of 3
 * (the counter in the transaction and a separate rate-window write). A crash between the count
 * and the commit keeps one send too many on the day's count — it errs towards refusing, never
 * towards a second email. Per-identity counts live in the identity's partition, so the tenant's
 * item stays a few bytes however many identities send (one attribute per identity would have
 * grown it past 1 KB, and every write with it, at 25 identities).
 */
const identityKey = (identityId: string, day: string) => ({ pk: `I#${identityId}`, sk: `Q#${day}` });
const tenantKey = (tenantId: string, day: string) => ({ pk: `T#${tenantId}`, sk: `Q#${day}` });

export interface RateWindow {
  limit: number;
  windowMs: number;
}
/** seed 000 › Handler step 2: 120 accepted sends a minute per identity. */
export const RL_SEND: RateWindow = { limit: 120, windowMs: 60_000 };

const windowStart = (now: number, w: RateWindow) => now - (now % w.windowMs);
/** Seconds to the end of the current window (Retry-After of a 429 rate_limited). */
export const rateRetryAfter = (now: number, w: RateWindow = RL_SEND) =>
  Math.max(1, Math.ceil((windowStart(now, w) + w.windowMs - now) / 1000));

export interface SendCounters {
  tenantId: string;
  identityId: string;
  day: string;
  now: number;
  /** When the counter items expire (TTL): after the day is over everywhere. */
  expiresAt: number;
  rate?: RateWindow;
}

/** Whether the identity's current rate window is full (a read: replays are checked, never counted). */
export async function peekSendRate(
  db: Db,
  args: Pick<SendCounters, 'identityId' | 'day' | 'now' | 'rate'>,
): Promise<{ full: boolean }> {
  const out = await db.doc.send(
    new GetCommand({ TableName: db.table, Key: identityKey(args.identityId, args.day) }),
  );
  return { full: rateWindowFull(out.Item, args.now, args.rate) };
}

/** Whether an identity's counter item holds the current rate window, full. */
export function rateWindowFull(
  item: Record<string, unknown> | undefined,
  now: number,
  w: RateWindow = RL_SEND,
): boolean {
  return item?.rm === windowStart(now, w) && ((item?.rn as number | undefined) ?? 0) >= w.limit;
}

export async function readDailyCounts(
  db: Db,
  tenantId: string,
  identityId: string,
  day: string,
): Promise<{ tenant: number; identity: number }> {
  const [t, i] = await Promise.all([
    db.doc.send(new GetCommand({ TableName: db.table, Key: tenantKey(tenantId, day), ConsistentRead: true })),
    db.doc.send(
      new GetCommand({ TableName: db.table, Key: identityKey(identityId, day), ConsistentRead: true }),
    ),
  ]);
  return { tenant: (t.Item?.sends as number) ?? 0, identity: (i.Item?.sends as number) ?? 0 };
}

export type Reservation =
  | { ok: true; before: { tenant: number; identity: number } }
  | { ok: false; refused: 'rate' | 'identity' | 'tenant' };

/**
 * Count one send: in the identity's rate window always, and against both daily caps unless `caps`
 * is absent (a fully suppressed send is accepted but is not a send of the day). Both caps or
 * neither: the two counters are written at once and a refusal by either gives the other's count
 * back (a concurrent send may see that count for a moment: it errs towards refusing).
 */
export async function reserveSend(
  db: Db,
  args: SendCounters & { caps?: { tenant: number; identity: number } },
): Promise<Reservation> {
  const w = args.rate ?? RL_SEND;
  const start = windowStart(args.now, w);
  const daily = args.caps !== undefined;
  const common = {
    TableName: db.table,
    Key: identityKey(args.identityId, args.day),
    ReturnValues: 'UPDATED_NEW' as const,
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
  };
  const capCondition = daily ? ' AND (attribute_not_exists(sends) OR sends < :icap)' : '';
  const values = {
    ':one': 1,
    ':w': start,
    ':type': 'send_counter',
    ':ttl': ttlOf(args.expiresAt),
    ...(daily ? { ':icap': args.caps!.identity } : {}),
  };
  const names = { '#type': 'type', '#ttl': 'ttl' };
  // The same window (ADD to it) or a new one (start it at 1); a lost race tries the other form.
  const forms = [
    {
      UpdateExpression: `ADD rn :one${daily ? ', sends :one' : ''} SET #type = :type, #ttl = :ttl`,
      ConditionExpression: `rm = :w AND rn < :rlimit${capCondition}`,
      ExpressionAttributeValues: { ...values, ':rlimit': w.limit },
    },
    {
      UpdateExpression: `SET rm = :w, rn = :one, #type = :type, #ttl = :ttl${daily ? ' ADD sends :one' : ''}`,
      ConditionExpression: `(attribute_not_exists(rm) OR rm <> :w)${capCondition}`,
      ExpressionAttributeValues: values,
    },
  ];
  const countIdentity = async (): Promise<number | 'rate' | 'identity'> => {
    for (let i = 0; i < 4; i++) {
      try {
        const out = await db.doc.send(
          new UpdateCommand({ ...common, ...forms[i % 2], ExpressionAttributeNames: names }),
        );
        return (out.Attributes?.sends as number | undefined) ?? 0;
      } catch (err) {
        if (!isConditionFailed(err)) throw err;
        const old = oldItem<Record<string, unknown>>(err);
        if (daily && ((old?.sends as number | undefined) ?? 0) >= args.caps!.identity) return 'identity';
        if (old?.rm === start && ((old?.rn as number | undefined) ?? 0) >= w.limit) return 'rate';
      }
    }
    throw new Error('the send counter kept changing');
  };
  const countTenant = async (): Promise<number | 'tenant'> => {
    try {
      const out = await db.doc.send(
        new UpdateCommand({
          TableName: db.table,
          Key: tenantKey(args.tenantId, args.day),
          UpdateExpression: 'ADD sends :one SET #type = :type, #ttl = :ttl',
          ConditionExpression: 'attribute_not_exists(sends) OR sends < :tcap',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: {
            ':one': 1,
            ':tcap': args.caps!.tenant,
            ':type': 'daily_counter',
            ':ttl': ttlOf(args.expiresAt),
          },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      return out.Attributes?.sends as number;
    } catch (err) {
      if (!isConditionFailed(err)) throw err;
      return 'tenant';
    }
  };
  if (!daily) {
    const identity = await countIdentity();
    return typeof identity === 'number'
      ? { ok: true, before: { tenant: 0, identity: 0 } }
      : { ok: false, refused: identity };
  }
  // Both counters at once (one round trip); whichever refuses, the other's count is given back.
  // An error other than a refusal is thrown as it is, keeping what was counted (it errs towards
  // refusing one send too many, never towards passing a cap).
  const [identity, tenant] = await Promise.allSettled([countIdentity(), countTenant()]);
  if (identity.status === 'rejected') throw identity.reason;
  if (tenant.status === 'rejected') throw tenant.reason;
  const i = identity.value;
  const t = tenant.value;
  if (typeof i === 'number' && typeof t === 'number')
    return { ok: true, before: { tenant: t - 1, identity: i - 1 } };
  if (typeof i === 'number') await releaseSend(db, { ...args, daily: true, tenant: false });
  if (typeof t === 'number') await releaseSend(db, { ...args, daily: true, identity: false, rate: false });
  return { ok: false, refused: typeof i === 'number' ? 'tenant' : i };
}

/**
 * Give a send back: a send refused after its reservation (thread lock, a lost transaction) also
 * leaves its rate window (`rate`), a canceled message only its day's counts (seed 000 › Cancel).
 * An item that comes back to nothing is deleted, so a refused send leaves no item behind.
 */
export async function releaseSend(
  db: Db,
  args: Omit<SendCounters, 'expiresAt' | 'rate'> & {
    daily: boolean;
    /** Give back the tenant's day count (default: with `daily`). */
    tenant?: boolean;
    /** Give back the identity's counts (default). */
    identity?: boolean;
    rate?: RateWindow | false;
  },
): Promise<void> {
  const releaseRate = args.rate !== false;
  const start = windowStart(args.now, args.rate || RL_SEND);
  const parts: { key: Record<string, string>; attrs: string[] }[] = [];
  const identityAttrs = [...(args.daily ? ['sends'] : []), ...(releaseRate ? ['rn'] : [])];
  if (identityAttrs.length && args.identity !== false)
    parts.push({ key: identityKey(args.identityId, args.day), attrs: identityAttrs });
  if (args.daily && args.tenant !== false)
    parts.push({ key: tenantKey(args.tenantId, args.day), attrs: ['sends'] });
  for (const { key, attrs } of parts) {
    // The rate count comes back only within its own window; a window that has turned over is gone.
    const rateHere = attrs.includes('rn');
    const conditions = attrs.map((a) => `${a} > :zero`);
    if (rateHere) conditions.push('rm = :w');
    let after: Record<string, unknown> | undefined;
    try {
      const out = await db.doc.send(
        new UpdateCommand({
          TableName: db.table,
          Key: key,
          UpdateExpression: `ADD ${attrs.map((a) => `${a} :minus`).join(', ')}`,
          ConditionExpression: conditions.join(' AND '),
          ExpressionAttributeValues: { ':minus': -1, ':zero': 0, ...(rateHere ? { ':w': start } : {}) },
          ReturnValues: 'ALL_NEW',
        }),
      );
      after = out.Attributes;
    } catch (err) {
      if (!isConditionFailed(err)) throw err;
      if (!rateHere || !args.daily) continue;
      // The window turned over: give back the day's count alone.
      const out = await db.doc
        .send(
          new UpdateCommand({
            TableName: db.table,
            Key: key,
            UpdateExpression: 'ADD sends :minus',
            ConditionExpression: 'sends > :zero',
            ExpressionAttributeValues: { ':minus': -1, ':zero': 0 },
            ReturnValues: 'ALL_NEW',
          }),
        )
        .catch((e) => {
          if (isConditionFailed(e)) return undefined;
          throw e;
        });
      after = out?.Attributes;
    }
    if (after && !after.sends && !after.rn) {
      await conditionally(
        db.doc.send(
          new DeleteCommand({
            TableName: db.table,
            Key: key,
            ConditionExpression:
              '(attribute_not_exists(sends) OR sends = :zero) AND (attribute_not_exists(rn) OR rn = :zero)',
            ExpressionAttributeValues: { ':zero': 0 },
          }),
        ),
      );
    }
  }
}

/** Once per scope, metric, threshold and day: true the first time only (quota.warning). */
export async function markWarned(
  db: Db,
  args: { tenantId: string; day: string; scope: string; threshold: number; expiresAt: number },
): Promise<boolean> {
  return conditionally(
    db.doc.send(
      new PutCommand({
        TableName: db.table,
        Item: {
          pk: `T#${args.tenantId}`,
          sk: `Q#${args.day}#warned#${args.scope}#${args.threshold}`,
          type: 'quota_warning_mark',
          ttl: ttlOf(args.expiresAt),
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    ),
  );
}
