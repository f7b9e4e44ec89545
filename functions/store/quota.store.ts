import { leaseBlock, maxLeasedBefore } from '../core/quota.ts';
import type { Db } from './db.ts';
import { conditionally, isConditionFailed, isOutcomeUnknown, oldItem, putOnce } from './db.ts';
import { ttlOf } from './idempotency.store.ts';

/**
 * The counters of an accepted send (docs/architecture.md › One send, file by file: count): its rate
 * window (`RL_SEND`) and its daily caps:
 *
 * - `I#{idn}` / `Q#{day}`: the identity's sends of the local day (`sends`) and its current
 *   one-minute rate window (`rm` its start, `rn` the sends in it);
 * - `T#{ten}` / `Q#{day}`: the tenant's sends of the local day.
 *
 * Both are counted by conditional ADDs *before* the storage transaction and given back if the send
 * is then refused (`reserveSend` / `releaseSend` around the thread lock), instead of
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
/** 120 accepted sends a minute per identity (429 `rate_limited` beyond). */
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
): Promise<{ tenant: number; identity: number; lease: number }> {
  const [t, i] = await Promise.all([
    db.get({ TableName: db.table, Key: tenantKey(tenantId, day), ConsistentRead: true }),
    db.get({ TableName: db.table, Key: identityKey(identityId, day), ConsistentRead: true }),
  ]);
  // The tenant's item counts the allowance leased to identities (reserveSend), not the sends.
  return { tenant: num(t.Item?.leased), identity: num(i.Item?.sends), lease: num(i.Item?.lease) };
}

export type Reservation =
  | {
      ok: true;
      /**
       * The counts before and after this send: the identity's sends of the day, and the tenant's
       * allowance leased to identities (it moves only when this send leased a block).
       */
      before: { tenant: number; identity: number };
      after: { tenant: number; identity: number };
    }
  | { ok: false; refused: 'rate' | 'identity' | 'tenant' };

const num = (v: unknown) => (v as number | undefined) ?? 0;

/**
 * Count one send: in the identity's rate window always, and against both daily caps unless `caps`
 * is absent (a fully suppressed send is accepted but is not a send of the day).
 *
 * The tenant's cap is leased to identities in blocks (core/quota.ts `leaseBlock`), so no item is
 * written by every send of a tenant:
 * 1. **Count** on the identity's item: `sends + 1`, conditioned on the rate window, the identity's
 *    cap and `sends < lease` (the identity still holds leased allowance). Held: `sends ≤ lease`.
 * 2. When the lease is used up: **lease** a block from the tenant's item, `leased + b`, conditioned
 *    on `leased ≤ cap − max(b, 64 b)` (a refused guess learns `leased` and tries the right block;
 *    nothing left: `tenant`). Held: `Σ lease ≤ leased ≤ cap`, so the tenant's sends never pass its
 *    cap.
 * 3. **Grant and count** in one write on the identity's item: `lease + b`, `sends + 1`, conditioned
 *    on the lease as read, the rate window and the identity's cap. A lease another send moved
 *    meanwhile (sends racing at a block's start) is granted on top while it stays within the
 *    identity's cap, so each keeps the block it leased. Refused (a concurrent send filled the window
 *    or the cap), the block goes back to the tenant's item and the refusal is answered.
 * A crash between 2 and 3 strands at most one block on the tenant's item (leased, held by no one):
 * it errs towards refusing, never towards passing a cap. A canceled or refused send gives its count
 * back to its identity, whose lease keeps the allowance for its next send.
 *
 * Lost answers (docs/lost-answers.md, count): no write here is sent again after its outcome is
 * unknown (`WriteOutcomeUnknown`, or any error the caller sees for a write that may have landed).
 * The count (1) and the grant (3) are taken as applied — the send may be counted, the block may be
 * the identity's — and the error goes up: the send is not accepted (a count that did not land must
 * not let a send through), the block is neither granted again nor given back (given back while the
 * identity holds it, the tenant's cap could pass). The caller's retry is a new send, counted anew:
 * an unknown outcome leaves at most one send or one block too many on the day, never one too few.
 */
export async function reserveSend(
  db: Db,
  args: SendCounters & { caps?: { tenant: number; identity: number }; early?: EarlyLease },
): Promise<Reservation> {
  const w = args.rate ?? RL_SEND;
  const counter: IdentityCounter = {
    key: identityKey(args.identityId, args.day),
    window: w,
    start: windowStart(args.now, w),
    cap: args.caps?.identity,
    ttl: ttlOf(args.expiresAt),
  };
  if (counter.cap === undefined) {
    const counted = await countOnIdentity(db, counter);
    return counted.type === 'refused'
      ? { ok: false, refused: counted.refused }
      : { ok: true, before: { tenant: 0, identity: 0 }, after: { tenant: 0, identity: 0 } };
  }
  // A block leased ahead (leaseAhead): granted and counted at once, on the lease as first read.
  const early = args.early?.day === args.day ? await args.early.take() : undefined;
  if (early) {
    args.early!.consumed();
    const out = await countOnBlock(db, args, counter, early);
    if (out) return out;
  }
  for (let round = 0; round < 4; round++) {
    // 1. Count against the identity's lease.
    const counted = await countOnIdentity(db, counter);
    if (counted.type === 'refused') return { ok: false, refused: counted.refused };
    if (counted.type === 'counted') return reserved(counted.sends, 0, 0);
    // 2. The lease is used up: a block from the tenant.
    const leased = await leaseFromTenant(db, args, counter.cap - counted.seen);
    if (typeof leased === 'string') return { ok: false, refused: leased };
    // 3. Grant the block and count the send, one write, on the lease as read (or on top).
    const out = await countOnBlock(db, args, counter, { ...leased, seen: counted.seen });
    if (out) return out;
  }
  throw new Error('the send counter kept changing');
}

/** The identity's counter item as one send writes it (`cap`: the identity's daily cap, if counted). */
interface IdentityCounter {
  key: { pk: string; sk: string };
  window: RateWindow;
  /** The current rate window's start. */
  start: number;
  cap?: number;
  ttl: number;
}

/** One identity write: counted (its `sends` after), refused, or the lease seen used up or moved. */
type Counted =
  | { type: 'counted'; sends: number }
  | { type: 'refused'; refused: 'rate' | 'identity' }
  | { type: 'lease'; seen: number };

/** A send counted after it leased `block` (the tenant's `leased` was `before`): the reservation. */
const reserved = (sends: number, before: number, block: number): Reservation => ({
  ok: true,
  before: { tenant: before, identity: sends - 1 },
  after: { tenant: before + block, identity: sends },
});

/**
 * Step 3 with a block in hand (leased now, or ahead by leaseAhead): grant and count on the lease as
 * seen; the reservation, or a refusal. Once its grant is sent the block is this write's: an error
 * with an unknown outcome keeps it (errs towards refusing); a definite refusal, or a lease that kept
 * moving, gives it back. Undefined: not granted, not refused, the block given back (count again).
 */
async function countOnBlock(
  db: Db,
  args: Pick<SendCounters, 'tenantId' | 'day'>,
  counter: IdentityCounter,
  block: { block: number; before: number; seen: number },
): Promise<Reservation | undefined> {
  const granted = await grantBlock(db, counter, block.block, block.seen);
  if (granted.type === 'counted') return reserved(granted.sends, block.before, block.block);
  // Not granted (a concurrent send filled the window or the cap, or the lease kept moving): the
  // block goes back to the tenant.
  await giveBackLease(db, args, block.block);
  return granted.type === 'refused' ? { ok: false, refused: granted.refused } : undefined;
}

/**
 * Grant and count on the lease as seen. A lease another send moved meanwhile (it granted its own
 * block first) is granted on top, while the lease stays within the identity's cap: the block is
 * already leased, and giving it back would cost the tenant's item a write and this send another
 * count. 'lease' when it could not be granted. An unknown outcome goes up with the block neither
 * granted again nor given back: it may be the identity's already.
 */
async function grantBlock(db: Db, counter: IdentityCounter, block: number, seen: number): Promise<Counted> {
  let written = await countOnIdentity(db, counter, { block, seen });
  for (let i = 0; i < 3 && written.type === 'lease' && written.seen + block <= counter.cap!; i++)
    written = await countOnIdentity(db, counter, { block, seen: written.seen });
  return written;
}

/**
 * The identity item's conditions, each named for what it holds, composed into each write (the way
 * a persistence layer composes `idempotencyKeyDoesNotExist`, `idempotencyKeyExpired`, …).
 */
const IDENTITY = {
  /** The item holds the current rate window and it has room. */
  windowHasRoom: 'rm = :w AND rn < :rlimit',
  /** The item holds no rate window, or another minute's: this send opens the current one. */
  windowIsOld: '(attribute_not_exists(rm) OR rm <> :w)',
  /** The identity's day count is below its cap. */
  underDailyCap: '(attribute_not_exists(sends) OR sends < :icap)',
  /** The identity still holds leased allowance. */
  leaseLeft: 'lease > sends',
  /** The lease is as this send read it (none yet, or the value seen). */
  leaseAsSeen: '(attribute_not_exists(lease) OR lease = :seen)',
} as const;

const allOf = (...conditions: string[]) => conditions.join(' AND ');

/**
 * The identity write's two forms: within the current rate window, and opening it. Counted against
 * the daily cap when the counter has one: on the lease left, or granting `grant.block` on the lease
 * as seen.
 */
function identityForms(counter: IdentityCounter, grant?: { block: number; seen: number }) {
  const daily = counter.cap !== undefined;
  const lease = grant ? IDENTITY.leaseAsSeen : IDENTITY.leaseLeft;
  const caps = daily ? [IDENTITY.underDailyCap, lease] : [];
  const values = {
    ':one': 1,
    ':w': counter.start,
    ':type': 'send_counter',
    ':ttl': counter.ttl,
    ...(daily ? { ':icap': counter.cap } : {}),
    ...(grant ? { ':b': grant.block, ':zero': 0, ':seen': grant.seen } : {}),
  };
  const setLease = grant ? ', lease = if_not_exists(lease, :zero) + :b' : '';
  return [
    {
      update: `ADD rn :one${daily ? ', sends :one' : ''} SET #type = :type, #ttl = :ttl${setLease}`,
      condition: allOf(IDENTITY.windowHasRoom, ...caps),
      values: { ...values, ':rlimit': counter.window.limit },
    },
    {
      update: `SET rm = :w, rn = :one, #type = :type, #ttl = :ttl${setLease}${daily ? ' ADD sends :one' : ''}`,
      condition: allOf(IDENTITY.windowIsOld, ...caps),
      values,
    },
  ];
}

/**
 * Steps 1 and 3 of reserveSend: one identity write, the rate window, the day count, and a block
 * granted with it (`grant`). Each form is tried in turn while the other's refusal shows only the
 * window moved.
 */
async function countOnIdentity(
  db: Db,
  counter: IdentityCounter,
  grant?: { block: number; seen: number },
): Promise<Counted> {
  const forms = identityForms(counter, grant);
  for (let i = 0; i < 4; i++) {
    const form = forms[i % 2]!;
    try {
      const out = await db.update({
        TableName: db.table,
        Key: counter.key,
        UpdateExpression: form.update,
        ConditionExpression: form.condition,
        ExpressionAttributeValues: form.values,
        ExpressionAttributeNames: { '#type': 'type', '#ttl': 'ttl' },
        ReturnValues: 'ALL_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      });
      return { type: 'counted', sends: num(out.Attributes?.sends) };
    } catch (err) {
      // An unknown outcome goes up, never sent again (see reserveSend): so a refusal read here is
      // never this write's own earlier send, and a moved lease is another send's grant.
      if (!isConditionFailed(err)) throw err;
      const refused = identityRefusal(oldItem<Record<string, unknown>>(err), counter, grant);
      if (refused) return refused;
    }
  }
  throw new Error('the send counter kept changing');
}

/** What a refused identity write read (the item as it was): a refusal, a lease to look at, or neither. */
function identityRefusal(
  old: Record<string, unknown> | undefined,
  counter: IdentityCounter,
  grant: { seen: number } | undefined,
): Counted | undefined {
  const daily = counter.cap !== undefined;
  if (daily && num(old?.sends) >= counter.cap!) return { type: 'refused', refused: 'identity' };
  if (old?.rm === counter.start && num(old?.rn) >= counter.window.limit)
    return { type: 'refused', refused: 'rate' };
  // The lease is used up (counting), or changed since it was read (granting): a new look.
  const leaseMoved = grant ? num(old?.lease) !== grant.seen : !(num(old?.lease) > num(old?.sends));
  if (daily && leaseMoved) return { type: 'lease', seen: num(old?.lease) };
  return undefined;
}

/**
 * Leased units no identity holds go back to the tenant's item (deleted when it comes back to 0).
 *
 * A give-back whose outcome is unknown (docs/lost-answers.md, count) is taken as not applied and
 * never sent again: applied twice, it would hand the tenant allowance an identity still holds and
 * let the cap pass; not applied, the units stay leased, held by no one (errs towards refusing). The
 * caller's answer stands (a refused send is still refused).
 */
async function giveBackLease(
  db: Db,
  args: Pick<SendCounters, 'tenantId' | 'day'>,
  units: number,
): Promise<void> {
  const Key = tenantKey(args.tenantId, args.day);
  const out = await db
    .update({
      TableName: db.table,
      Key,
      UpdateExpression: 'ADD leased :minus',
      ConditionExpression: 'leased >= :n',
      ExpressionAttributeValues: { ':minus': -units, ':n': units },
      ReturnValues: 'UPDATED_NEW',
    })
    .catch((e) => {
      if (isConditionFailed(e) || isOutcomeUnknown(e)) return undefined;
      throw e;
    });
  if (out && num(out.Attributes?.leased) === 0) {
    await deleteIfEmpty(
      db.delete({
        TableName: db.table,
        Key,
        ConditionExpression: 'leased = :zero',
        ExpressionAttributeValues: { ':zero': 0 },
      }),
    );
  }
}

/**
 * Delete a counter item that came back to nothing. Tidying only: an item left at zero counts the
 * same as none, so a refused condition or an unknown outcome is taken as done.
 */
async function deleteIfEmpty(write: Promise<unknown>): Promise<void> {
  await conditionally(write).catch((e) => {
    if (!isOutcomeUnknown(e)) throw e;
  });
}

/**
 * A block leased ahead of the count, when the first read showed the identity's lease used up
 * (`lease ≤ sends`): it runs as soon as the tenant is read, beside the pipeline's decision, so the
 * count that starts a block is one write like any other. `reserveSend` takes it (grant and count on the lease as read; a
 * lease that moved meanwhile gives the block back and counts as usual); a send that never counts
 * (refused, a replay, fully suppressed) gives it back with `release`. A crash strands it, as any
 * lease: it errs towards refusing.
 */
export interface EarlyLease {
  day: string;
  take(): Promise<{ block: number; before: number; seen: number } | undefined>;
  /** The block was granted: nothing to give back. */
  consumed(): void;
  /** Give the block back unless it was granted (idempotent). */
  release(): Promise<void>;
}

export function leaseAhead(
  db: Db,
  args: Pick<SendCounters, 'tenantId' | 'day' | 'expiresAt'> & {
    caps: { tenant: number; identity: number };
    seen: number;
  },
): EarlyLease {
  let settled = false;
  const leased = leaseFromTenant(db, args, args.caps.identity - args.seen).then(
    (v) => (typeof v === 'string' ? undefined : v),
    () => undefined,
  );
  return {
    day: args.day,
    async take() {
      const v = await leased;
      return v && { ...v, seen: args.seen };
    },
    consumed() {
      settled = true;
    },
    async release() {
      if (settled) return;
      settled = true;
      const v = await leased;
      if (v) await giveBackLease(db, args, v.block);
    },
  };
}

/**
 * Step 2 of reserveSend: lease the block the tenant's remaining allowance allows.
 *
 * An unknown outcome (docs/lost-answers.md, count) is taken as applied and never sent again: the
 * block counts as leased and the error goes up, so the block is never granted (an identity must not
 * use allowance whose lease is unknown); it stays leased, held by no one (errs towards refusing).
 * `leaseAhead` takes such an error as no block leased ahead, and `reserveSend` leases its own.
 */
async function leaseFromTenant(
  db: Db,
  args: Pick<SendCounters, 'tenantId' | 'day' | 'expiresAt'> & {
    caps?: { tenant: number; identity: number };
  },
  headroom: number,
): Promise<{ block: number; before: number } | 'identity' | 'tenant'> {
  const cap = args.caps!.tenant;
  // The first guess assumes nothing is leased yet; a refusal tells what is.
  let block = leaseBlock(cap, headroom);
  if (headroom <= 0) return 'identity';
  for (let i = 0; i < 6; i++) {
    if (block <= 0) return 'tenant';
    try {
      const out = await db.update({
        TableName: db.table,
        Key: tenantKey(args.tenantId, args.day),
        UpdateExpression: 'ADD leased :b SET #type = :type, #ttl = :ttl',
        ConditionExpression: 'attribute_not_exists(leased) OR leased <= :max',
        ExpressionAttributeNames: { '#type': 'type', '#ttl': 'ttl' },
        ExpressionAttributeValues: {
          ':b': block,
          ':max': maxLeasedBefore(cap, block),
          ':type': 'daily_counter',
          ':ttl': ttlOf(args.expiresAt),
        },
        ReturnValues: 'UPDATED_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      });
      return { block, before: num(out.Attributes?.leased) - block };
    } catch (err) {
      if (!isConditionFailed(err)) throw err;
      block = leaseBlock(cap - num(oldItem<Record<string, unknown>>(err)?.leased), headroom);
    }
  }
  throw new Error('the tenant counter kept changing');
}

/**
 * Give a send back: a send refused after its reservation (thread lock, an earlier owner's message)
 * also leaves its rate window (`rate`), a canceled message only its day's count.
 * The identity's day count goes back and its lease comes down to what it has sent (one write);
 * then the lease it no longer holds goes back to the tenant's item — in this order, so
 * `Σ lease ≤ leased` holds at every step (a crash between the two keeps the units on the tenant's
 * item: it errs towards refusing). An identity item that comes back to nothing is deleted, so a
 * refused send leaves no item behind.
 *
 * An unknown outcome of the give-back on the identity's item (docs/lost-answers.md, count) is taken
 * as not applied and never sent again, not even in its other form (without the rate window): the
 * error goes up, the callers log it and go on, the send stays counted (errs towards refusing).
 * Applied twice, it would give back a send that is still counted by another.
 */
export async function releaseSend(
  db: Db,
  args: Omit<SendCounters, 'expiresAt' | 'rate'> & { daily: boolean; rate?: RateWindow | false },
): Promise<void> {
  const start = windowStart(args.now, args.rate || RL_SEND);
  const key = identityKey(args.identityId, args.day);
  const release = async (rate: boolean) => {
    if (!args.daily && !rate) return undefined;
    const adds = [...(args.daily ? ['sends :minus'] : []), ...(rate ? ['rn :minus'] : [])];
    const out = await db
      .update({
        TableName: db.table,
        Key: key,
        // Operands read the item before the update: the lease becomes the sends that remain.
        UpdateExpression: `ADD ${adds.join(', ')}${args.daily ? ' SET lease = sends - :one' : ''}`,
        // The rate count comes back only within its own window; a window that has turned over is gone.
        ConditionExpression: [
          ...(args.daily ? ['sends > :zero'] : []),
          ...(rate ? ['rn > :zero', 'rm = :w'] : []),
        ].join(' AND '),
        ExpressionAttributeValues: {
          ':minus': -1,
          ':zero': 0,
          ...(args.daily ? { ':one': 1 } : {}),
          ...(rate ? { ':w': start } : {}),
        },
        ReturnValues: 'ALL_OLD',
      })
      .catch((e) => {
        if (isConditionFailed(e)) return undefined;
        throw e;
      });
    const old = out?.Attributes;
    if (!old) return undefined;
    return {
      sends: num(old.sends) - (args.daily ? 1 : 0),
      rn: num(old.rn) - (rate ? 1 : 0),
      lease: args.daily ? num(old.sends) - 1 : num(old.lease),
      unused: args.daily ? num(old.lease) - (num(old.sends) - 1) : 0,
    };
  };
  let after = await release(args.rate !== false);
  if (!after && args.rate !== false && args.daily) after = await release(false);
  if (!after) return;
  if (after.unused > 0) await giveBackLease(db, args, after.unused);
  if (!after.sends && !after.rn && !after.lease) {
    await deleteIfEmpty(
      db.delete({
        TableName: db.table,
        Key: key,
        ConditionExpression:
          '(attribute_not_exists(sends) OR sends = :zero) AND (attribute_not_exists(rn) OR rn = :zero) AND (attribute_not_exists(lease) OR lease = :zero)',
        ExpressionAttributeValues: { ':zero': 0 },
      }),
    );
  }
}

/**
 * Once per scope, metric, threshold and day: true the first time only (quota.warning). A create
 * (docs/lost-answers.md): `putOnce` recognises its own earlier send, so a lost answer neither
 * swallows the warning nor lets a second caller emit it again.
 */
export async function markWarned(
  db: Db,
  args: { tenantId: string; day: string; scope: string; threshold: number; expiresAt: number },
): Promise<boolean> {
  const out = await putOnce(db, {
    Item: {
      pk: `T#${args.tenantId}`,
      sk: `Q#${args.day}#warned#${args.scope}#${args.threshold}`,
      type: 'quota_warning_mark',
      ttl: ttlOf(args.expiresAt),
    },
  });
  return out.written;
}
