import { createHmac } from 'node:crypto';
import { readSecretString } from './adapters/secrets.ts';
import { type Config, type Deps, defaultConfig, ulidFrom } from './deps.ts';
import {
  type BaseDeps,
  type DepsFor,
  LAMBDA_PORTS,
  type LambdaService,
  type OptionalPort,
  type PortFactory,
  type PortsOf,
} from './lambda-ports.ts';
import { jsonLogger } from './log.ts';
import { emfMetrics } from './metrics.ts';
import type { TransportTaskDeps } from './send/transport-task.ts';
import type { BlobStore } from './store/blobs.ts';
import { createDb } from './store/dynamodb.ts';

/**
 * Production ports, built once per Lambda container from its environment (set by lib/pmail-stack.ts).
 * The costly ports (blobs, dispatcher, events) are built from the factories the entry passes — the
 * ones functions/lambda-ports.ts lists for it — so this module bundles none of their AWS clients.
 */
let deps: unknown;

export function required(name: string): string {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set`);
  return v;
}

/**
 * The keys (PM_HASH_KEY and the signed-link keys) live in one Secrets Manager secret, read once per
 * container: `{ "hash_key": "…", "link_keys": [{ "kid": "k1", "secret": "…" }] }`. When the secret has
 * no `link_keys`, one is derived from the hash key (HMAC, kid "k1"), so the stack's generated secret
 * works as it is. Outside AWS the PM_* variables may be set directly.
 */
export async function loadKeys(): Promise<Pick<Config, 'hashKey' | 'linkKeys'>> {
  let raw: { hash_key?: string; link_keys?: Config['linkKeys'] } = {};
  if (process.env.PMAIL_KEYS_SECRET_ARN) {
    raw = JSON.parse((await readSecretString(process.env.PMAIL_KEYS_SECRET_ARN)) ?? '{}');
  }
  const hashKey = raw.hash_key ?? required('PM_HASH_KEY');
  const linkKeys =
    raw.link_keys ??
    (process.env.PM_LINK_KEYS
      ? (JSON.parse(process.env.PM_LINK_KEYS) as Config['linkKeys'])
      : [{ kid: 'k1', secret: createHmac('sha256', hashKey).update('pmail link key k1').digest('hex') }]);
  return { hashKey, linkKeys };
}

/**
 * The Cloudflare API token of the events pull consumer (functions/events/cloudflare-pull.handler.ts):
 * a Secrets Manager secret the operator fills (PMAIL_CF_API_TOKEN_SECRET_ARN), holding the bare
 * token or `{ "api_token": "…" }`; outside AWS PM_CF_API_TOKEN may be set directly. Kept for five
 * minutes, so a token the operator replaces is picked up without a redeploy.
 */
let cfToken: { value: string; until: number } | undefined;
export async function loadCloudflareApiToken(now = Date.now()): Promise<string> {
  if (cfToken && cfToken.until > now) return cfToken.value;
  let value = process.env.PM_CF_API_TOKEN ?? '';
  if (process.env.PMAIL_CF_API_TOKEN_SECRET_ARN) {
    const raw = ((await readSecretString(process.env.PMAIL_CF_API_TOKEN_SECRET_ARN)) ?? '').trim();
    value = raw.startsWith('{') ? String((JSON.parse(raw) as { api_token?: string }).api_token ?? '') : raw;
  }
  if (!value) throw new Error('the Cloudflare API token is not set (PMAIL_CF_API_TOKEN_SECRET_ARN)');
  cfToken = { value, until: now + 300_000 };
  return value;
}

/**
 * The narrower ports of a transport task (functions/transports/*.handler.ts): the table and the blob
 * store, and the events queue only where the environment names it (the simulator's). No keys: a
 * transport Lambda never opens the keys secret.
 */
export function loadTransportDeps(
  service: string,
  factories: { blobs: PortFactory<BlobStore> },
): TransportTaskDeps & { simEventDelaySeconds: number } {
  const clock = () => Date.now();
  return {
    db: createDb({ table: required('PMAIL_TABLE') }),
    blobs: factories.blobs(required),
    clock,
    log: jsonLogger({ service }),
    // The cancel of a follow-up answered before its time mints its event's id (send/unless-reply.ts).
    newId: ulidFrom(clock),
    simEventDelaySeconds: Number(process.env.PMAIL_SIM_EVENT_DELAY_S ?? defaultConfig.simEventDelaySeconds),
  };
}

/** The factories of the ports `S` is built with: exactly its row of LAMBDA_PORTS. */
export type FactoriesOf<S extends LambdaService> = { [P in PortsOf<S>]: PortFactory<Deps[P]> } & {
  [P in Exclude<OptionalPort, PortsOf<S>>]?: never;
};

/**
 * Build the ports once per container (top-level await in each Lambda entry). `factories` are the
 * ones the service's row of functions/lambda-ports.ts names (the type requires exactly those);
 * the deps returned hold those and the base ports, and no other costly port.
 */
export async function loadLambdaDeps<S extends LambdaService>(
  service: S,
  factories: FactoriesOf<S>,
): Promise<DepsFor<S>> {
  if (deps) return deps as DepsFor<S>;
  const given = factories as Partial<{ [P in OptionalPort]: PortFactory<Deps[P]> }>;
  const ports = Object.fromEntries(
    (LAMBDA_PORTS[service] as readonly OptionalPort[]).map((p) => {
      const factory = given[p];
      if (!factory) throw new Error(`${service} is built with ${p} but its entry passed no factory of it`);
      return [p, factory(required)];
    }),
  ) as Pick<Deps, PortsOf<S>>;
  const built: DepsFor<S> = { ...(await baseDeps(service)), ...ports };
  deps = built;
  return built;
}

/** The ports every Lambda is built with, from its environment and the keys secret. */
async function baseDeps(service: string): Promise<BaseDeps> {
  const clock = () => Date.now();
  const keys = await loadKeys();
  return {
    db: createDb({ table: required('PMAIL_TABLE') }),
    clock,
    newId: ulidFrom(clock),
    log: jsonLogger({ service }),
    metrics: emfMetrics(),
    config: {
      simEventDelaySeconds: Number(process.env.PMAIL_SIM_EVENT_DELAY_S ?? defaultConfig.simEventDelaySeconds),
      ...keys,
      // Only the API's functions build signed links; the others never read it.
      apiBaseUrl: (process.env.PM_API_BASE_URL ?? '').replace(/\/+$/, ''),
      linkTtlHours: Number(process.env.PM_LINK_TTL_HOURS ?? defaultConfig.linkTtlHours),
      platformDomain: (process.env.PM_PLATFORM_DOMAIN || defaultConfig.platformDomain).toLowerCase(),
      ...(process.env.PM_TEST_DOMAIN ? { testDomain: process.env.PM_TEST_DOMAIN.toLowerCase() } : {}),
      ...(process.env.PM_STREAM_URL ? { streamUrl: process.env.PM_STREAM_URL } : {}),
      ...(process.env.PM_STREAM_CONNECTIONS_PER_TENANT
        ? { streamConnectionsPerTenant: Number(process.env.PM_STREAM_CONNECTIONS_PER_TENANT) }
        : {}),
    },
  };
}
