import type { BatchGetCommandInput, GetCommandInput } from '@aws-sdk/lib-dynamodb';
import type { Db } from './db.ts';
import { sharesHooks } from './dynamodb.ts';

type Key = Record<string, unknown> & { pk: string; sk: string };
interface Pending {
  keys: Key[];
  consistent: boolean;
  single: boolean;
  resolve: (v: never) => void;
  reject: (e: unknown) => void;
}

const id = (k: { pk: unknown; sk: unknown }) => `${String(k.pk)}\n${String(k.sk)}`;

/**
 * A Db whose item reads issued together are sent as one BatchGetItem (the submit
 * pipeline's loads in one or two BatchGetItems). Every GetItem and BatchGetItem of the table sent
 * in the same turn of the event loop (as a round of `Promise.all` reads does) is queued and sent at
 * once — the eventually consistent ones in one call, the consistent ones in another, 100 keys a
 * call, unprocessed keys asked again — and each caller gets back the answer its own call would
 * have had. The stores keep their own functions; the per-call work (signing, marshalling, HTTP)
 * is paid once per round instead of once per store. Every other call goes straight through.
 */
export function batchedReads(db: Db): Db {
  let queue: Pending[] = [];
  const flush = () => {
    const pending = queue;
    queue = [];
    for (const consistent of [false, true]) {
      const group = pending.filter((p) => p.consistent === consistent);
      if (group.length) read(db, group, consistent);
    }
  };
  const enqueue = <T>(p: Omit<Pending, 'resolve' | 'reject'>) =>
    new Promise<T>((resolve, reject) => {
      if (queue.length === 0) setImmediate(flush);
      queue.push({ ...p, resolve: resolve as (v: never) => void, reject });
    });
  const whole = (input: GetCommandInput) =>
    input.TableName === db.table && !input.ProjectionExpression && !input.AttributesToGet;
  const wholeBatch = (input: BatchGetCommandInput) => {
    const tables = Object.keys(input.RequestItems ?? {});
    const request = input.RequestItems?.[db.table];
    return tables.length === 1 && request && !request.ProjectionExpression && !request.AttributesToGet
      ? request
      : undefined;
  };
  const batched: Db = {
    ...db,
    get: (input) =>
      whole(input)
        ? enqueue({ keys: [input.Key as Key], consistent: input.ConsistentRead === true, single: true })
        : db.get(input),
    batchGet: (input) => {
      const request = wholeBatch(input);
      return request
        ? enqueue({ keys: request.Keys as Key[], consistent: request.ConsistentRead === true, single: false })
        : db.batchGet(input);
    },
  };
  sharesHooks(batched, db);
  return batched;
}

async function read(db: Db, group: Pending[], consistent: boolean): Promise<void> {
  try {
    const unique = [...new Map(group.flatMap((p) => p.keys).map((k) => [id(k), k])).values()];
    const found = new Map<string, Record<string, unknown>>();
    await Promise.all(
      Array.from({ length: Math.ceil(unique.length / 100) }, async (_, c) => {
        let request: Record<string, { Keys: Key[]; ConsistentRead: boolean }> | undefined = {
          [db.table]: { Keys: unique.slice(c * 100, c * 100 + 100), ConsistentRead: consistent },
        };
        for (let round = 0; request && Object.keys(request).length > 0; round++) {
          // Unprocessed keys come back under throttling: back off a little before asking again.
          if (round > 0) await new Promise((r) => setTimeout(r, Math.min(25 * 2 ** round, 1000)));
          const out = await db.batchGet({ RequestItems: request });
          for (const item of out.Responses?.[db.table] ?? []) found.set(id(item as Key), item);
          request = out.UnprocessedKeys as typeof request;
        }
      }),
    );
    for (const p of group) {
      const items = p.keys.map((k) => found.get(id(k))).filter((x) => x !== undefined);
      p.resolve(
        (p.single ? { Item: items[0] } : { Responses: { [db.table]: items }, UnprocessedKeys: {} }) as never,
      );
    }
  } catch (err) {
    for (const p of group) p.reject(err);
  }
}
