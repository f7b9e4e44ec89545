import { ArnFormat, Aws, Duration, Stack } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  Alarm,
  ComparisonOperator,
  type IMetric,
  MathExpression,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import { pmailMetric, sesReputation } from './dashboard.ts';
import type { Discovered } from './discover.ts';

/** Alarm thresholds; each has a context key (docs/reference/configuration.md). */
export interface AlarmSettings {
  /** Uncertain messages per 100 attempts over 15 minutes. @default 1 */
  readonly uncertainPercent: number;
  /** API 5xx answers per 100 requests over 5 minutes, twice in a row. @default 1 */
  readonly api5xxPercent: number;
  /**
   * SES bounce rate (a ratio). AWS reviews an account at 5 % and may pause it at 10 %.
   * @default 0.04
   */
  readonly sesBounceRate: number;
  /** SES complaint rate (a ratio). AWS reviews at 0.1 % and may pause at 0.5 %. @default 0.0008 */
  readonly sesComplaintRate: number;
  /** PM_DAILY_SEND_QUOTA: sends per day the provider allows; alarms at 80 %. @default - no alarm */
  readonly dailySendQuota?: number;
  /** An address subscribed to the alarm topic (it must confirm). @default - none */
  readonly email?: string;
}

export const ALARM_CONTEXT = {
  uncertainPercent: 'pmail:alarmUncertainPercent',
  api5xxPercent: 'pmail:alarmApi5xxPercent',
  sesBounceRate: 'pmail:alarmSesBounceRate',
  sesComplaintRate: 'pmail:alarmSesComplaintRate',
  dailySendQuota: 'pmail:dailySendQuota',
  email: 'pmail:alarmEmail',
} as const;

/** The settings from context, PM_DAILY_SEND_QUOTA also from the environment of `cdk deploy`. */
export function alarmSettings(scope: Construct): AlarmSettings {
  const ctx = (k: keyof typeof ALARM_CONTEXT) => scope.node.tryGetContext(ALARM_CONTEXT[k]);
  const num = (k: keyof typeof ALARM_CONTEXT, fallback: number) => {
    const v = ctx(k);
    return v === undefined || v === '' ? fallback : Number(v);
  };
  const quota = ctx('dailySendQuota') ?? process.env.PM_DAILY_SEND_QUOTA;
  return {
    uncertainPercent: num('uncertainPercent', 1),
    api5xxPercent: num('api5xxPercent', 1),
    sesBounceRate: num('sesBounceRate', 0.04),
    sesComplaintRate: num('sesComplaintRate', 0.0008),
    dailySendQuota: quota === undefined || quota === '' ? undefined : Number(quota),
    email: ctx('email') || undefined,
  };
}

export interface PmailAlarmsProps {
  readonly discovered: Discovered;
  readonly httpApi: HttpApi;
  readonly settings: AlarmSettings;
}

/**
 * The alarms, every one to one SNS topic the operator subscribes to (stack output
 * `AlarmTopicArn`). docs/operating.md#runbook has what to do for each.
 */
export class PmailAlarms extends Construct {
  readonly topic: Topic;
  readonly alarms: Alarm[] = [];

  constructor(scope: Construct, id: string, props: PmailAlarmsProps) {
    super(scope, id);
    const s = props.settings;
    const stackName = Stack.of(this).stackName;
    // CloudWatch publishes to an encrypted topic only when the key lets it.
    const key = new Key(this, 'TopicKey', { description: 'pmail alarm topic', enableKeyRotation: true });
    key.grant(new ServicePrincipal('cloudwatch.amazonaws.com'), 'kms:GenerateDataKey*', 'kms:Decrypt');
    this.topic = new Topic(this, 'Topic', {
      topicName: `${stackName}-alarms`,
      masterKey: key,
      enforceSSL: true,
    });
    // The topic's own policy (enforceSSL) replaces SNS's default one, which let the account's
    // alarms publish: without this statement every notification is refused ("no resource-based
    // policy allows the SNS:Publish action"), and only the alarm's history shows it.
    this.topic.addToResourcePolicy(
      new PolicyStatement({
        sid: 'CloudWatchAlarmsPublish',
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [this.topic.topicArn],
        conditions: {
          StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID },
          ArnLike: {
            'aws:SourceArn': Stack.of(this).formatArn({
              service: 'cloudwatch',
              resource: 'alarm',
              resourceName: '*',
              arnFormat: ArnFormat.COLON_RESOURCE_NAME,
            }),
          },
        },
      }),
    );
    if (s.email) this.topic.addSubscription(new EmailSubscription(s.email));
    const action = new SnsAction(this.topic);

    const alarm = (
      id: string,
      metric: IMetric,
      description: string,
      opts: {
        threshold: number;
        comparison?: ComparisonOperator;
        evaluationPeriods?: number;
        missing?: TreatMissingData;
      },
    ) => {
      const a = new Alarm(this, id, {
        alarmName: `${stackName}-${id}`,
        alarmDescription: `${description} Runbook: docs/operating.md#${runbookAnchor(id)}`,
        metric,
        threshold: opts.threshold,
        comparisonOperator: opts.comparison ?? ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: opts.evaluationPeriods ?? 1,
        treatMissingData: opts.missing ?? TreatMissingData.NOT_BREACHING,
      });
      a.addAlarmAction(action);
      a.addOkAction(action);
      this.alarms.push(a);
      return a;
    };

    for (const { label, queue } of props.discovered.deadLetterQueues) {
      alarm(
        `DeadLetters-${label.replace(/[^A-Za-z0-9]+/g, '-')}`,
        queue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5), statistic: 'Maximum' }),
        `Messages wait in ${label}: something failed every retry.`,
        { threshold: 1 },
      );
    }

    const quarter = Duration.minutes(15);
    alarm(
      'UncertainRate',
      new MathExpression({
        expression: 'IF(a > 0, 100 * u / a, IF(u > 0, 100, 0))',
        usingMetrics: {
          u: pmailMetric('uncertain_created', { period: quarter }),
          a: pmailMetric('attempts', { period: quarter }),
        },
        period: quarter,
        label: 'uncertain per 100 attempts',
      }),
      `More than ${s.uncertainPercent} in 100 attempts ended uncertain in 15 minutes.`,
      { threshold: s.uncertainPercent, comparison: ComparisonOperator.GREATER_THAN_THRESHOLD },
    );
    alarm(
      'OrphanedEvents',
      pmailMetric('delivery_orphaned', { period: quarter }),
      'Provider delivery events named messages pmail never found.',
      { threshold: 1 },
    );
    alarm(
      'SweeperNotRunning',
      pmailMetric('sweeper_runs', { period: Duration.minutes(5) }),
      'The sweeper (every minute) did not complete a pass for 10 minutes.',
      {
        threshold: 1,
        comparison: ComparisonOperator.LESS_THAN_THRESHOLD,
        evaluationPeriods: 2,
        missing: TreatMissingData.BREACHING,
      },
    );
    const five = Duration.minutes(5);
    alarm(
      'Api5xxRate',
      new MathExpression({
        expression: 'IF(n > 0, 100 * e / n, 0)',
        usingMetrics: {
          e: props.httpApi.metricServerError({ period: five }),
          n: props.httpApi.metricCount({ period: five }),
        },
        period: five,
        label: 'API 5xx per 100 requests',
      }),
      `More than ${s.api5xxPercent} in 100 API requests answered 5xx, twice in 5 minutes in a row.`,
      {
        threshold: s.api5xxPercent,
        comparison: ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 2,
      },
    );
    alarm(
      'SesBounceRate',
      sesReputation('Reputation.BounceRate'),
      `The account's SES bounce rate reached ${s.sesBounceRate * 100} % (AWS reviews accounts at 5 %).`,
      { threshold: s.sesBounceRate },
    );
    alarm(
      'SesComplaintRate',
      sesReputation('Reputation.ComplaintRate'),
      `The account's SES complaint rate reached ${s.sesComplaintRate * 100} % (AWS reviews accounts at 0.1 %).`,
      { threshold: s.sesComplaintRate },
    );
    if (s.dailySendQuota !== undefined && s.dailySendQuota > 0) {
      alarm(
        'DailySendQuota',
        pmailMetric('sends_accepted', { period: Duration.days(1) }),
        `Sends accepted in a day reached 80 % of PM_DAILY_SEND_QUOTA (${s.dailySendQuota}).`,
        { threshold: Math.floor(s.dailySendQuota * 0.8) },
      );
    }
  }
}

/** The anchor of an alarm's entry in docs/operating.md › Runbook (one entry for every dead-letter queue). */
export const runbookAnchor = (alarmId: string): string =>
  alarmId.startsWith('DeadLetters-') ? 'deadletters' : alarmId.toLowerCase();
