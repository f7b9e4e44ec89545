import { createHmac } from 'node:crypto';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { type Config, type Deps, defaultConfig, ulidFrom } from './deps.ts';
import { type EventSink, sqsEventSink } from './events/event-sink.ts';
import { jsonLogger } from './log.ts';
import { emfMetrics } from './metrics.ts';
import { stepFunctionsDispatcher } from './send/dispatcher.ts';
import type { TransportTaskDeps } from './send/transport-task.ts';
import { s3BlobStore } from './store/blobs.ts';
import { createDb } from './store/db.ts';

/**
 * Production ports, built once per Lambda container from its environment (set by lib/pmail-stack.ts).
 * Clients are created lazily so a function builds only what it touches.
 */
let deps: Deps | undefined;

function required(name: string): string {
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
async function loadKeys(): Promise<Pick<Config, 'hashKey' | 'linkKeys'>> {
  let raw: { hash_key?: string; link_keys?: Config['linkKeys'] } = {};
  if (process.env.PMAIL_KEYS_SECRET_ARN) {
    const client = new SecretsManagerClient({});
    const out = await client.send(new GetSecretValueCommand({ SecretId: process.env.PMAIL_KEYS_SECRET_ARN }));
    raw = JSON.parse(out.SecretString ?? '{}');
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
    const client = new SecretsManagerClient({});
    const out = await client.send(
      new GetSecretValueCommand({ SecretId: process.env.PMAIL_CF_API_TOKEN_SECRET_ARN }),
    );
    const raw = (out.SecretString ?? '').trim();
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
): TransportTaskDeps & { events: EventSink; simEventDelaySeconds: number } {
  const clock = () => Date.now();
  const queueUrl = process.env.PMAIL_EVENTS_QUEUE_URL;
  return {
    db: createDb({ table: required('PMAIL_TABLE') }),
    blobs: s3BlobStore(required('PMAIL_BLOB_BUCKET')),
    clock,
    log: jsonLogger({ service }),
    events: queueUrl
      ? sqsEventSink(queueUrl)
      : {
          publish: async () => {
            throw new Error('PMAIL_EVENTS_QUEUE_URL is not set for this function');
          },
        },
    simEventDelaySeconds: Number(process.env.PMAIL_SIM_EVENT_DELAY_S ?? defaultConfig.simEventDelaySeconds),
  };
}

/** Build the ports once per container (top-level await in each Lambda entry). */
export async function loadLambdaDeps(service: string): Promise<Deps> {
  if (deps) return deps;
  const clock = () => Date.now();
  const keys = await loadKeys();
  deps = {
    db: createDb({ table: required('PMAIL_TABLE') }),
    blobs: s3BlobStore(required('PMAIL_BLOB_BUCKET')),
    dispatcher: process.env.PMAIL_SEND_ATTEMPT_ARN
      ? stepFunctionsDispatcher({
          attempt: process.env.PMAIL_SEND_ATTEMPT_ARN,
          send: process.env.PMAIL_SEND_ARN,
        })
      : {
          start: async () => {
            throw new Error('PMAIL_SEND_ATTEMPT_ARN is not set for this function');
          },
        },
    events: sqsEventSink(required('PMAIL_EVENTS_QUEUE_URL')),
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
      eventsSettleMs: defaultConfig.eventsSettleMs,
      platformDomain: (process.env.PM_PLATFORM_DOMAIN || defaultConfig.platformDomain).toLowerCase(),
      ...(process.env.PM_TEST_DOMAIN ? { testDomain: process.env.PM_TEST_DOMAIN.toLowerCase() } : {}),
    },
  };
  return deps;
}
