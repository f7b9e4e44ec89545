import { type Config, type Deps, defaultConfig, ulidFrom } from './deps.ts';
import { sqsEventSink } from './events/event-sink.ts';
import { jsonLogger } from './log.ts';
import { stepFunctionsDispatcher } from './send/dispatcher.ts';
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

export function lambdaDeps(service: string): Deps {
  if (deps) return deps;
  const clock = () => Date.now();
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
    config: {
      simEventDelaySeconds: Number(process.env.PMAIL_SIM_EVENT_DELAY_S ?? defaultConfig.simEventDelaySeconds),
      hashKey: required('PM_HASH_KEY'),
      // PM_LINK_KEYS: JSON [{ "kid": "k2", "secret": "…" }, …], the signing key first.
      linkKeys: JSON.parse(required('PM_LINK_KEYS')) as Config['linkKeys'],
      apiBaseUrl: required('PM_API_BASE_URL'),
      linkTtlHours: Number(process.env.PM_LINK_TTL_HOURS ?? defaultConfig.linkTtlHours),
    },
  };
  return deps;
}
