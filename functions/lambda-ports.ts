import type { BaseDeps, Deps } from './deps.ts';

export type { BaseDeps } from './deps.ts';

/**
 * Which of the costly ports each Lambda gets (cold starts). A port's AWS client (S3 for
 * `blobs`, Step Functions for `dispatcher`, SQS for `events`) is bundled into a function only if its
 * entry passes the port's factory, so each function carries only what it uses.
 *
 * The table is the one statement of it, and a compile-time fact: `DepsFor<S>` is the type of what
 * Lambda `S` is built with (the base ports and its row's, no other), so a use case given it that
 * reaches for a port outside its row does not type-check.
 *   - functions/env.ts › loadLambdaDeps takes exactly these factories for the service it is given
 *     (its type requires each one and refuses others) and returns `DepsFor<S>`;
 *   - every route group and the sweeper take `DepsFor<S>` (an API operation declares the ports it
 *     uses, `BaseDeps` where it needs none of the costly ones);
 *   - the local runtime (functions/local/runtime.ts) gives every route group, the send-attempt
 *     tasks, the events consumer, the ingest, the webhooks and the sweeper `portsFor(deps, S)`,
 *     so the integration suite runs each one's code paths with only its ports.
 * A port left out of a row is absent from the built object, in production as locally: a call to it
 * throws.
 */
export type OptionalPort = Exclude<keyof Deps, keyof BaseDeps>;

export const LAMBDA_PORTS = {
  'api-messages': ['blobs', 'dispatcher'],
  'api-links': ['blobs'],
  'api-identities': [],
  'api-tenants': [],
  'api-events': [],
  'api-webhooks': [],
  'api-keys': [],
  'api-directory': [],
  'api-meta': [],
  // Serves its built files only (functions/api/console.handler.ts builds no Deps).
  'api-console': [],
  'api-domains': [],
  'api-templates': [],
  // Reads the received raw message an attachment is served from.
  'api-threads': ['blobs'],
  // The MCP server's tools run the messages and events route groups in the same function.
  'api-mcp': ['blobs', 'dispatcher'],
  // Claim starts the named execution; Record delivers loopback mail (reads and writes blobs, publishes events).
  'send-attempt': ['blobs', 'dispatcher', 'events'],
  sweeper: ['dispatcher'],
  'delivery-events': [],
  'webhook-deliverer': [],
  'webhook-fan-out': [],
  // The event stream: its $connect authorizer, its routes ($connect, $disconnect, $default), and
  // the fan-out that posts.
  'stream-authorizer': [],
  'stream-connect': [],
  'stream-fan-out': [],
  'domain-check': [],
  // Reads the received raw message and stores each recipient's copy; routed DSNs publish delivery events.
  'inbound-ingest': ['blobs', 'events'],
} as const satisfies Record<string, readonly OptionalPort[]>;

export type LambdaService = keyof typeof LAMBDA_PORTS;
export type PortsOf<S extends LambdaService> = (typeof LAMBDA_PORTS)[S][number];

/** What Lambda `S` is built with: the base ports and exactly the costly ports of its row. */
export type DepsFor<S extends LambdaService> = BaseDeps & Pick<Deps, PortsOf<S>>;

/** Builds a port from the function's environment (`required` throws on a variable not set). */
export type PortFactory<T> = (required: (name: string) => string) => T;

const OPTIONAL_PORTS: readonly OptionalPort[] = ['blobs', 'dispatcher', 'events'];

/**
 * A deps object may carry a view of its own under this key: `portsFor` hands out what it makes of the
 * ports. The local runtime sets it while the tests record AWS calls (functions/local/aws-calls.ts).
 */
export const PORTS_VIEW = Symbol('pmail.portsView');

/**
 * `deps` as the Lambda `service` sees it: the base ports, and its row's ports read through (so a
 * port set on `deps` later, as the local runtime sets its dispatcher and queue, is seen); the ports
 * it is built without are absent.
 */
export function portsFor<S extends LambdaService>(deps: Deps, service: S): DepsFor<S> {
  const given = new Set<OptionalPort>(LAMBDA_PORTS[service]);
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(deps))
    if (!OPTIONAL_PORTS.includes(name as OptionalPort)) out[name] = value;
  for (const port of given) Object.defineProperty(out, port, { get: () => deps[port], enumerable: true });
  const view = (deps as { [PORTS_VIEW]?: (ports: object, service: string) => object })[PORTS_VIEW];
  return (view ? view(out, service) : out) as DepsFor<S>;
}
