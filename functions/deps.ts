import { ulid } from 'ulid';
import type { EventSink } from './events/event-sink.ts';
import type { Logger } from './log.ts';
import type { Metrics } from './metrics.ts';
import type { Dispatcher } from './send/dispatcher.ts';
import type { BlobStore } from './store/blobs.ts';
import type { Db } from './store/db.ts';

/**
 * The ports every use case takes (docs/architecture.md › Layers). Production builds them from the
 * Lambda environment (functions/env.ts); `npm start` and the tests build them around DynamoDB Local,
 * a blob folder, the local state machine and the in-process queue (functions/local).
 */
export interface Deps {
  db: Db;
  blobs: BlobStore;
  dispatcher: Dispatcher;
  events: EventSink;
  clock: () => number;
  /** A new lower-case ULID (time part from the clock). */
  newId: () => string;
  log: Logger;
  /** Counters and latencies (functions/metrics.ts): EMF in production, in memory locally. */
  metrics: Metrics;
  config: Config;
}

/**
 * The ports every Lambda is built with: all but the costly ones (blobs, dispatcher, events), which
 * a Lambda gets only where its row of functions/lambda-ports.ts names them.
 */
export type BaseDeps = Omit<Deps, 'blobs' | 'dispatcher' | 'events'>;

export interface Config {
  /** Delay before a simulator/loopback event reaches the events queue (about a second, like a provider's). */
  simEventDelaySeconds: number;
  /** PM_HASH_KEY: the HMAC key of suppression hashes. */
  hashKey: string;
  /** Signing keys of signed links; the first one signs. */
  linkKeys: { kid: string; secret: string }[];
  /** Base URL that signed links point at, e.g. https://api.example.com (PM_API_HOST). */
  apiBaseUrl: string;
  /** Lifetime of a signed link. */
  linkTtlHours: number;
  /**
   * PM_PLATFORM_DOMAIN: the domain of the journal copies (core/journal.ts); delivery
   * events for `journal+…@{platformDomain}` are acked and ignored. Local default `pmail.invalid`.
   */
  platformDomain: string;
  /**
   * Webhook endpoints may be plain http to 127.0.0.1/localhost. The local runtime sets
   * it; production never does (functions/env.ts leaves it out).
   */
  webhookAllowLocalHttp?: boolean;
  /**
   * PM_TEST_DOMAIN: the domain under which test tenants' identities get their addresses
   * (`{username}@{tenant slug}.{testDomain}`). Default `pmail.test`.
   */
  testDomain?: string;
  /**
   * PM_STREAM_URL: the event stream's address (the WebSocket API's stage URL), answered with each
   * ticket. Absent on `npm start`: the stream is on the API's own host (`ws://{host}/v1/stream`).
   */
  streamUrl?: string;
  /** PM_STREAM_CONNECTIONS_PER_TENANT: open streams per tenant (core/stream.ts has the default). */
  streamConnectionsPerTenant?: number;
}

/** Local defaults. Production reads every value from its environment (functions/env.ts). */
export const defaultConfig: Config = {
  simEventDelaySeconds: 1,
  hashKey: 'local-development-hash-key',
  linkKeys: [{ kid: 'k1', secret: 'local-development-link-key' }],
  apiBaseUrl: 'http://127.0.0.1:8787',
  linkTtlHours: 168,
  platformDomain: 'pmail.invalid',
};

export function ulidFrom(clock: () => number): () => string {
  return () => ulid(clock()).toLowerCase();
}
