import { type AttributeValue, type DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DbHooks } from '../functions/store/dynamodb.ts';

/**
 * Counts DynamoDB capacity per command as the table reports it. A hook around the table's calls
 * (store/dynamodb.ts › DbHooks, where the input is still in document form) asks every data
 * command for `ReturnConsumedCapacity: 'TOTAL'` and sums what comes back, per stage (submit,
 * attempt, event, replay, baseline…) and per label (command + the `sk` prefix of each key).
 * DynamoDB Local may report `CapacityUnits` only, so reads and writes are told apart by command name.
 *
 * Transactions: DynamoDB bills each item of a TransactWriteItems 2 × its write units. DynamoDB Local
 * 3.3.0 reports neither that nor the undoubled sum: measured, it reports 2 × the sum of the
 * *distinct* per-item unit counts (two 100 B puts → 2, two 3 KB puts → 6, 100 B + 3 KB → 8), so
 * its figure is kept as `units` (raw) and `corrected` is computed from the items themselves (see
 * `exactTransactions`). bench/run.ts prints a calibration line that shows this on every run.
 */

export type Kind = 'read' | 'write';

export interface Tally {
  stage: string;
  label: string;
  /** What the keys name, e.g. `message + idempotency`. */
  items: string;
  command: string;
  kind: Kind;
  calls: number;
  /** Units as DynamoDB Local reported them. */
  units: number;
  /**
   * Units as DynamoDB bills them: the reported figure, except for transactions, which are billed
   * 2 × each item's units (measured by `exactTransactions`).
   */
  corrected: number;
  /** Index writes of transactions, included in `corrected`. */
  indexUnits: number;
  /** Transactions whose `corrected` figure is unknown (counted while `exactTransactions` was off). */
  inexact: number;
  /** Per item of a transaction (by `sk` prefix): sums of its undoubled write units and its bytes. */
  itemUnits: Map<string, { units: number; bytes: number; n: number }>;
  /** Calls that failed a condition (ConditionalCheckFailed / TransactionCanceled). */
  failed: number;
  /** Calls that came back without a ConsumedCapacity figure (e.g. failed conditional writes). */
  unreported: number;
  /**
   * The write units DynamoDB bills for the failed conditional writes DynamoDB Local reported no
   * figure for: a refused write bills as the write would have (at least 1 WCU per item), a cancelled
   * transaction twice that per item it names.
   */
  failedBilled: number;
}

const READS = new Set(['GetItem', 'BatchGetItem', 'Query', 'Scan', 'TransactGetItems']);
const WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'TransactWriteItems']);
const TRANSACTIONAL = new Set(['TransactWriteItems', 'TransactGetItems']);

/** What the single table's sort-key prefixes name (docs/architecture.md › Items and their keys). */
const ITEM_NAMES: Record<string, string> = {
  T: 'tenant',
  K: 'api key',
  I: 'identity',
  A: 'address',
  D: 'domain',
  M: 'message',
  IK: 'idempotency',
  Q: 'send counter',
  S: 'suppression',
  L: 'send list',
  C: 'contact',
  TH: 'thread',
  N: 'counter',
  OW: 'outcome window',
  E: 'event',
  AU: 'audit',
};

/** `M#msg_…` → `M#`, `Q#2026-12-02` → `Q#`, `I` → `I`. */
export function skPrefix(sk: unknown): string {
  const s =
    typeof sk === 'string'
      ? sk
      : typeof (sk as { S?: unknown })?.S === 'string'
        ? (sk as { S: string }).S
        : '';
  if (!s) return '?';
  const i = s.lastIndexOf('#');
  return i < 0 ? s : s.slice(0, i + 1);
}

/** The item name of a prefix, for the report: `IK#` → `idempotency`. */
export function itemName(prefix: string): string {
  return ITEM_NAMES[prefix.split('#')[0]] ?? prefix;
}

type Input = Record<string, unknown>;

function keysOf(command: string, input: Input): string {
  const uniq = (xs: string[]) => [...new Set(xs)].join('+');
  switch (command) {
    case 'GetItem':
    case 'UpdateItem':
    case 'DeleteItem':
      return skPrefix((input.Key as Input | undefined)?.sk);
    case 'PutItem':
      return skPrefix((input.Item as Input | undefined)?.sk);
    case 'Query': {
      const m = /begins_with\(\s*sk\s*,\s*(:\w+)\s*\)/.exec(String(input.KeyConditionExpression ?? ''));
      const v = m ? (input.ExpressionAttributeValues as Input | undefined)?.[m[1]] : undefined;
      return typeof v === 'string' ? `${v}*` : String(input.IndexName ?? 'pk');
    }
    case 'BatchGetItem': {
      const req = Object.values((input.RequestItems as Record<string, { Keys?: Input[] }>) ?? {});
      return uniq(req.flatMap((r) => (r.Keys ?? []).map((k) => skPrefix(k.sk))));
    }
    case 'BatchWriteItem': {
      const req = Object.values((input.RequestItems as Record<string, Input[]>) ?? {}).flat();
      return uniq(
        req.map((r) =>
          r.PutRequest
            ? `Put ${skPrefix(((r.PutRequest as Input).Item as Input).sk)}`
            : `Delete ${skPrefix(((r.DeleteRequest as Input).Key as Input).sk)}`,
        ),
      );
    }
    case 'TransactWriteItems':
    case 'TransactGetItems': {
      const items = (input.TransactItems as Input[] | undefined) ?? [];
      return items
        .map((t) => {
          const [op, body] = Object.entries(t)[0] as [string, Input];
          return `${op} ${skPrefix((body.Item as Input | undefined)?.sk ?? (body.Key as Input | undefined)?.sk)}`;
        })
        .join(' + ');
    }
    default:
      return '';
  }
}

/** `Put M# + Update IK#` → `message + idempotency`. */
function namesIn(keys: string): string {
  const names = keys
    .split(/\s*\+\s*/)
    .map((k) => k.replace(/^(Put|Update|Delete|ConditionCheck|Get)\s+/, '').replace(/\*$/, ''))
    .filter(Boolean)
    .map(itemName);
  return [...new Set(names)].join(' + ');
}

type CapacityEntry = { CapacityUnits?: number; ReadCapacityUnits?: number; WriteCapacityUnits?: number };

/** Sum a ConsumedCapacity figure: one object (single-item calls) or one per table (batches, transactions). */
function unitsOf(cc: unknown): number | undefined {
  if (cc === undefined || cc === null) return undefined;
  const list = (Array.isArray(cc) ? cc : [cc]) as CapacityEntry[];
  return list.reduce(
    (s, c) => s + (c.CapacityUnits ?? (c.ReadCapacityUnits ?? 0) + (c.WriteCapacityUnits ?? 0)),
    0,
  );
}

function isConditionFailure(err: unknown): boolean {
  const name = (err as { name?: string })?.name;
  return name === 'ConditionalCheckFailedException' || name === 'TransactionCanceledException';
}

/** DynamoDB's item size from attribute values (names + values; maps/lists with their overhead). */
export function itemBytes(item: Record<string, AttributeValue>): number {
  let n = 0;
  for (const [name, v] of Object.entries(item)) n += Buffer.byteLength(name) + valueBytes(v);
  return n;
}

function valueBytes(v: AttributeValue): number {
  if (v.S !== undefined) return Buffer.byteLength(v.S);
  if (v.N !== undefined) return numberBytes(v.N);
  if (v.B !== undefined) return v.B.length;
  if (v.BOOL !== undefined || v.NULL !== undefined) return 1;
  if (v.SS) return v.SS.reduce((s, x) => s + Buffer.byteLength(x), 0);
  if (v.NS) return v.NS.reduce((s, x) => s + numberBytes(x), 0);
  if (v.BS) return v.BS.reduce((s, x) => s + x.length, 0);
  if (v.L) return 3 + v.L.reduce((s, x) => s + 1 + valueBytes(x), 0);
  if (v.M)
    return 3 + Object.entries(v.M).reduce((s, [k, x]) => s + Buffer.byteLength(k) + 1 + valueBytes(x), 0);
  return 0;
}

/** About one byte per two significant digits, plus one. */
function numberBytes(n: string): number {
  const digits = n
    .replace(/^-/, '')
    .replace(/e.*$/i, '')
    .replace('.', '')
    .replace(/^0+/, '')
    .replace(/0+$/, '');
  return Math.ceil(Math.max(1, digits.length) / 2) + 1;
}

/** One write unit per started KB of the larger of the before and after images (at least one). */
const writeUnits = (bytes: number) => Math.max(1, Math.ceil(bytes / 1024));

export interface MeterOptions {
  /** Asked at the moment a command is sent. */
  stageOf: () => string;
  /**
   * A client on the same table that is not metered: reads item images for the exact accounting of
   * transactions. Without it, transactional `corrected` figures are unknown.
   */
  probe?: DynamoDBClient;
}

export class CapacityMeter {
  private tallies = new Map<string, Tally>();
  /**
   * Account TransactWriteItems exactly: read every item (consistently, on the probe client) before
   * and after the transaction and bill 2 × ⌈max(before, after) / 1 KB⌉ per item, as DynamoDB does.
   * The reads add round trips: switch it on only where nothing is being timed.
   */
  exactTransactions = false;

  constructor(private readonly opts: MeterOptions) {}

  install(hooks: DbHooks): () => void {
    return hooks.aroundCall(async (command, given, next) => {
      if (!READS.has(command) && !WRITES.has(command)) return next();
      const input = { ...given, ReturnConsumedCapacity: 'TOTAL' };
      const stage = this.opts.stageOf();
      const keys = keysOf(command, input);
      const label = `${command} ${keys}`.trim();
      const exact = command === 'TransactWriteItems' && this.exactTransactions && this.opts.probe;
      const before = exact ? await this.images(input) : undefined;
      try {
        const out = await next(input);
        const units = unitsOf(out.ConsumedCapacity);
        let items: ItemUnits[] | undefined;
        if (before) {
          const after = await this.images(input);
          items = before.map((b, i) => {
            const bytes = Math.max(b.bytes, b.op === 'Put' || b.op === 'Update' ? after[i].bytes : 0);
            return {
              prefix: b.prefix,
              bytes,
              units: writeUnits(bytes),
              indexUnits: indexWrites(b.indexKeys, after[i].indexKeys),
            };
          });
        }
        this.add({ stage, command, label, keys, units, failed: false, items });
        return out;
      } catch (err) {
        const units = unitsOf((err as Input)?.ConsumedCapacity);
        const failed = isConditionFailure(err);
        const billed = failed && units === undefined ? failedWriteUnits(command, input, before) : 0;
        this.add({ stage, command, label, keys, units, failed, billed });
        throw err;
      }
    });
  }

  /** The current size of every item a transaction names, read on the probe client. */
  private async images(
    input: Input,
  ): Promise<{ op: string; prefix: string; bytes: number; indexKeys: string[] }[]> {
    const probe = this.opts.probe!;
    return Promise.all(
      ((input.TransactItems as Input[] | undefined) ?? []).map(async (t) => {
        const [op, body] = Object.entries(t)[0] as [string, Input];
        const item = body.Item as Input | undefined;
        const key = (body.Key as Input | undefined) ?? { pk: item?.pk, sk: item?.sk };
        const out = await probe.send(
          new GetItemCommand({
            TableName: String(body.TableName),
            Key: marshall(key),
            ConsistentRead: true,
          }),
        );
        const indexKeys = INDEXES.map(([pk, sk]) =>
          out.Item?.[pk] ? `${JSON.stringify(out.Item[pk])}|${JSON.stringify(out.Item[sk])}` : '',
        );
        return { op, prefix: skPrefix(key.sk), bytes: out.Item ? itemBytes(out.Item) : 0, indexKeys };
      }),
    );
  }

  private add(c: {
    stage: string;
    command: string;
    label: string;
    keys: string;
    units: number | undefined;
    failed: boolean;
    /** What DynamoDB bills for a failed write it reported no figure for (failedWriteUnits). */
    billed?: number;
    items?: ItemUnits[];
  }) {
    const key = `${c.stage}\u0000${c.label}`;
    let t = this.tallies.get(key);
    if (!t) {
      t = {
        stage: c.stage,
        label: c.label,
        items: namesIn(c.keys),
        command: c.command,
        kind: READS.has(c.command) ? 'read' : 'write',
        calls: 0,
        units: 0,
        corrected: 0,
        indexUnits: 0,
        inexact: 0,
        itemUnits: new Map(),
        failed: 0,
        unreported: 0,
        failedBilled: 0,
      };
      this.tallies.set(key, t);
    }
    t.calls++;
    t.units += c.units ?? 0;
    if (c.failed) t.failed++;
    if (c.units === undefined) t.unreported++;
    t.failedBilled += c.billed ?? 0;
    if (!TRANSACTIONAL.has(c.command)) {
      t.corrected += c.units ?? 0;
    } else if (c.items) {
      for (const i of c.items) {
        t.corrected += 2 * i.units + i.indexUnits;
        t.indexUnits += i.indexUnits;
        const u = t.itemUnits.get(i.prefix) ?? { units: 0, bytes: 0, n: 0 };
        t.itemUnits.set(i.prefix, { units: u.units + i.units, bytes: u.bytes + i.bytes, n: u.n + 1 });
      }
    } else if (!c.failed) {
      t.inexact++;
    }
  }

  /** Everything counted since the last collect, and start counting afresh. */
  collect(): Tally[] {
    const out = [...this.tallies.values()];
    this.tallies = new Map();
    return out;
  }
}

interface ItemUnits {
  prefix: string;
  /** The larger of the before and after images. */
  bytes: number;
  units: number;
  /** Writes to the KEYS_ONLY indexes: 1 to add or remove an entry, 2 to move it, 0 if unchanged. */
  indexUnits: number;
}

/** The table's sparse KEYS_ONLY indexes (functions/local/table.ts, lib/data.ts). */
const INDEXES = [
  ['gsi1pk', 'gsi1sk'],
  ['gsi2pk', 'gsi2sk'],
] as const;

/**
 * DynamoDB bills an index write per entry added or removed (two when its key changes) — standard
 * writes, not doubled. DynamoDB Local includes them in a plain write's ConsumedCapacity but not in
 * the per-item figures a transaction is corrected from, so they are added here.
 */
function indexWrites(before: string[], after: string[]): number {
  let n = 0;
  for (let i = 0; i < before.length; i++) {
    if (before[i] === after[i]) continue;
    n += before[i] && after[i] ? 2 : 1;
  }
  return n;
}

export interface Totals {
  calls: number;
  rcu: number;
  wcu: number;
  rcuCorrected: number;
  wcuCorrected: number;
  failed: number;
  unreported: number;
  failedBilled: number;
  inexact: number;
}

export function totals(tallies: Tally[], stages?: string[]): Totals {
  const t: Totals = {
    calls: 0,
    rcu: 0,
    wcu: 0,
    rcuCorrected: 0,
    wcuCorrected: 0,
    failed: 0,
    unreported: 0,
    failedBilled: 0,
    inexact: 0,
  };
  for (const x of tallies) {
    if (stages && !stages.includes(x.stage)) continue;
    t.calls += x.calls;
    t.failed += x.failed;
    t.unreported += x.unreported;
    t.failedBilled += x.failedBilled;
    t.inexact += x.inexact;
    if (x.kind === 'read') {
      t.rcu += x.units;
      t.rcuCorrected += x.corrected;
    } else {
      t.wcu += x.units;
      t.wcuCorrected += x.corrected;
    }
  }
  return t;
}

/**
 * The write units a refused conditional write bills on DynamoDB: the item's units (at least 1; from
 * the item as it stood when a transaction's images were read), doubled for a transaction, per item.
 */
function failedWriteUnits(command: string, input: Input, before?: { bytes: number }[]): number {
  if (!TRANSACTIONAL.has(command)) return 1;
  if (before) return before.reduce((sum, b) => sum + 2 * Math.max(1, writeUnits(b.bytes)), 0);
  return 2 * (((input.TransactItems as Input[] | undefined) ?? []).length || 1);
}
