import { Duration, Stack } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  Dashboard,
  GraphWidget,
  type IMetric,
  MathExpression,
  Metric,
  TextWidget,
} from 'aws-cdk-lib/aws-cloudwatch';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { METRICS, METRICS_NAMESPACE, METRICS_SERVICE, type MetricName } from '../functions/metrics.ts';
import type { Discovered } from './discover.ts';

const PERIOD = Duration.minutes(5);

/** One of pmail's own metrics (functions/metrics.ts), its total or one fixed breakdown. */
export function pmailMetric(
  name: MetricName,
  opts: { dims?: Record<string, string>; statistic?: string; period?: Duration; label?: string } = {},
): Metric {
  return new Metric({
    namespace: METRICS_NAMESPACE,
    metricName: name,
    dimensionsMap: { service: METRICS_SERVICE, ...opts.dims },
    statistic: opts.statistic ?? (METRICS[name].unit === 'Milliseconds' ? 'p99' : 'Sum'),
    period: opts.period ?? PERIOD,
    label: opts.label ?? name,
  });
}

/** Every breakdown of a metric by its declared dimensions (a CloudWatch SEARCH: one line per value). */
export function pmailBreakdown(name: MetricName, statistic = 'Sum'): MathExpression {
  const dims = ['service', ...METRICS[name].dims].join(',');
  return new MathExpression({
    expression: `SEARCH('{${METRICS_NAMESPACE},${dims}} MetricName="${name}"', '${statistic}', ${PERIOD.toSeconds()})`,
    usingMetrics: {},
    // A dynamic label: each line is named by its dimension values, e.g. "ses accepted".
    label: METRICS[name].dims.map((d) => `\${PROP('Dim.${d}')}`).join(' '),
    period: PERIOD,
  });
}

export interface PmailDashboardProps {
  readonly discovered: Discovered;
  readonly httpApi: HttpApi;
  readonly table: Table;
  /** @default - the stack name */
  readonly dashboardName?: string;
}

/**
 * The operator's dashboard, one row per question: is mail going out (send funnel,
 * transport outcomes), is the promise kept (the guarantee), are we a good sender (delivery and
 * reputation), do tenants hear about it (webhooks), and is the platform healthy. docs/operating.md
 * says what each row means.
 */
export class PmailDashboard extends Construct {
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: PmailDashboardProps) {
    super(scope, id);
    const { discovered: d } = props;
    this.dashboard = new Dashboard(this, 'Dashboard', {
      dashboardName: props.dashboardName ?? Stack.of(this).stackName,
      defaultInterval: Duration.hours(3),
    });
    const row = (title: string, ...graphs: GraphWidget[]) => {
      this.dashboard.addWidgets(new TextWidget({ markdown: `## ${title}`, width: 24, height: 1 }));
      this.dashboard.addWidgets(...graphs);
    };
    const graph = (title: string, left: IMetric[], right: IMetric[] = [], width = 8) =>
      new GraphWidget({ title, left, right, width, height: 6 });
    const rate = (label: string, expression: string, usingMetrics: Record<string, IMetric>) =>
      new MathExpression({ expression, usingMetrics, label, period: PERIOD });

    row(
      'Send funnel',
      graph('Requests', [
        pmailMetric('sends_accepted'),
        pmailMetric('sends_deduplicated'),
        pmailMetric('sends_dry_run'),
      ]),
      graph('Refused, by code', [pmailBreakdown('sends_refused')]),
      graph('Refused total', [pmailMetric('sends_refused')]),
    );
    row(
      'Transport outcomes',
      graph('Attempts, by transport and outcome', [pmailBreakdown('attempts')], [], 12),
      graph(
        'Accept → provider accept (ms)',
        [
          pmailMetric('send_latency', { statistic: 'p50', label: 'p50' }),
          pmailMetric('send_latency', { statistic: 'p99', label: 'p99' }),
        ],
        [pmailBreakdown('send_latency', 'p99')],
        12,
      ),
    );
    row(
      'The guarantee',
      graph(
        'Uncertain',
        [pmailBreakdown('uncertain_created'), pmailBreakdown('uncertain_resolved')],
        [
          rate('uncertain per 100 attempts', 'IF(a > 0, 100 * u / a, 0)', {
            u: pmailMetric('uncertain_created'),
            a: pmailMetric('attempts'),
          }),
        ],
      ),
      graph('Reconciliation', [pmailMetric('reconciled'), pmailMetric('reconcile_ambiguous')]),
      graph(
        'Sweeper and stale claims',
        [pmailMetric('sweeper_runs'), pmailMetric('sweeper_redispatched')],
        [pmailBreakdown('stale_claims')],
      ),
    );
    const bounced = pmailMetric('delivery_events', { dims: { kind: 'bounced' }, label: 'bounced' });
    const complained = pmailMetric('delivery_events', { dims: { kind: 'complained' }, label: 'complained' });
    const accepted = pmailMetric('attempts');
    row(
      'Delivery and reputation',
      graph('Delivery events, by kind', [pmailBreakdown('delivery_events')]),
      graph(
        'Bounce and complaint rates',
        [
          rate('pmail bounces per 100 attempts', 'IF(a > 0, 100 * b / a, 0)', { b: bounced, a: accepted }),
          rate('pmail complaints per 100 attempts', 'IF(a > 0, 100 * c / a, 0)', {
            c: complained,
            a: accepted,
          }),
        ],
        [sesReputation('Reputation.BounceRate'), sesReputation('Reputation.ComplaintRate')],
      ),
      graph(
        'Suppressions and auto-pauses',
        [pmailBreakdown('suppressions_created')],
        [pmailMetric('identities_auto_paused')],
      ),
      graph('Events pmail could not place', [
        pmailMetric('delivery_orphaned'),
        pmailMetric('delivery_unroutable'),
        pmailMetric('delivery_unknown_type'),
        pmailMetric('delivery_journal_ignored'),
        pmailMetric('delivery_ambiguous'),
        pmailMetric('cloudflare_adopt_ambiguous'),
      ]),
      graph(
        'Cloudflare events pull',
        [pmailMetric('cloudflare_events_forwarded'), pmailMetric('cloudflare_forward_failed')],
        [pmailBreakdown('cloudflare_api_failed')],
      ),
    );
    row(
      'Webhooks',
      graph('Deliveries, by result', [pmailBreakdown('webhook_deliveries')], [], 12),
      graph('Unreadable', [pmailMetric('webhook_malformed'), pmailMetric('webhook_fanout_skipped')], [], 12),
    );

    row(
      'Event stream',
      graph('Streams opened, by result', [pmailBreakdown('stream_connections')]),
      graph(
        'Frames posted, and streams closed',
        [pmailBreakdown('stream_frames')],
        [pmailBreakdown('stream_closed')],
      ),
      graph('Fan-out lag (ms): commit to post', [
        pmailMetric('stream_fanout_lag', { statistic: 'p50', label: 'p50' }),
        pmailMetric('stream_fanout_lag', { statistic: 'p99', label: 'p99' }),
      ]),
    );

    row(
      'Receiving',
      graph(
        'Received, per recipient (stored by how far parsed)',
        [pmailBreakdown('inbound_stored'), pmailMetric('inbound_duplicates')],
        [],
        8,
      ),
      graph(
        'Not stored as inbox mail',
        [pmailMetric('inbound_unknown_recipients'), pmailMetric('dsn_routed'), pmailMetric('dsn_unmatched')],
        [],
        8,
      ),
      graph(
        'Held back from the agent (by reason; past the stranger rate; dropped past the caps)',
        [
          pmailBreakdown('inbound_held'),
          pmailMetric('inbound_held_rate'),
          pmailMetric('inbound_held_dropped'),
        ],
        [],
        8,
      ),
    );

    const api = props.httpApi;
    const fns = d.functions;
    const perFunction = (metric: (f: (typeof fns)[number]) => IMetric) => fns.map(metric);
    row(
      'Platform',
      graph(
        'API requests and errors',
        [
          api.metricCount({ period: PERIOD, label: 'requests' }),
          api.metricClientError({ period: PERIOD, label: '4xx' }),
          api.metricServerError({ period: PERIOD, label: '5xx' }),
        ],
        [],
      ),
      graph('API latency (ms)', [
        api.metricLatency({ period: PERIOD, statistic: 'p50', label: 'p50' }),
        api.metricLatency({ period: PERIOD, statistic: 'p99', label: 'p99' }),
        api.metricIntegrationLatency({ period: PERIOD, statistic: 'p99', label: 'integration p99' }),
      ]),
      graph('DynamoDB throttles', [
        props.table.metric('ReadThrottleEvents', { period: PERIOD, statistic: 'Sum' }),
        props.table.metric('WriteThrottleEvents', { period: PERIOD, statistic: 'Sum' }),
      ]),
      graph(
        'Lambda errors, per function',
        perFunction(({ fn, label }) => fn.metricErrors({ period: PERIOD, label })),
      ),
      graph(
        'Lambda throttles, per function',
        perFunction(({ fn, label }) => fn.metricThrottles({ period: PERIOD, label })),
      ),
      graph(
        'Lambda duration p99 (ms), per function',
        perFunction(({ fn, label }) => fn.metricDuration({ period: PERIOD, statistic: 'p99', label })),
      ),
      graph(
        'Step Functions failed and timed out',
        d.stateMachines.flatMap(({ machine, label }) => [
          machine.metricFailed({ period: PERIOD, label: `${label} failed` }),
          machine.metricTimedOut({ period: PERIOD, label: `${label} timed out` }),
        ]),
      ),
      graph(
        'SQS oldest message age (s)',
        d.workQueues.map(({ queue, label }) =>
          queue.metricApproximateAgeOfOldestMessage({ period: PERIOD, statistic: 'Maximum', label }),
        ),
      ),
      graph(
        'Dead letters waiting',
        d.deadLetterQueues.map(({ queue, label }) =>
          queue.metricApproximateNumberOfMessagesVisible({ period: PERIOD, statistic: 'Maximum', label }),
        ),
      ),
    );
  }
}

/**
 * SES's account-level reputation (namespace AWS/SES, no dimensions), a ratio: 0.05 is 5 %.
 * https://docs.aws.amazon.com/ses/latest/dg/reputationdashboard-cloudwatch-alarm.html
 */
export function sesReputation(name: 'Reputation.BounceRate' | 'Reputation.ComplaintRate'): Metric {
  return new Metric({
    namespace: 'AWS/SES',
    metricName: name,
    statistic: 'Maximum',
    period: Duration.hours(1),
    label: `SES ${name.slice('Reputation.'.length)}`,
  });
}
