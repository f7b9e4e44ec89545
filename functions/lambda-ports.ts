import type { Deps } from './deps.ts';

/**
 * Which of the costly ports each Lambda gets (cold starts). A port's AWS client (S3 for
 * `blobs`, Step Functions for `dispatcher`, SQS for `events`) is bundled into a function only if its
 * entry passes the port's factory, so each function carries only what it uses.
 *
 * The table is the one statement of it, held from both sides:
 *   - functions/env.ts › loadLambdaDeps takes exactly these factories for the service it is given
 *     (its type requires each one and refuses others), so an entry cannot get more or fewer;
 *   - the local runtime (functions/local/runtime.ts) gives every route group, the send-attempt
 *     tasks, the events consumer, the webhooks and the sweeper the same ports through
 *     `withPorts`, the others throwing, so the integration suite runs each one's code paths with
 *     only its ports — and a call to an omitted port fails the test file even where the caller
 *     catches the error (test/setup/ports.ts reads `missingPortCalls`).
 * A port left out of a row is built as a thrower in production too: a clear error, never a silent
 * no-op.
 */
export type OptionalPort = 'blobs' | 'dispatcher' | 'events';

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
  'domain-check': [],
  // Reads the received raw message and stores each recipient's copy; routed DSNs publish delivery events.
  'inbound-ingest': ['blobs', 'events'],
} as const satisfies Record<string, readonly OptionalPort[]>;

export type LambdaService = keyof typeof LAMBDA_PORTS;
export type PortsOf<S extends LambdaService> = (typeof LAMBDA_PORTS)[S][number];

/** Builds a port from the function's environment (`required` throws on a variable not set). */
export type PortFactory<T> = (required: (name: string) => string) => T;

/** Calls to a port a function was built without (read by the test setup; empty in a sound build). */
export const missingPortCalls: string[] = [];

/** A port that throws on any use, naming the function and the port. */
export function missingPort<P extends OptionalPort>(service: string, port: P): Deps[P] {
  return new Proxy({} as Deps[P], {
    get(_, prop) {
      if (typeof prop !== 'string' || prop === 'then') return undefined;
      return () => {
        const what = `${service} used deps.${port}.${prop}, a port it is built without (functions/lambda-ports.ts)`;
        missingPortCalls.push(what);
        throw new Error(what);
      };
    },
  });
}

/**
 * `deps` as the Lambda `service` sees it: its ports read through (so ports set later, as the local
 * runtime does, are seen), the ones it is built without throwing.
 */
export function withPorts(deps: Deps, service: LambdaService): Deps {
  const given = new Set<string>(LAMBDA_PORTS[service]);
  const missing = new Map<string, unknown>();
  return new Proxy(deps, {
    get(target, prop, receiver) {
      if (prop === 'blobs' || prop === 'dispatcher' || prop === 'events') {
        if (given.has(prop)) return target[prop];
        if (!missing.has(prop)) missing.set(prop, missingPort(service, prop));
        return missing.get(prop);
      }
      return Reflect.get(target, prop, receiver);
    },
  });
}
