import { CfnOutput, Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { PmailFunction } from './defaults.ts';

/** Where the stack finds the Cloudflare settings when no props name them (`cdk -c key=value`). */
export const CLOUDFLARE_CONTEXT = {
  accountId: 'pmail:cloudflareAccountId',
  queueId: 'pmail:cloudflareEventsQueueId',
} as const;

export interface CloudflareSettings {
  /** The Cloudflare account that owns the events queue (PM_CF_ACCOUNT_ID). */
  readonly accountId: string;
  /** The Cloudflare Queue the Email Sending event subscriptions publish to, with HTTP pull on. */
  readonly queueId: string;
}

export interface CloudflareEventsProps extends CloudflareSettings {
  /** The delivery-events queue the pulled events are forwarded to. */
  readonly deliveryEvents: IQueue;
  /** @default RetentionDays.ONE_MONTH */
  readonly logRetention?: RetentionDays;
  /**
   * What happens to the API token secret when it leaves the stack.
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;
}

/**
 * The Cloudflare pull consumer (functions/events/cloudflare-pull.ts): every minute it
 * pulls Email Sending events from a Cloudflare Queue over HTTPS for up to ~50 s and forwards them to
 * the delivery-events queue. The API token (Queues read + write) lives in a secret the operator
 * fills after the first deploy; until then each run fails at the Cloudflare API and acks nothing.
 */
export class CloudflareEvents extends Construct {
  readonly fn: PmailFunction;
  readonly apiToken: Secret;
  readonly schedule: Rule;

  constructor(scope: Construct, id: string, props: CloudflareEventsProps) {
    super(scope, id);

    this.apiToken = new Secret(this, 'ApiToken', {
      description:
        'pmail: Cloudflare API token with Queues read and write, for the events pull consumer (replace the generated value)',
      removalPolicy: props.removalPolicy ?? RemovalPolicy.RETAIN,
    });
    Validations.of(this.apiToken).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'The value is a Cloudflare API token issued in the Cloudflare dashboard; AWS cannot rotate it. The operator rolls the token there and puts the new value in this secret.',
    });

    this.fn = new PmailFunction(this, 'Fn', {
      entry: 'functions/events/cloudflare-pull.handler.ts',
      handler: 'handler',
      description: 'pmail: pull Cloudflare Email Sending events into the delivery-events queue',
      // ~50 s of pulls, plus one last pull, forward and ack with 10 s request timeouts.
      timeout: Duration.seconds(90),
      memorySize: 256,
      environment: {
        PM_CF_ACCOUNT_ID: props.accountId,
        PM_CF_EVENTS_QUEUE_ID: props.queueId,
        PMAIL_CF_API_TOKEN_SECRET_ARN: this.apiToken.secretArn,
        PMAIL_EVENTS_QUEUE_URL: props.deliveryEvents.queueUrl,
      },
      logRetention: props.logRetention,
    });
    this.apiToken.grantRead(this.fn);
    // SendMessageBatch is authorised by sqs:SendMessage; nothing else on any other queue.
    props.deliveryEvents.grant(this.fn, 'sqs:SendMessage');

    this.schedule = new Rule(this, 'Schedule', {
      description: 'pmail Cloudflare events pull, every minute',
      schedule: Schedule.rate(Duration.minutes(1)),
      targets: [new LambdaFunction(this.fn.fn, { retryAttempts: 0 })],
    });
    new CfnOutput(this, 'ApiTokenSecretArn', {
      value: this.apiToken.secretArn,
      description: 'Put the Cloudflare API token (Queues read + write) in this secret',
    });
  }
}

/** The settings from props, else from context; undefined (no Cloudflare resources) when absent. */
export function cloudflareSettings(
  scope: Construct,
  given?: CloudflareSettings,
): CloudflareSettings | undefined {
  if (given) return given;
  const accountId = scope.node.tryGetContext(CLOUDFLARE_CONTEXT.accountId);
  const queueId = scope.node.tryGetContext(CLOUDFLARE_CONTEXT.queueId);
  if (!accountId && !queueId) return undefined;
  if (!accountId || !queueId)
    throw new Error(
      `Cloudflare events need both ${CLOUDFLARE_CONTEXT.accountId} and ${CLOUDFLARE_CONTEXT.queueId}`,
    );
  return { accountId: String(accountId), queueId: String(queueId) };
}
