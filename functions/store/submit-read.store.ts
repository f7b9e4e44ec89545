import type { ApiKeyRecord, Identity } from '../core/model.ts';
import type { Db } from './db.ts';
import type { IdempotencyItem } from './idempotency.store.ts';
import { type RateWindow, rateWindowFull } from './quota.store.ts';
import { keys } from './table-keys.ts';

/**
 * The first read of a send (read → decide → write): one consistent BatchGetItem of
 * everything that can be read before the tenant is known — the calling key's `K#{sha256}` item, the
 * identity, the Idempotency-Key's item, and the identity's counter item of every local day the
 * request can fall on. A duplicate is answered from this read alone: authenticated, in scope, rate
 * window checked (before the replay: a replay counts against it too), stored answer.
 */
export interface FirstRead {
  apiKey?: ApiKeyRecord;
  identity?: Identity;
  /** Undefined when no key was asked for or none is stored. */
  idempotency?: IdempotencyItem;
  /** Whether the identity's current rate window is full. */
  rateFull: boolean;
  /** The identity's day counts and lease, by local day (absent: nothing counted that day). */
  counters: Record<string, { sends: number; lease: number }>;
}

export interface FirstReadArgs {
  apiKeyHash: string;
  identityId?: string;
  idempotencyKeyHash?: string;
  /** core/quota.ts possibleLocalDays(now). */
  days: string[];
  now: number;
  rate?: RateWindow;
}

export async function readFirst(db: Db, args: FirstReadArgs): Promise<FirstRead> {
  const wanted: Record<string, unknown>[] = [keys.apiKey(args.apiKeyHash)];
  if (args.identityId) {
    wanted.push(keys.identity(args.identityId));
    if (args.idempotencyKeyHash) wanted.push(keys.idempotency(args.identityId, args.idempotencyKeyHash));
    for (const day of args.days) wanted.push({ pk: `I#${args.identityId}`, sk: `Q#${day}` });
  }
  const items: Record<string, unknown>[] = [];
  let request: Record<string, { Keys: Record<string, unknown>[]; ConsistentRead: boolean }> | undefined = {
    [db.table]: { Keys: wanted, ConsistentRead: true },
  };
  for (let i = 0; request && Object.keys(request).length > 0; i++) {
    if (i > 0) await new Promise((r) => setTimeout(r, Math.min(200, 10 * 2 ** i)));
    const out = await db.batchGet({ RequestItems: request });
    items.push(...(out.Responses?.[db.table] ?? []));
    request = out.UnprocessedKeys as typeof request;
  }
  const bySk = (test: (sk: string) => boolean) => items.filter((x) => test(String(x.sk)));
  const strip = <T>(x: Record<string, unknown> | undefined) => {
    if (!x) return undefined;
    const { pk: _pk, sk: _sk, type: _type, ...rest } = x;
    return rest as T;
  };
  return {
    apiKey: strip<ApiKeyRecord>(bySk((sk) => sk === 'K')[0]),
    identity: strip<Identity>(bySk((sk) => sk === 'I')[0]),
    idempotency: bySk((sk) => sk.startsWith('IK#'))[0] as unknown as IdempotencyItem | undefined,
    rateFull: bySk((sk) => sk.startsWith('Q#')).some((q) => rateWindowFull(q, args.now, args.rate)),
    counters: Object.fromEntries(
      bySk((sk) => sk.startsWith('Q#')).map((q) => [
        String(q.sk).slice(2),
        { sends: Number(q.sends ?? 0), lease: Number(q.lease ?? 0) },
      ]),
    ),
  };
}
