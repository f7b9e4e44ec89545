import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METRIC_NAMES, METRICS_NAMESPACE } from '../../functions/metrics.ts';
import { createPmailApp } from '../../lib/app.ts';

type Resource = { Type: string; Properties: Record<string, any> };

const ROOT = join(import.meta.dirname, '../..');
const outdirs: string[] = [];
afterAll(() => {
  for (const d of outdirs) rmSync(d, { recursive: true, force: true });
});

/** Synthesise without bundling (the stack test bundles): the dashboard and alarms read the tree. */
function synth(context: Record<string, unknown> = {}) {
  const { app, stack } = createPmailApp({ context: { 'aws:cdk:bundling-stacks': [], ...context } });
  outdirs.push(app.outdir);
  const json = Template.fromStack(stack).toJSON() as {
    Resources: Record<string, Resource>;
    Outputs: Record<string, any>;
  };
  return { json, stack };
}

/** A CloudFormation string value with its references written as REF(logicalId). */
function flatten(value: any): string {
  if (typeof value === 'string') return value;
  if (value?.['Fn::Join']) return (value['Fn::Join'][1] as any[]).map(flatten).join(value['Fn::Join'][0]);
  if (value?.Ref) return `REF(${value.Ref})`;
  if (value?.['Fn::GetAtt']) return `REF(${value['Fn::GetAtt'][0]})`;
  return JSON.stringify(value);
}

interface DashboardMetric {
  namespace?: string;
  name?: string;
  dims: Record<string, string>;
  expression?: string;
}

function dashboardMetrics(resources: Record<string, Resource>): DashboardMetric[] {
  const [dash] = Object.values(resources).filter((r) => r.Type === 'AWS::CloudWatch::Dashboard');
  const body = JSON.parse(flatten(dash.Properties.DashboardBody)) as {
    widgets: { type: string; properties: { metrics?: any[][] } }[];
  };
  return body.widgets.flatMap((w) =>
    (w.properties.metrics ?? []).map((m) => {
      if (typeof m[0] === 'object') return { dims: {}, expression: m[0].expression as string };
      const parts = m.filter((p) => typeof p === 'string') as string[];
      const dims: Record<string, string> = {};
      for (let i = 2; i + 1 < parts.length; i += 2) dims[parts[i]] = parts[i + 1];
      return { namespace: parts[0], name: parts[1], dims };
    }),
  );
}

/** The pmail metric names a dashboard line or alarm reads: plain metrics and SEARCH expressions. */
function pmailNames(metrics: DashboardMetric[]): Set<string> {
  const names = new Set<string>();
  for (const m of metrics) {
    if (m.namespace === METRICS_NAMESPACE && m.name) names.add(m.name);
    const search = m.expression && /SEARCH\('\{pmail,[^}]*\} MetricName="([a-z_]+)"/.exec(m.expression);
    if (search) names.add(search[1]);
  }
  return names;
}

/** Every .ts file under functions/, the metrics table itself left out. */
function functionSources(): string {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (p.endsWith('.ts')) files.push(p);
    }
  };
  walk(join(ROOT, 'functions'));
  return files
    .map((f) => {
      const text = readFileSync(f, 'utf8');
      // The table itself names every metric: read functions/metrics.ts from after it.
      return relative(ROOT, f) === join('functions', 'metrics.ts')
        ? text.slice(text.indexOf('export type MetricName'))
        : text;
    })
    .join('\n');
}

let json: ReturnType<typeof synth>['json'];
let resources: Record<string, Resource>;
const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);
beforeAll(() => {
  json = synth().json;
  resources = json.Resources;
}, 300_000);

describe('the metrics the code emits', () => {
  it('each name in the table is emitted by the functions, through the port', () => {
    const sources = functionSources();
    const unused = METRIC_NAMES.filter((n) => !sources.includes(`'${n}'`));
    expect(unused).toEqual([]);
    // No log line pretends to be a metric any more (the old `metric: '…_total'` fields).
    expect(sources).not.toMatch(/metric: ['`][a-z_{}$]*_total['`]/);
  });
});

describe('the dashboard', () => {
  it('shows every metric the code emits, and no pmail metric the code does not emit', () => {
    const shown = [...pmailNames(dashboardMetrics(resources))].sort();
    expect(shown).toEqual([...METRIC_NAMES].sort());
  });

  it('has the rows an operator reads, in order', () => {
    const [dash] = ofType('AWS::CloudWatch::Dashboard');
    const rows = [...flatten(dash[1].Properties.DashboardBody).matchAll(/"markdown":"## ([^"]+)"/g)].map(
      (m) => m[1],
    );
    expect(rows).toEqual([
      'Send funnel',
      'Transport outcomes',
      'The guarantee',
      'Delivery and reputation',
      'Webhooks',
      'Event stream',
      'Receiving',
      'Platform',
    ]);
  });

  it('covers every Lambda function, state machine and queue in the stack, without a hard-coded list', () => {
    const metrics = dashboardMetrics(resources);
    const refs = (namespace: string, metric: string, dim: string) =>
      new Set(metrics.filter((m) => m.namespace === namespace && m.name === metric).map((m) => m.dims[dim]));
    for (const metric of ['Errors', 'Throttles', 'Duration']) {
      expect(refs('AWS/Lambda', metric, 'FunctionName')).toEqual(
        new Set(ofType('AWS::Lambda::Function').map(([id]) => `REF(${id})`)),
      );
    }
    for (const metric of ['ExecutionsFailed', 'ExecutionsTimedOut']) {
      expect(refs('AWS/States', metric, 'StateMachineArn')).toEqual(
        new Set(ofType('AWS::StepFunctions::StateMachine').map(([id]) => `REF(${id})`)),
      );
    }
    const queues = ofType('AWS::SQS::Queue').map(([id]) => `REF(${id})`);
    const age = refs('AWS/SQS', 'ApproximateAgeOfOldestMessage', 'QueueName');
    const waiting = refs('AWS/SQS', 'ApproximateNumberOfMessagesVisible', 'QueueName');
    expect(new Set([...age, ...waiting])).toEqual(new Set(queues));
    // The dead-letter side: every queue some queue sends its dead letters to.
    for (const [, q] of ofType('AWS::SQS::Queue')) {
      const dlq = q.Properties.RedrivePolicy?.deadLetterTargetArn;
      if (dlq) expect(waiting).toContain(`REF(${dlq['Fn::GetAtt'][0]})`);
    }
    expect(refs('AWS/DynamoDB', 'WriteThrottleEvents', 'TableName').size).toBe(1);
    expect(refs('AWS/ApiGateway', '5xx', 'ApiId').size).toBe(1);
  });

  it('finds functions and queues whichever construct adds them (as the other issues add theirs)', async () => {
    const { App } = await import('aws-cdk-lib');
    const { Code, Function: Fn, Runtime } = await import('aws-cdk-lib/aws-lambda');
    const { Queue } = await import('aws-cdk-lib/aws-sqs');
    const { SqsEventSource } = await import('aws-cdk-lib/aws-lambda-event-sources');
    const { PmailStack } = await import('../../lib/pmail-stack.ts');
    const { discover } = await import('../../lib/discover.ts');
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    outdirs.push(app.outdir);
    const stack = new PmailStack(app, 'Probe');
    const extra = new Fn(stack, 'ExtraTransport', {
      runtime: Runtime.NODEJS_22_X,
      handler: 'index.handler',
      code: Code.fromInline('export const handler = async () => {}'),
    });
    const dlq = new Queue(stack, 'ExtraDlq');
    const work = new Queue(stack, 'ExtraQueue', { deadLetterQueue: { queue: dlq, maxReceiveCount: 3 } });
    extra.addEventSource(new SqsEventSource(work));
    const found = discover(stack);
    expect(found.functions.map((f) => f.fn)).toContain(extra);
    expect(found.functions.length).toBe(stack.node.findAll().filter((c) => c instanceof Fn).length);
    expect(found.deadLetterQueues.map((q) => q.queue)).toContain(dlq);
    expect(found.deadLetterQueues.map((q) => q.queue)).not.toContain(work);
  });
});

/** The single metric an alarm watches, whichever form CloudFormation has it in. */
function watched(a: Record<string, any>): { Namespace?: string; MetricName?: string; Period?: number } {
  if (a.MetricName) return { Namespace: a.Namespace, MetricName: a.MetricName, Period: a.Period };
  const [only] = a.Metrics ?? [];
  const stat = only?.MetricStat;
  return { Namespace: stat?.Metric?.Namespace, MetricName: stat?.Metric?.MetricName, Period: stat?.Period };
}

describe('the alarms', () => {
  const alarms = () =>
    ofType('AWS::CloudWatch::Alarm').map(([id, r]): Record<string, any> => ({ id, ...r.Properties }));

  it('all notify the one topic the stack outputs, on alarm and on recovery', () => {
    const [[topicId]] = ofType('AWS::SNS::Topic').filter(([id]) => id.startsWith('Alarms'));
    expect(json.Outputs.AlarmTopicArn.Value).toEqual({ Ref: topicId });
    expect(alarms().length).toBeGreaterThanOrEqual(8);
    for (const a of alarms()) {
      expect(a.AlarmActions, a.id).toEqual([{ Ref: topicId }]);
      expect(a.OKActions, a.id).toEqual([{ Ref: topicId }]);
    }
    const [, topic] = ofType('AWS::SNS::Topic').find(([id]) => id === topicId)!;
    expect(topic.Properties.KmsMasterKeyId).toBeDefined();
  });

  it('watch every dead-letter queue, the uncertain rate, orphans, the sweeper, API 5xx and SES reputation', () => {
    const names = alarms().map((a) => flatten(a.AlarmName).replace(/^Pmail-/, ''));
    expect(names).toEqual(
      expect.arrayContaining([
        'UncertainRate',
        'OrphanedEvents',
        'SweeperNotRunning',
        'Api5xxRate',
        'SesBounceRate',
        'SesComplaintRate',
      ]),
    );
    expect(names).not.toContain('DailySendQuota');
    const dlqAlarmed = new Set(
      alarms()
        .filter((a) => a.MetricName === 'ApproximateNumberOfMessagesVisible')
        .map((a) => flatten(a.Dimensions[0].Value)),
    );
    const queues = ofType('AWS::SQS::Queue');
    const dlqs = new Set(
      queues.flatMap(([, q]) => {
        const arn = q.Properties.RedrivePolicy?.deadLetterTargetArn;
        return arn ? [`REF(${arn['Fn::GetAtt'][0]})`] : [];
      }),
    );
    expect(dlqs.size).toBeGreaterThanOrEqual(2);
    for (const d of dlqs) expect(dlqAlarmed).toContain(d);

    const sweeper = alarms().find((a) => a.id.startsWith('AlarmsSweeperNotRunning'))!;
    expect(watched(sweeper)).toMatchObject({ MetricName: 'sweeper_runs', Namespace: METRICS_NAMESPACE });
    expect(sweeper).toMatchObject({
      ComparisonOperator: 'LessThanThreshold',
      TreatMissingData: 'breaching',
    });
    const bounce = alarms().find((a) => a.id.startsWith('AlarmsSesBounceRate'))!;
    expect(watched(bounce)).toMatchObject({ Namespace: 'AWS/SES', MetricName: 'Reputation.BounceRate' });
    expect(bounce.Threshold).toBe(0.04);
    expect(bounce.Threshold).toBeLessThan(0.05);
    const complaint = alarms().find((a) => a.id.startsWith('AlarmsSesComplaintRate'))!;
    expect(complaint.Threshold).toBeLessThan(0.001);
  });

  it('read only metrics the code emits', () => {
    const used = new Set<string>();
    for (const a of alarms()) {
      const w = watched(a);
      if (w.Namespace === METRICS_NAMESPACE && w.MetricName) used.add(w.MetricName);
      for (const m of a.Metrics ?? []) {
        if (m.MetricStat?.Metric?.Namespace === METRICS_NAMESPACE) used.add(m.MetricStat.Metric.MetricName);
      }
    }
    expect(used.size).toBeGreaterThanOrEqual(4);
    for (const n of used) expect(METRIC_NAMES).toContain(n);
  });

  it('add the daily send quota alarm at 80 % when PM_DAILY_SEND_QUOTA is set', () => {
    const withQuota = synth({ 'pmail:dailySendQuota': '50000' }).json;
    const quota = Object.entries(withQuota.Resources).find(
      ([id, r]) => r.Type === 'AWS::CloudWatch::Alarm' && id.startsWith('AlarmsDailySendQuota'),
    );
    expect(quota?.[1].Properties.Threshold).toBe(40000);
    expect(watched(quota![1].Properties)).toMatchObject({ MetricName: 'sends_accepted', Period: 86400 });
  });
});

describe('stack hygiene', () => {
  it('gives every function its own log group, and every log group a retention', () => {
    const groups = ofType('AWS::Logs::LogGroup');
    expect(groups.length).toBeGreaterThan(0);
    for (const [id, g] of groups) expect(g.Properties.RetentionInDays, id).toBeGreaterThan(0);
    const ids = new Set(groups.map(([id]) => id));
    for (const [id, fn] of ofType('AWS::Lambda::Function')) {
      const ref = fn.Properties.LoggingConfig?.LogGroup?.Ref;
      expect(ids.has(ref), `${id} logs to ${ref}`).toBe(true);
    }
  });

  it('throttles the API stage and writes its access log', () => {
    const [[, stage]] = ofType('AWS::ApiGatewayV2::Stage');
    expect(stage.Properties.DefaultRouteSettings).toMatchObject({
      ThrottlingRateLimit: 100,
      ThrottlingBurstLimit: 200,
    });
    expect(stage.Properties.AccessLogSettings.DestinationArn).toBeDefined();
    const tuned = synth({ 'pmail:apiRateLimit': '20', 'pmail:apiBurstLimit': '40' }).json;
    const [tunedStage] = Object.values(tuned.Resources).filter((r) => r.Type === 'AWS::ApiGatewayV2::Stage');
    expect(tunedStage.Properties.DefaultRouteSettings).toMatchObject({
      ThrottlingRateLimit: 20,
      ThrottlingBurstLimit: 40,
    });
  });

  it('protects the table (deletion protection, point-in-time recovery) and the bucket (encrypted, TLS only, lifecycle)', () => {
    const [[, table]] = ofType('AWS::DynamoDB::Table');
    expect(table.Properties).toMatchObject({
      DeletionProtectionEnabled: true,
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
    });
    const [[bucketId, bucket]] = ofType('AWS::S3::Bucket');
    expect(bucket.Properties.BucketEncryption.ServerSideEncryptionConfiguration).toEqual([
      { ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } },
    ]);
    expect(bucket.Properties.LifecycleConfiguration.Rules).toContainEqual(
      expect.objectContaining({
        AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 },
        Status: 'Enabled',
      }),
    );
    const policy = ofType('AWS::S3::BucketPolicy').find(([, p]) => p.Properties.Bucket.Ref === bucketId)!;
    expect(policy[1].Properties.PolicyDocument.Statement).toContainEqual(
      expect.objectContaining({
        Effect: 'Deny',
        Condition: { Bool: { 'aws:SecureTransport': 'false' } },
      }),
    );
  });
});
