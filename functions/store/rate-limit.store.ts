import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Db } from './db.ts';
import { isConditionFailed } from './db.ts';
import { ttlOf } from './idempotency.store.ts';
import { keys } from './keys.ts';

/**
 * Fixed one-minute windows per identity (seed 000 › Handler step 2, RL_SEND: 120 per minute).
 * `peek` is a read; `take` a capped conditional ADD. A replay is checked with `peek` but never counted,
 * so a replay writes nothing (pmail's cost rule) while a full window still refuses it.
 */
export interface RateWindow {
  limit: number;
  windowMs: number;
}

export const RL_SEND: RateWindow = { limit: 120, windowMs: 60_000 };

export type RateDecision = { ok: true } | { ok: false; retryAfter: number };

const windowStart = (now: number, w: RateWindow) => now - (now % w.windowMs);
const retryAfter = (now: number, w: RateWindow) =>
  Math.max(1, Math.ceil((windowStart(now, w) + w.windowMs - now) / 1000));

export async function peekRate(
  db: Db,
  identityId: string,
  metric: string,
  w: RateWindow,
  now: number,
): Promise<RateDecision> {
  const out = await db.doc.send(
    new GetCommand({ TableName: db.table, Key: keys.rateWindow(identityId, metric, windowStart(now, w)) }),
  );
  const used = (out.Item?.n as number | undefined) ?? 0;
  return used >= w.limit ? { ok: false, retryAfter: retryAfter(now, w) } : { ok: true };
}

export async function takeRate(
  db: Db,
  identityId: string,
  metric: string,
  w: RateWindow,
  now: number,
): Promise<RateDecision> {
  const start = windowStart(now, w);
  try {
    await db.doc.send(
      new UpdateCommand({
        TableName: db.table,
        Key: keys.rateWindow(identityId, metric, start),
        UpdateExpression: 'ADD n :one SET #type = :type, #ttl = :ttl',
        ConditionExpression: 'attribute_not_exists(n) OR n < :limit',
        ExpressionAttributeNames: { '#type': 'type', '#ttl': 'ttl' },
        ExpressionAttributeValues: {
          ':one': 1,
          ':limit': w.limit,
          ':type': 'rate_window',
          ':ttl': ttlOf(start + 2 * w.windowMs),
        },
      }),
    );
    return { ok: true };
  } catch (err) {
    if (isConditionFailed(err)) return { ok: false, retryAfter: retryAfter(now, w) };
    throw err;
  }
}
