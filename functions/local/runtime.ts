import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildConsole } from '../../console/build.ts';
import { consoleApi } from '../api/console.api.ts';
import { directoryApi } from '../api/directory.api.ts';
import { domainsApi } from '../api/domains.api.ts';
import { eventsApi } from '../api/events.api.ts';
import type { ApiEvent, ApiResult } from '../api/http.ts';
import { identitiesApi } from '../api/identities.api.ts';
import { keysApi } from '../api/keys.api.ts';
import { linksApi } from '../api/links.api.ts';
import { mcpApi } from '../api/mcp.api.ts';
import { messagesApi } from '../api/messages.api.ts';
import { type MetaPorts, metaApi } from '../api/meta.api.ts';
import type { RouteGroup } from '../api/routes.ts';
import { templatesApi } from '../api/templates.api.ts';
import { tenantsApi } from '../api/tenants.api.ts';
import { threadsApi } from '../api/threads.api.ts';
import { webhooksApi } from '../api/webhooks.api.ts';
import { type Config, type Deps, defaultConfig, ulidFrom } from '../deps.ts';
import { autoVerifyingIdentities, type SesIdentities } from '../domains/ses-identities.ts';
import { localSmtpProbe } from '../domains/smtp-probe.ts';
import { ingestBatch } from '../inbound/ingest.ts';
import { type LambdaService, portsFor } from '../lambda-ports.ts';
import { jsonLogger, type Logger } from '../log.ts';
import { type MemoryMetrics, memoryMetrics } from '../metrics.ts';
import { folderBlobStore } from '../store/blobs.ts';
import { createDb, type DynamoDb } from '../store/dynamodb.ts';
import { folderSecretStore, type SecretStore } from '../store/relay-secrets.store.ts';
import { type SweepReport, sweep } from '../sweeper/sweeper.ts';
import type { SmtpSettings } from '../transports/smtp.transport.ts';
import { transportTask } from '../transports/tasks.ts';
import { asLambda, recordedPort, recordThrough, viewAs } from './aws-calls.ts';
import { DNS_ZONE_FILE, zoneFileResolver } from './dns-zone.ts';
import { type LocalMx, startLocalMx } from './mx.ts';
import type { MxResolver } from './mx-auth.ts';
import { LocalQueue } from './queue.ts';
import { type LocalFaults, LocalSendMachine } from './state-machine.ts';
import { LocalStreamGateway, type LocalStreamOptions } from './stream-gateway.ts';
import { ensureTable } from './table.ts';
import {
  LOCAL_SECRET_PREFIX,
  type LocalTransportOptions,
  localSmtpPorts,
  localSmtpSettings,
} from './transports.ts';
import { localWebhooks } from './webhooks.ts';

export interface LocalRuntimeOptions {
  endpoint: string;
  table?: string;
  stateDir: string;
  clock?: () => number;
  log?: Logger;
  config?: Partial<Config>;
  /** Scale of queue delays and visibility timeouts (1000 = real seconds; tests use less). */
  queueSecondsToMs?: number;
  /** Keep unacked queue messages in `{stateDir}/queue` across restarts (`npm start`). */
  durableQueue?: boolean;
  /** Test-only faults of the transport tasks (functions/local/state-machine.ts › LocalFaults). */
  faults?: LocalFaults;
  dispatcher?: Deps['dispatcher'];
  /** Milliseconds of the Standard machine's Wait states (tests: 0, with the clock moved instead). */
  waitTimeOverrides?: Record<string, number>;
  /** Run the sweeper every this many milliseconds (`npm start`: 60 s); tests call `sweep()`. */
  sweepEveryMs?: number;
  /**
   * Deliver webhooks: read the table's stream and fan out to the webhook-deliveries queue
   * (`npm start`; tests that want it). Off by default, since every runtime reading the shared
   * stream would deliver every tenant's events once more.
   */
  webhooks?: boolean;
  /**
   * The SES control plane of the domains API (no local engine implements it): default
   * `autoVerifyingIdentities` (every domain verifies at once); tests pass `sesIdentities` over a
   * client mocked with aws-sdk-client-mock.
   */
  sesIdentities?: SesIdentities;
  /** The SES endpoint live domains created here send through (`npm start`: its aws-ses-v2-local). */
  sesEndpoint?: string;
  /** Multiplies the webhook retry schedule (tests: 0.001, so 30 s becomes 30 ms). */
  webhookScheduleScale?: number;
  /** SMTP relay adapter settings (the SSRF opt-out is on locally; tests add a relay's CA). */
  smtp?: SmtpSettings;
  /** Cloudflare adapter settings (functions/local/transports.ts). */
  cloudflare?: LocalTransportOptions['cloudflare'];
  /**
   * Run the local MX (functions/local/mx.ts) on 127.0.0.1 at this port (0: a free one), its
   * notifications on the ingest queue, its DNS the zone file `{stateDir}/dns.zone` unless a
   * `resolver` is given. Off when absent (`npm start` turns it on).
   */
  inbound?: { port: number; resolver?: MxResolver };
  /**
   * Serve the event stream (functions/local/stream-gateway.ts): its gateway reads the table's
   * stream and runs its schedule; hand `stream` to the HTTP server. Off when absent (`npm start`
   * turns it on).
   */
  stream?: LocalStreamOptions;
}

export interface LocalRuntime {
  deps: Deps;
  /** The metrics every component counted (the same names production writes as EMF). */
  metrics: MemoryMetrics;
  machine: LocalSendMachine;
  queue: LocalQueue;
  /** The webhook-deliveries queue (its consumer is the deliverer). */
  webhookQueue: LocalQueue;
  /** The ingest queue (its consumer is the ingest, functions/inbound/ingest.handler.ts). */
  inboundQueue: LocalQueue;
  /** The local MX, when `inbound` asked for it. */
  mx?: LocalMx;
  /** The event stream's gateway, when `stream` asked for it (the HTTP server's upgrade). */
  stream?: LocalStreamGateway;
  groups: Record<RouteGroup, (e: ApiEvent) => Promise<ApiResult>>;
  /** The relays' secrets (`{stateDir}/secrets`; Secrets Manager in AWS). */
  secrets: SecretStore;
  /** One pass of the sweeper (functions/sweeper), as the schedule runs it. */
  sweep(): Promise<SweepReport>;
  /** Wait until no execution runs and the queue is empty. */
  settle(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Everything `npm start` and the tests run, wired around the real engines: DynamoDB Local, the ASL
 * run locally, the in-process events queue, a blob folder. Production wiring is functions/env.ts.
 * Each component is given `portsFor(deps, S)`: exactly the ports its Lambda `S` is built with
 * (functions/lambda-ports.ts).
 */
export async function createLocalRuntime(opts: LocalRuntimeOptions): Promise<LocalRuntime> {
  const { deps, metrics } = await localDeps(opts);
  const secrets = folderSecretStore(join(opts.stateDir, 'secrets'));
  const engines = await startEngines(deps, secrets, opts);
  const stream = opts.stream
    ? new LocalStreamGateway(deps, { ...opts.stream, endpoint: opts.endpoint, stateDir: opts.stateDir })
    : undefined;
  await stream?.start();
  const sweepOnce = () => sweep(portsFor(deps, 'sweeper'));
  const timer =
    opts.sweepEveryMs === undefined
      ? undefined
      : setInterval(() => {
          sweepOnce().catch((err) => deps.log.error('sweep failed', { error: String(err) }));
        }, opts.sweepEveryMs);
  timer?.unref();
  return {
    deps,
    metrics,
    machine: engines.machine,
    secrets,
    sweep: sweepOnce,
    queue: engines.queue,
    webhookQueue: engines.webhooks.queue,
    inboundQueue: engines.inboundQueue,
    mx: engines.mx,
    stream,
    groups: routeGroups(deps, secrets, opts),
    settle: () => settle(engines),
    close: async () => {
      if (timer) clearInterval(timer);
      await stream?.stop();
      await closeEngines(engines);
      (deps.db as DynamoDb).destroy();
    },
  };
}

/** The full set of local ports (every component takes its share) and the table they read. */
async function localDeps(opts: LocalRuntimeOptions): Promise<{ deps: Deps; metrics: MemoryMetrics }> {
  const clock = opts.clock ?? (() => Date.now());
  const metrics = memoryMetrics();
  const deps: Deps = {
    db: createDb({ table: opts.table ?? 'pmail', endpoint: opts.endpoint }),
    blobs: folderBlobStore(join(opts.stateDir, 'blobs')),
    // Set by startEngines to the local send machine and the events queue.
    dispatcher: { start: async () => undefined },
    events: { publish: async () => undefined },
    clock,
    newId: ulidFrom(clock),
    log: opts.log ?? jsonLogger({ service: 'local' }),
    metrics,
    config: { ...defaultConfig, webhookAllowLocalHttp: true, ...opts.config },
  };
  await ensureTable(deps.db);
  // While the tests record AWS calls, each Lambda's ports record its calls (functions/local/aws-calls.ts).
  recordThrough(deps);
  return { deps, metrics };
}

interface Engines {
  machine: LocalSendMachine;
  queue: LocalQueue;
  inboundQueue: LocalQueue;
  mx?: LocalMx;
  webhooks: { queue: LocalQueue; close(): Promise<void> };
}

/**
 * The send machine (Claim, the transport tasks, Record), the delivery-events queue, the ingest
 * queue and its MX, and the webhooks; the machine and the queue become `deps`' dispatcher and
 * events port.
 */
async function startEngines(deps: Deps, secrets: SecretStore, opts: LocalRuntimeOptions): Promise<Engines> {
  const machine = new LocalSendMachine(
    portsFor(deps, 'send-attempt'),
    {},
    {
      waitTimeOverrides: opts.waitTimeOverrides,
      faults: opts.faults,
      transportOptions: {
        secrets,
        smtp: opts.smtp,
        cloudflare: opts.cloudflare,
        sesEndpoint: opts.sesEndpoint,
      },
    },
  );
  const queue = new LocalQueue(portsFor(deps, 'delivery-events'), {
    secondsToMs: opts.queueSecondsToMs ?? 1000,
    dir: opts.durableQueue ? join(opts.stateDir, 'queue') : undefined,
  });
  deps.dispatcher = opts.dispatcher ?? machine;
  deps.events = queue;
  // SES receiving's way in: the S3 action's notification on the ingest queue (SNS → SQS in AWS).
  const ingestPorts = portsFor(deps, 'inbound-ingest');
  const inboundQueue = new LocalQueue(portsFor(deps, 'inbound-ingest'), {
    secondsToMs: opts.queueSecondsToMs ?? 1000,
    maxReceives: 5,
    dir: opts.durableQueue ? join(opts.stateDir, 'inbound-queue') : undefined,
    // The Lambda's consumer (functions/inbound/ingest.handler.ts): a failed record comes back.
    consume: (event) => ingestBatch(ingestPorts, event),
  });
  // The MX stands in for SES receiving, which stores each message itself (under the bucket policy).
  const mx = opts.inbound
    ? await startLocalMx(viewAs(deps, 'aws:ses-receiving'), {
        port: opts.inbound.port,
        queue: inboundQueue,
        // The MX's DNS is the zone file in the state folder (`.pmail/dns.zone` under npm start).
        resolver: opts.inbound.resolver ?? zoneFileResolver(join(opts.stateDir, DNS_ZONE_FILE)),
      })
    : undefined;
  const webhooks = await localWebhooks(
    portsFor(deps, 'webhook-fan-out'),
    portsFor(deps, 'webhook-deliverer'),
    {
      endpoint: opts.endpoint,
      stateDir: opts.stateDir,
      durable: opts.durableQueue === true,
      stream: opts.webhooks === true,
      scheduleScale: opts.webhookScheduleScale,
    },
  );
  return { machine, queue, inboundQueue, mx, webhooks };
}

/** Wait until no execution runs and every queue is empty (each can feed another). */
async function settle(e: Engines): Promise<void> {
  for (let i = 0; i < 100; i++) {
    await e.machine.idle();
    await e.inboundQueue.idle();
    await e.queue.idle();
    await e.webhooks.queue.idle();
    await e.machine.idle();
    if (e.machine.idleNow() && e.queue.idleNow() && e.webhooks.queue.idleNow() && e.inboundQueue.idleNow())
      return;
  }
}

async function closeEngines(e: Engines): Promise<void> {
  await e.mx?.close();
  e.inboundQueue.close();
  e.machine.abortAll();
  await e.machine.idle();
  e.queue.close();
  await e.webhooks.close();
}

/**
 * Every route group with its Lambda's ports: each takes `DepsFor<S>` and is handed
 * `portsFor(deps, S)`, which holds exactly those (functions/lambda-ports.ts).
 */
function routeGroups(
  deps: Deps,
  secrets: SecretStore,
  opts: LocalRuntimeOptions,
): Record<RouteGroup, (e: ApiEvent) => Promise<ApiResult>> {
  const of = <S extends LambdaService>(service: S) => portsFor(deps, service);
  const smtpOptions = { secrets, smtp: opts.smtp };
  const mcp = of('api-mcp');
  // In AWS the SMTP transport Lambda runs the relay probe (the domains API invokes it): locally too.
  const smtpProbe = localSmtpProbe(
    of('send-attempt').db,
    localSmtpPorts(deps, smtpOptions),
    localSmtpSettings(smtpOptions),
  );
  const groups: Record<RouteGroup, (e: ApiEvent) => Promise<ApiResult>> = {
    messages: messagesApi(of('api-messages')),
    identities: identitiesApi(of('api-identities')),
    tenants: tenantsApi(of('api-tenants')),
    links: linksApi(of('api-links')),
    events: eventsApi(of('api-events')),
    webhooks: webhooksApi(of('api-webhooks')),
    domains: domainsApi(of('api-domains'), {
      identities: recordedPort('sesIdentities', opts.sesIdentities ?? autoVerifyingIdentities()),
      sesEndpoint: opts.sesEndpoint,
      // The relay credentials and the probe: the same ports as the local SMTP adapter's.
      secrets: recordedPort('relaySecrets', secrets),
      secretPrefix: LOCAL_SECRET_PREFIX,
      probeSmtp: recordedPort('smtpProbe', (d: Parameters<typeof smtpProbe>[0], timeoutMs: number) =>
        asLambda({ service: 'send-attempt', part: transportTask('smtp').state }, () =>
          smtpProbe(d, timeoutMs),
        ),
      ),
      allowLocalRelays: localSmtpSettings(smtpOptions).allowLocalRelays,
    }),
    templates: templatesApi(of('api-templates')),
    threads: threadsApi(of('api-threads')),
    keys: keysApi(of('api-keys')),
    directory: directoryApi(of('api-directory')),
    meta: metaApi(of('api-meta'), localMetaPorts()),
    // The web console, built from console/src on its first request.
    console: consoleApi(deps, { assets: async () => buildConsole() }),
    // The MCP server's tools call the messages and events route groups in process.
    mcp: mcpApi(mcp, { messages: messagesApi(mcp), events: eventsApi(mcp), threads: threadsApi(mcp) }),
  };
  // Each group runs as its Lambda (`api-{group}`, functions/lambda-ports.ts).
  return Object.fromEntries(
    Object.entries(groups).map(([group, handle]) => [
      group,
      (e: ApiEvent) => asLambda({ service: `api-${group}` }, () => handle(e)),
    ]),
  ) as typeof groups;
}

/** `/health` and `/openapi.json` locally: the repository's openapi.yaml, the in-process machines. */
function localMetaPorts(): MetaPorts {
  const root = new URL('../../', import.meta.url);
  const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { version: string };
  return {
    version: pkg.version,
    openapi: async () => {
      const { parse } = await import('yaml');
      return JSON.stringify(parse(readFileSync(new URL('openapi.yaml', root), 'utf8')));
    },
    stateMachines: recordedPort('stateMachines', async () => 'ok' as const),
  };
}
