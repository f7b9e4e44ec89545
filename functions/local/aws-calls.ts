import { AsyncLocalStorage } from 'node:async_hooks';
import type { Deps } from '../deps.ts';
import { PORTS_VIEW } from '../lambda-ports.ts';
import type { Db } from '../store/db.ts';
import { sharesHooks } from '../store/dynamodb.ts';

/**
 * The recording of the AWS calls the test suite makes, per Lambda (docs/deploying.md › Checks
 * before a deploy). The local runtime runs every Lambda's code on stand-ins; each call a Lambda
 * makes through one of its ports is written down here with the Lambda it ran in, and
 * `npm run check:deploy` turns it into the AWS requests the port's AWS adapter makes (deploy/replay.ts)
 * and asks whether the Lambda's role may make them.
 *
 * Which Lambda a call ran in: `portsFor(deps, S)` hands out Lambda S's ports (functions/lambda-ports.ts),
 * and while recording they are wrapped to run each call as S; an entry the local runtime drives (a
 * route group, a task state of the send machine, a queue's consumer) runs as its Lambda too, which
 * also covers the ports built beside `Deps` (the domains API's SES identities, the transports'
 * clients). Nothing is recorded or wrapped unless a recording was started (the tests' setup file).
 */

/** A Lambda as the local runtime knows it: its service (functions/lambda-ports.ts) and, for a service
 * that is several Lambdas, the part (the send machine's task state). `aws:…` names an AWS service
 * acting on its own (SES receiving storing a message). */
export interface LambdaContext {
  service: string;
  part?: string;
}

/** One call of a port: what `check:deploy` replays through the port's AWS adapter. */
export interface PortCall {
  lambda: LambdaContext;
  port: string;
  method: string;
  args: unknown[];
}

const running = new AsyncLocalStorage<LambdaContext>();

/** Run `fn` as Lambda `ctx`; a context of the same service that says more (its part) is kept. */
export function asLambda<T>(ctx: LambdaContext, fn: () => T): T {
  const now = running.getStore();
  if (now && now.service === ctx.service && (ctx.part === undefined || now.part === ctx.part)) return fn();
  return running.run(ctx, fn);
}

interface Recording {
  calls: Map<string, PortCall>;
  /** Calls made outside any Lambda (a test's own setup and reads). */
  outside: number;
}

let recording: Recording | undefined;

/** Start recording in this process (the tests' setup file); the calls so far, deduplicated. */
export function startRecording(): { calls(): PortCall[]; outside(): number } {
  const r: Recording = { calls: new Map(), outside: 0 };
  recording = r;
  return { calls: () => [...r.calls.values()], outside: () => r.outside };
}

export const isRecording = (): boolean => recording !== undefined;

/** Ids, tokens and hashes: calls that differ only in them are one call to the check. */
const VARIABLE = /[0-9a-z]{16,}|[0-9]{10,}/gi;

function record(port: string, method: string, args: unknown[]): void {
  const r = recording;
  if (!r) return;
  const lambda = running.getStore();
  if (!lambda) {
    r.outside++;
    return;
  }
  const kept = args.map((a) => summary(a, 0));
  const key = `${lambda.service}|${lambda.part ?? ''}|${port}|${method}|${JSON.stringify(kept).replace(VARIABLE, '~')}`;
  if (!r.calls.has(key)) r.calls.set(key, { lambda, port, method, args: kept });
}

/**
 * What replaying a call needs of its arguments: bytes as their length, long strings cut, long lists
 * cut to two items, functions and signals dropped.
 */
function summary(v: unknown, depth: number): unknown {
  if (v === null || typeof v !== 'object') {
    if (typeof v === 'string' && v.length > 2048) return v.slice(0, 2048);
    return typeof v === 'function' ? undefined : v;
  }
  if (v instanceof Uint8Array) return { $bytes: v.length };
  if (typeof AbortSignal !== 'undefined' && v instanceof AbortSignal) return undefined;
  if (depth > 6) return undefined;
  if (Array.isArray(v)) return v.slice(0, 2).map((x) => summary(x, depth + 1));
  return Object.fromEntries(
    Object.entries(v as Record<string, unknown>)
      .map(([k, x]) => [k, summary(x, depth + 1)])
      .filter(([, x]) => x !== undefined),
  );
}

/**
 * The table's calls as the check needs them: the operation, the index of a query, the kinds of a
 * transaction's writes and the tables it names (the item values are left out).
 */
function tableCall(input: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (typeof input.IndexName === 'string') out.IndexName = input.IndexName;
  if (Array.isArray(input.TransactItems))
    out.kinds = [...new Set((input.TransactItems as object[]).flatMap((i) => Object.keys(i)))].sort();
  return out;
}

const TABLE_METHODS: Record<string, string> = {
  get: 'GetItem',
  batchGet: 'BatchGetItem',
  query: 'Query',
  put: 'PutItem',
  update: 'UpdateItem',
  delete: 'DeleteItem',
  transact: 'TransactWriteItems',
};

/** The table port, each call run as `ctx` and recorded with its operation. */
function tableAs(db: Db, ctx: LambdaContext): Db {
  // A copy (stores spread the port into wrappers of their own), its calls replaced.
  const out = { ...db } as Db & Record<string, unknown>;
  for (const [method, operation] of Object.entries(TABLE_METHODS)) {
    const call = (db as unknown as Record<string, (input: Record<string, unknown>) => Promise<unknown>>)[
      method
    ].bind(db);
    out[method] = (input: Record<string, unknown>) =>
      asLambda(ctx, () => {
        record('table', operation, [tableCall(input)]);
        return call(input);
      });
  }
  sharesHooks(out, db);
  return out;
}

/** The methods of the ports of `Deps` (their local stand-ins are classes with more). */
const PORT_METHODS: Record<string, string[]> = {
  blobs: ['put', 'get', 'delete', 'list'],
  dispatcher: ['start', 'isRunning'],
  events: ['publish'],
};

/**
 * A port whose calls are recorded as `name` (each method of an object, or the port itself when it is
 * a function), run as `ctx` when one is given, else as whatever Lambda is running. Unchanged when
 * nothing records.
 */
export function recordedPort<T>(name: string, port: T, ctx?: LambdaContext): T {
  if (!recording || port === undefined || port === null) return port;
  const wrap =
    (method: string, fn: (...a: unknown[]) => unknown, self: unknown) =>
    (...args: unknown[]) => {
      const run = () => {
        record(name, method, args);
        return fn.apply(self, args);
      };
      return ctx ? asLambda(ctx, run) : run();
    };
  if (typeof port === 'function') return wrap('call', port as never, undefined) as T;
  if (typeof port !== 'object') return port;
  const out = Object.create(port as object) as Record<string, unknown>;
  Object.assign(out, port);
  for (const key of PORT_METHODS[name] ?? methodNames(port as object)) {
    const fn = (port as Record<string, unknown>)[key];
    if (typeof fn === 'function') out[key] = wrap(key, fn as never, port);
  }
  return out as T;
}

/** The methods of an object and of its class (a LocalQueue's `publish` lives on its prototype). */
function methodNames(o: object): string[] {
  const names = new Set<string>(Object.keys(o));
  for (let p = Object.getPrototypeOf(o); p && p !== Object.prototype; p = Object.getPrototypeOf(p))
    for (const k of Object.getOwnPropertyNames(p)) if (k !== 'constructor') names.add(k);
  return [...names];
}

/** The ports that carry no AWS call (the clock, ids, the log, metrics in EMF, the configuration). */
const PLAIN_PORTS = new Set(['clock', 'newId', 'log', 'metrics', 'config']);

/** Which Lambda a view of `portsFor` belongs to (a LocalQueue runs its consumer as it). */
const VIEWS = new WeakMap<object, LambdaContext>();

export const lambdaOf = (deps: object): LambdaContext | undefined => VIEWS.get(deps);

/** Run `fn` as the Lambda whose ports `deps` are, when they are one's. */
export function asLambdaOf<T>(deps: object, fn: () => T): T {
  const ctx = VIEWS.get(deps);
  return ctx ? asLambda(ctx, fn) : fn();
}

/** `ports` as Lambda (or AWS service) `service` uses them: each call recorded and run as it. */
export function viewAs<T extends object>(ports: T, service: string): T {
  if (!recording) return ports;
  const ctx: LambdaContext = { service };
  const out: Record<string, unknown> = {};
  // One wrapper per port object (the runtime sets its dispatcher and queue after building the views).
  const wrapped = new WeakMap<object, unknown>();
  for (const name of Object.keys(ports)) {
    Object.defineProperty(out, name, {
      enumerable: true,
      get: () => {
        const port = (ports as Record<string, unknown>)[name];
        if (PLAIN_PORTS.has(name) || port === null || typeof port !== 'object') return port;
        let w = wrapped.get(port);
        if (!w) {
          w = name === 'db' ? tableAs(port as Db, ctx) : recordedPort(name, port, ctx);
          wrapped.set(port, w);
        }
        return w;
      },
    });
  }
  VIEWS.set(out, ctx);
  return out as T;
}

/**
 * Make `deps` record: every `portsFor(deps, S)` then hands out S's ports wrapped by `viewAs`.
 * A no-op unless a recording was started.
 */
export function recordThrough(deps: Deps): void {
  if (!recording) return;
  Object.defineProperty(deps, PORTS_VIEW, {
    value: (ports: object, service: string) => viewAs(ports, service),
    enumerable: false,
  });
}
