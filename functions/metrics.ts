import { Metrics as PowertoolsMetrics } from '@aws-lambda-powertools/metrics';
import type { TransportResult } from './core/transport-result.ts';

/**
 * pmail's metrics: every name, unit and dimension is written here once. The emitters
 * (through the `Metrics` port), the dashboard (lib/dashboard.ts) and the alarms (lib/alarms.ts) all
 * read this table, and test/infra checks that the dashboard shows exactly these names.
 *
 * One namespace; each metric is published twice in the same EMF record: as a total (dimension
 * `service` only, a constant) and broken down by its own few dimensions, whose values are small
 * closed sets (an error code, a transport, an outcome class) — never a tenant, identity, message or
 * event id. The EMF port drops any dimension a metric does not declare.
 */
export const METRICS_NAMESPACE = 'pmail';
/** The one default dimension Powertools adds to every metric, with one constant value. */
export const METRICS_SERVICE = 'pmail';

type Unit = 'Count' | 'Milliseconds';
interface MetricDef {
  unit: Unit;
  /** The breakdown dimensions (the total has none besides `service`). */
  dims: readonly string[];
  help: string;
}

const count = (help: string, ...dims: string[]): MetricDef => ({ unit: 'Count', dims, help });

export const METRICS = {
  // The send funnel (functions/api/messages/submit.ts).
  sends_accepted: count('send/reply/forward requests answered 202 with a new message'),
  sends_deduplicated: count('requests answered with an earlier request’s message (same Idempotency-Key)'),
  sends_refused: count('send requests refused with a pmail error, by error code', 'code'),
  sends_dry_run: count('dry runs answered'),
  // Transport outcomes (functions/send/attempt.ts › record).
  attempts: count('provider attempts recorded, by transport and outcome class', 'transport', 'outcome'),
  send_latency: {
    unit: 'Milliseconds',
    dims: ['transport'],
    help: 'from the API accepting a message to the provider accepting it',
  } satisfies MetricDef,
  // The guarantee.
  uncertain_created: count('messages that became uncertain, by reason', 'reason'),
  uncertain_resolved: count('uncertain messages resolved by an operator, by outcome', 'outcome'),
  reconciled: count('uncertain messages reconciled from a provider event'),
  reconcile_ambiguous: count('provider events that matched several uncertain messages (nothing changed)'),
  stale_claims: count('claims of dead attempts found (the message became uncertain)', 'by'),
  sweeper_runs: count('sweeper passes'),
  sweeper_redispatched: count('queued messages the sweeper dispatched again'),
  // Delivery and reputation (functions/events/consume.ts).
  delivery_events: count('provider delivery events applied, by kind', 'kind'),
  delivery_orphaned: count('delivery events whose message was never found (acked after 330 s)'),
  delivery_unroutable: count('delivery events whose sender is no pmail address'),
  delivery_unknown_type: count('delivery events of a type pmail cannot read (acked)'),
  delivery_journal_ignored: count('delivery events about journal copies (acked, ignored)'),
  delivery_ambiguous: count('delivery events whose provider id two messages hold (applied to neither)'),
  cloudflare_adopt_ambiguous: count(
    'Cloudflare events matching several REST sends awaiting their id (nothing changed)',
  ),
  suppressions_created: count('suppressions created, by reason', 'reason'),
  identities_auto_paused: count('identities paused by the abuse threshold'),
  // Receiving (functions/inbound/ingest.ts).
  inbound_stored: count('received messages stored, by how far they were parsed', 'parse'),
  inbound_duplicates: count(
    'received messages already stored for that recipient (a repeat, not stored again)',
  ),
  inbound_unknown_recipients: count('envelope recipients that are no identity address (dropped)'),
  inbound_held: count('received messages held back from the agent, by reason', 'reason'),
  inbound_held_rate: count('received messages of strangers held past the stranger rate'),
  inbound_held_dropped: count('received messages that would be held, past the held caps (not stored)'),
  // Webhooks (functions/webhooks).
  webhook_deliveries: count('webhook delivery attempts, by result (dead: the last attempt failed)', 'result'),
  webhook_malformed: count('webhook jobs that could not be read (acked)'),
  webhook_fanout_skipped: count('outbox stream records the fan-out could not read (skipped)'),
  // The event stream (functions/api/stream, functions/stream).
  stream_connections: count('streams opened, by result (opened, or why refused)', 'result'),
  stream_frames: count('frames the fan-out posted, by frame type', 'type'),
  stream_closed: count(
    'streams pmail closed, by reason (gone: the gateway no longer had the socket)',
    'reason',
  ),
  stream_fanout_lag: {
    unit: 'Milliseconds',
    dims: [],
    help: 'from an event’s commit to the fan-out posting it to a stream',
  } satisfies MetricDef,
  // The Cloudflare events pull consumer (functions/events/cloudflare-pull.ts).
  cloudflare_events_forwarded: count('Cloudflare events forwarded to the delivery-events queue'),
  cloudflare_forward_failed: count('Cloudflare events SQS refused (they come back after their lease)'),
  cloudflare_api_failed: count('failed calls to the Cloudflare Queues API, by action', 'action'),
  // Received delivery status notifications (functions/inbound/dsn.ts).
  dsn_routed: count('received DSNs proven to answer an outbound copy, turned into delivery events'),
  dsn_unmatched: count('received DSNs that proved nothing (kept as mail, flagged dsn, changing nothing)'),
} as const satisfies Record<string, MetricDef>;

export type MetricName = keyof typeof METRICS;
export const METRIC_NAMES = Object.keys(METRICS) as MetricName[];
type DimsOf<N extends MetricName> = (typeof METRICS)[N]['dims'][number];

/** The metrics port (Deps.metrics): one call per thing that happened. */
export interface Metrics {
  /** Add `value` (default 1) to `name`, broken down by the metric's declared dimensions. */
  add<N extends MetricName>(name: N, dims?: { [K in DimsOf<N>]: string }, value?: number): void;
}

/** The outcome class of one provider attempt (the `outcome` dimension of `attempts`). */
export function attemptOutcomeClass(result: TransportResult): string {
  switch (result.type) {
    case 'accepted':
      return result.deferred.length > 0 ? 'deferred' : 'accepted';
    case 'rejected':
      return 'refused';
    case 'retry_later':
      return `backoff_${result.class.toLowerCase()}`;
    case 'unknown':
      return 'unknown';
  }
}

/**
 * One recorded provider attempt: `attempts` by outcome class, and `send_latency` when accepted,
 * measured from the accept (or, for a scheduled send, from its `send_at`).
 */
export function countAttempt(
  metrics: Metrics,
  result: TransportResult,
  message: { created_at: number; send_at?: number },
  now: number,
): void {
  const transport = result.provider ?? 'none';
  metrics.add('attempts', { transport, outcome: attemptOutcomeClass(result) });
  const from = Math.max(message.created_at, message.send_at ?? 0);
  if (result.type === 'accepted') metrics.add('send_latency', { transport }, Math.max(0, now - from));
}

/** Only the declared dimensions, each a short string (a value is never an id: see above). */
function declared(name: MetricName, dims: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const d of METRICS[name].dims) out[d] = String(dims?.[d] ?? 'none').slice(0, 64) || 'none';
  return out;
}

/** Metrics kept in memory: `npm start` prints them on exit; tests read them. */
export interface MemoryMetrics extends Metrics {
  /** The sum of `name`, over every breakdown matching `dims` (all of them when omitted). */
  get(name: MetricName, dims?: Record<string, string>): number;
  /** Every series as `name{dim=value,…} sum`, sorted. */
  lines(): string[];
  reset(): void;
}

export function memoryMetrics(): MemoryMetrics {
  const series = new Map<string, { name: MetricName; dims: Record<string, string>; sum: number }>();
  return {
    add(name, dims, value = 1) {
      const d = declared(name, dims as Record<string, string> | undefined);
      const key = `${name}{${Object.entries(d)
        .map(([k, v]) => `${k}=${v}`)
        .join(',')}}`;
      const s = series.get(key) ?? { name, dims: d, sum: 0 };
      s.sum += value;
      series.set(key, s);
    },
    get(name, dims = {}) {
      let sum = 0;
      for (const s of series.values()) {
        if (s.name === name && Object.entries(dims).every(([k, v]) => s.dims[k] === v)) sum += s.sum;
      }
      return sum;
    },
    lines() {
      return [...series.entries()].map(([k, s]) => `${k.replace('{}', '')} ${s.sum}`).sort();
    },
    reset() {
      series.clear();
    },
  };
}

export const noMetrics: Metrics = { add() {} };

/**
 * CloudWatch embedded metric format through @aws-lambda-powertools/metrics: each call is published
 * at once as one EMF line on stdout (a single-metric record), so nothing waits for a flush at the
 * end of the invocation and a handler that throws loses no count. Dimension sets: `[service]` (the
 * total) and `[service, …declared]`.
 */
export function emfMetrics(): Metrics {
  const root = new PowertoolsMetrics({ namespace: METRICS_NAMESPACE, serviceName: METRICS_SERVICE });
  return {
    add(name, dims, value = 1) {
      const def = METRICS[name];
      const one = root.singleMetric();
      one.addDimensions({});
      if (def.dims.length > 0) one.addDimensions(declared(name, dims as Record<string, string> | undefined));
      one.addMetric(name, def.unit, value);
    },
  };
}
