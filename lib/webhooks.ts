import { Duration, Stack, Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { FilterCriteria, FilterRule, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { PmailFunction } from './defaults.ts';

export interface WebhooksProps {
  /** The table; its stream (NEW_IMAGE, lib/data.ts) carries the outbox inserts. */
  readonly table: ITable;
  /**
   * Environment of both functions. The stack adds the deliveries queue URL itself
   * (`PMAIL_WEBHOOK_QUEUE_URL`).
   * @default - none
   */
  readonly environment?: Record<string, string>;
  /**
   * Receives of one delivery message before it moves to the dead-letter queue. Retries per the
   * schedule are new messages, so this only bounds infrastructure failures (table, queue).
   * @default 10
   */
  readonly maxReceiveCount?: number;
  /** @default RetentionDays.ONE_MONTH */
  readonly logRetention?: RetentionDays;
}

/**
 * Webhook delivery: the table's stream, filtered to inserts of outbox events
 * (`type = "event"`), feeds the fan-out, which puts one job per (endpoint, event) on the
 * `webhook-deliveries` queue; the deliverer POSTs each, signed, and schedules its retries as new
 * delayed messages. Both consumers report partial batch failures.
 */
export class Webhooks extends Construct {
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;
  /** Stream batches the fan-out gave up on (after its retries): their shard and sequence numbers. */
  readonly fanOutFailures: Queue;
  readonly fanOut: PmailFunction;
  readonly deliverer: PmailFunction;

  constructor(scope: Construct, id: string, props: WebhooksProps) {
    super(scope, id);
    const stackName = Stack.of(this).stackName;
    const queueDefaults = { encryption: QueueEncryption.SQS_MANAGED, enforceSSL: true };

    this.deadLetterQueue = new Queue(this, 'DeadLetters', {
      queueName: `${stackName}-webhook-deliveries-dlq`,
      retentionPeriod: Duration.days(14),
      ...queueDefaults,
    });
    this.queue = new Queue(this, 'Deliveries', {
      queueName: `${stackName}-webhook-deliveries`,
      // Six times the deliverer's timeout, as AWS advises for SQS event sources.
      visibilityTimeout: Duration.seconds(180),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: props.maxReceiveCount ?? 10 },
      ...queueDefaults,
    });
    this.fanOutFailures = new Queue(this, 'FanOutFailures', {
      queueName: `${stackName}-webhook-fan-out-failures`,
      retentionPeriod: Duration.days(14),
      ...queueDefaults,
    });
    Validations.of(this.fanOutFailures).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason:
        'This queue is the dead-letter destination of the fan-out stream mapping (onFailure): it holds the shard and sequence numbers of batches given up on, for an operator to replay, and nothing consumes it.',
    });

    this.fanOut = new PmailFunction(this, 'FanOut', {
      entry: 'functions/webhooks/fan-out.handler.ts',
      handler: 'handler',
      description: 'pmail webhooks: outbox events to one delivery job per endpoint',
      timeout: Duration.seconds(30),
      environment: { ...props.environment, PMAIL_WEBHOOK_QUEUE_URL: this.queue.queueUrl },
      logRetention: props.logRetention,
    });
    this.fanOut.fn.addEventSource(
      new DynamoEventSource(props.table, {
        startingPosition: StartingPosition.TRIM_HORIZON,
        batchSize: 100,
        maxBatchingWindow: Duration.seconds(1),
        reportBatchItemFailures: true,
        // The same filter functions/webhooks/fan-out.ts applies (OUTBOX_INSERT_FILTER).
        filters: [
          FilterCriteria.filter({
            eventName: FilterRule.isEqual('INSERT'),
            dynamodb: { NewImage: { type: { S: FilterRule.or('event', 'webhook_test') } } },
          }),
        ],
        // A record that keeps failing must not hold its shard for the stream's 24 hours.
        retryAttempts: 20,
        bisectBatchOnError: true,
        maxRecordAge: Duration.hours(24),
        onFailure: new SqsDlq(this.fanOutFailures),
      }),
    );

    this.deliverer = new PmailFunction(this, 'Deliverer', {
      entry: 'functions/webhooks/deliver.handler.ts',
      handler: 'handler',
      description: 'pmail webhooks: signed POSTs to endpoints, retried on a schedule',
      // A delivery waits at most 15 s for its endpoint; ten run in parallel per batch.
      timeout: Duration.seconds(30),
      environment: { ...props.environment, PMAIL_WEBHOOK_QUEUE_URL: this.queue.queueUrl },
      logRetention: props.logRetention,
    });
    this.deliverer.fn.addEventSource(
      new SqsEventSource(this.queue, { batchSize: 10, reportBatchItemFailures: true }),
    );
    // Both put jobs on the queue: the fan-out the first attempts, the deliverer its retries.
    // SendMessageBatch is authorised by sqs:SendMessage; the queue URL comes from the environment.
    for (const fn of [this.fanOut, this.deliverer]) this.queue.grant(fn, 'sqs:SendMessage');
  }
}
