import { Aws, CfnRule, CustomResource, Duration, Fn, Stack, Token } from 'aws-cdk-lib';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Bucket } from 'aws-cdk-lib/aws-s3';
import {
  type IReceiptRuleAction,
  type IReceiptRuleSet,
  ReceiptRule,
  type ReceiptRuleActionConfig,
  ReceiptRuleSet,
} from 'aws-cdk-lib/aws-ses';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { SqsSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct, type IConstruct } from 'constructs';
import { SES_RECEIVING_REGIONS } from '../functions/core/ses-regions.ts';
import { INBOUND_RAW_PREFIX } from '../functions/inbound/notification.ts';
import { LAMBDA_MEMORY_MB, PmailFunction } from './defaults.ts';

/**
 * The ingest function's timeout and memory. A received message may be 40 MB, and the queue hands the
 * function batches of up to INGEST_BATCH_SIZE, ingested one after another (functions/inbound/ingest.ts
 * › ingestBatch). bench/ingest-shapes.ts shows a 40 MB message of the costliest shape ingesting in
 * at most a quarter of the timeout at this memory (and the CPU share it buys), its parse peaking at
 * about 400 MB: twice the functions' usual memory keeps half of it free.
 */
export const INGEST_TIMEOUT_SECONDS = 60;
export const INGEST_MEMORY_MB = 2 * LAMBDA_MEMORY_MB;
export const INGEST_BATCH_SIZE = 5;

/** The context keys of receiving (docs/guides/receiving.md › Receiving on AWS). */
export const RECEIVING_CONTEXT = {
  /** `false` leaves receiving out of the stack (no rule, no ingest, no MX record suggested). */
  enabled: 'pmail:receiving',
  /** The name of the account's active receipt rule set: pmail adds its rule to it. */
  ruleSet: 'pmail:receiptRuleSet',
  /** The domains pmail receives for (comma-separated): the rule's recipients. */
  domains: 'pmail:receivingDomains',
} as const;

/** Where SES receives email (functions/core/ses-regions.ts: the CLI's doctor reads it too). */
export { SES_RECEIVING_REGIONS };

export interface ReceivingSettings {
  /** The existing rule set pmail's rule joins; undefined: pmail creates its own and activates it. */
  readonly ruleSetName?: string;
  /** The rule's recipients; undefined: every recipient the rule set hands this rule. */
  readonly recipients?: string[];
}

/** The settings from context, or undefined when `pmail:receiving=false`. */
export function receivingSettings(scope: IConstruct): ReceivingSettings | undefined {
  const ctx = (k: keyof typeof RECEIVING_CONTEXT) => scope.node.tryGetContext(RECEIVING_CONTEXT[k]);
  const enabled = ctx('enabled');
  if (enabled === false || String(enabled).toLowerCase() === 'false') return undefined;
  const ruleSet = ctx('ruleSet');
  const domains = ctx('domains');
  const list = (Array.isArray(domains) ? domains : String(domains ?? '').split(','))
    .map((d: unknown) => String(d).trim().toLowerCase())
    .filter(Boolean);
  return {
    ...(ruleSet ? { ruleSetName: String(ruleSet) } : {}),
    ...(list.length > 0 ? { recipients: list } : {}),
  };
}

/**
 * The Region the stack receives in must be one of SES_RECEIVING_REGIONS. A stack with a Region
 * (its env, or the CLI's CDK_DEFAULT_REGION for an environment-agnostic one) is checked at synth;
 * the template also carries a CloudFormation rule, so a deploy elsewhere stops before any resource.
 */
export function checkReceivingRegion(stack: Stack): void {
  const region = Token.isUnresolved(stack.region) ? process.env.CDK_DEFAULT_REGION : stack.region;
  if (region && !(SES_RECEIVING_REGIONS as readonly string[]).includes(region)) {
    throw new Error(
      `SES email receiving is not available in ${region}. It is available in: ${SES_RECEIVING_REGIONS.join(', ')}. ` +
        `Deploy pmail to one of these Regions, or leave receiving out with -c ${RECEIVING_CONTEXT.enabled}=false.`,
    );
  }
  if (Token.isUnresolved(stack.region)) {
    new CfnRule(stack, 'SesReceivingRegion', {
      assertions: [
        {
          assert: Fn.conditionContains([...SES_RECEIVING_REGIONS], Aws.REGION),
          assertDescription: `SES email receiving is available only in ${SES_RECEIVING_REGIONS.join(', ')}; deploy there or set -c ${RECEIVING_CONTEXT.enabled}=false.`,
        },
      ],
    });
  }
}

/**
 * The receipt rule's S3 action with a bucket policy narrower than aws-ses-actions' own: SES of this
 * account may put objects under INBOUND_RAW_PREFIX only, and only for this rule (aws:SourceArn).
 */
class StoreRawAction implements IReceiptRuleAction {
  constructor(private readonly props: { bucket: Bucket; topic: Topic; ruleArn: string }) {}

  bind(): ReceiptRuleActionConfig {
    const { bucket, topic, ruleArn } = this.props;
    bucket.addToResourcePolicy(
      new PolicyStatement({
        sid: 'SesReceivingPutsRawMessages',
        principals: [new ServicePrincipal('ses.amazonaws.com')],
        actions: ['s3:PutObject'],
        resources: [bucket.arnForObjects(`${INBOUND_RAW_PREFIX}*`)],
        conditions: {
          StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID },
          ArnLike: { 'aws:SourceArn': ruleArn },
        },
      }),
    );
    return {
      s3Action: {
        bucketName: bucket.bucketName,
        objectKeyPrefix: INBOUND_RAW_PREFIX,
        topicArn: topic.topicArn,
      },
    };
  }
}

export interface InboundReceivingProps {
  readonly bucket: Bucket;
  readonly settings: ReceivingSettings;
  /** Environment of the ingest function (table, bucket, events queue, keys). */
  readonly environment: Record<string, string>;
  /** @default RetentionDays.ONE_MONTH */
  readonly logRetention?: RetentionDays;
}

/**
 * SES receiving (docs/guides/receiving.md › Receiving on AWS): a receipt rule whose S3 action stores
 * each received message in the blob bucket under INBOUND_RAW_PREFIX and publishes its notification
 * to an SNS topic; the topic feeds the ingest queue (raw message delivery: the SQS body is the
 * notification), read by the ingest function with partial batch responses; five receives, then the
 * dead-letter queue.
 *
 * SNS → SQS rather than a Lambda action: a Lambda action is retried by SES alone and a message that
 * keeps failing is gone, with no dead-letter queue of pmail's; the queue redelivers after the
 * visibility timeout, keeps what fails five times in a dead-letter queue an alarm watches, and
 * hands the function batches.
 */
export class InboundReceiving extends Construct {
  readonly ruleSetName: string;
  readonly ruleSet: IReceiptRuleSet;
  readonly rule: ReceiptRule;
  readonly topic: Topic;
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;
  readonly ingest: PmailFunction;
  /** Present only when pmail creates its own rule set: the custom resource and its function. */
  readonly activation?: CustomResource;
  activator?: PmailFunction;

  constructor(scope: Construct, id: string, props: InboundReceivingProps) {
    super(scope, id);
    const stack = Stack.of(this);
    checkReceivingRegion(stack);
    const stackName = stack.stackName;
    const ruleName = `${stackName}-inbound`;

    this.ruleSetName = props.settings.ruleSetName ?? `${stackName}-inbound`;
    this.ruleSet = props.settings.ruleSetName
      ? ReceiptRuleSet.fromReceiptRuleSetName(this, 'RuleSet', props.settings.ruleSetName)
      : new ReceiptRuleSet(this, 'RuleSet', { receiptRuleSetName: this.ruleSetName });
    const ruleArn = stack.formatArn({
      service: 'ses',
      resource: 'receipt-rule-set',
      resourceName: `${this.ruleSetName}:receipt-rule/${ruleName}`,
    });

    // SES publishes the S3 action's notification to an encrypted topic only when the key lets it.
    const topicKey = new Key(this, 'TopicKey', {
      description: 'pmail inbound topic',
      enableKeyRotation: true,
    });
    topicKey.grant(new ServicePrincipal('ses.amazonaws.com'), 'kms:GenerateDataKey*', 'kms:Decrypt');
    topicKey.grant(new ServicePrincipal('sns.amazonaws.com'), 'kms:GenerateDataKey*', 'kms:Decrypt');
    this.topic = new Topic(this, 'Topic', {
      topicName: `${stackName}-inbound`,
      masterKey: topicKey,
      enforceSSL: true,
    });
    this.topic.addToResourcePolicy(
      new PolicyStatement({
        sid: 'SesReceivingPublishes',
        principals: [new ServicePrincipal('ses.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [this.topic.topicArn],
        conditions: {
          StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID },
          ArnLike: { 'aws:SourceArn': ruleArn },
        },
      }),
    );

    this.deadLetterQueue = new Queue(this, 'DeadLetters', {
      queueName: `${stackName}-inbound-dlq`,
      retentionPeriod: Duration.days(14),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    // The function's timeout is 60 s; AWS advises a visibility timeout of six times it.
    this.queue = new Queue(this, 'Queue', {
      queueName: `${stackName}-inbound`,
      visibilityTimeout: Duration.seconds(360),
      retentionPeriod: Duration.days(4),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: 5 },
    });
    this.topic.addSubscription(new SqsSubscription(this.queue, { rawMessageDelivery: true }));

    this.ingest = new PmailFunction(this, 'Ingest', {
      entry: 'functions/inbound/ingest.handler.ts',
      description: 'pmail inbound ingest',
      timeout: Duration.seconds(INGEST_TIMEOUT_SECONDS),
      memorySize: INGEST_MEMORY_MB,
      environment: props.environment,
      logRetention: props.logRetention,
    });
    this.ingest.fn.addEventSource(
      new SqsEventSource(this.queue, { batchSize: INGEST_BATCH_SIZE, reportBatchItemFailures: true }),
    );

    this.rule = new ReceiptRule(this, 'Rule', {
      ruleSet: this.ruleSet,
      receiptRuleName: ruleName,
      ...(props.settings.recipients ? { recipients: props.settings.recipients } : {}),
      // Spam and virus verdicts for the ingest (a virus FAIL keeps headers only).
      scanEnabled: true,
      actions: [new StoreRawAction({ bucket: props.bucket, topic: this.topic, ruleArn })],
    });
    // SES checks at CreateReceiptRule that it may write to the bucket and publish to the topic.
    const bucketPolicy = props.bucket.node.tryFindChild('Policy');
    if (bucketPolicy) this.rule.node.addDependency(bucketPolicy);
    const topicPolicy = this.topic.node.tryFindChild('Policy');
    if (topicPolicy) this.rule.node.addDependency(topicPolicy);
    this.rule.node.addDependency(topicKey);

    if (!props.settings.ruleSetName) this.activation = this.activate(this.ruleSet);
  }

  /** Only one rule set is active per Region: make pmail's the active one (no CloudFormation resource does). */
  private activate(ruleSet: IReceiptRuleSet): CustomResource {
    this.activator = new PmailFunction(this, 'Activate', {
      entry: 'functions/inbound/receipt-rule-set.handler.ts',
      description: 'pmail: makes the inbound receipt rule set the active one',
      timeout: Duration.seconds(30),
    });
    // Both act on the Region's one active rule set: no resource-level permissions.
    this.activator.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['ses:SetActiveReceiptRuleSet', 'ses:DescribeActiveReceiptRuleSet'],
        resources: ['*'],
      }),
    );
    const activation = new CustomResource(this, 'ActiveRuleSet', {
      serviceToken: this.activator.fn.functionArn,
      resourceType: 'Custom::PmailActiveReceiptRuleSet',
      properties: { RuleSetName: ruleSet.receiptRuleSetName },
    });
    // Active only once pmail's rule is in it; on delete, deactivated before the set is deleted.
    activation.node.addDependency(this.rule);
    return activation;
  }
}
