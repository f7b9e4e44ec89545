import { Duration, Stack } from 'aws-cdk-lib';
import { ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { ConfigurationSet, EmailSendingEvent, EventDestination } from 'aws-cdk-lib/aws-ses';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { SqsSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { PmailFunction } from './defaults.ts';

export interface DeliveryEventsProps {
  /**
   * Environment of the consumer. The stack adds the table, bucket, queue and machine variables
   * later with `consumer.addEnvironment`, since the queue URL is this construct's own output.
   * @default - none
   */
  readonly environment?: Record<string, string>;
  /**
   * Receives before a message moves to the dead-letter queue. NotFound retries are bounded by age
   * (330 s), not by this count (core/reconcile.ts), so it is a backstop for poison messages.
   * @default 20
   */
  readonly maxReceiveCount?: number;
  /** @default RetentionDays.ONE_MONTH */
  readonly logRetention?: RetentionDays;
}

/**
 * The `delivery-events` queue with its dead-letter queue, and the one consumer that applies
 * delivery events (functions/events/consume.ts; docs/architecture.md › Events) with partial batch responses.
 */
export class DeliveryEvents extends Construct {
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;
  readonly consumer: PmailFunction;
  /** SES event publishing: the configuration set live SES sends name, and its SNS topic. */
  readonly sesConfigurationSet: ConfigurationSet;
  readonly sesTopic: Topic;

  constructor(scope: Construct, id: string, props: DeliveryEventsProps = {}) {
    super(scope, id);
    const stackName = Stack.of(this).stackName;

    this.deadLetterQueue = new Queue(this, 'DeadLetters', {
      queueName: `${stackName}-delivery-events-dlq`,
      retentionPeriod: Duration.days(14),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    this.queue = new Queue(this, 'Queue', {
      queueName: `${stackName}-delivery-events`,
      visibilityTimeout: Duration.seconds(60),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: props.maxReceiveCount ?? 20 },
    });

    // SES → SNS → SQS inside the account (no public endpoint, nothing to forge). The
    // subscription keeps the SNS envelope: its MessageId makes the event ids `ses:{id}:{rcpt}`.
    const topicKey = new Key(this, 'SesEventsKey', {
      description: 'pmail SES events topic',
      enableKeyRotation: true,
    });
    topicKey.grant(new ServicePrincipal('ses.amazonaws.com'), 'kms:GenerateDataKey*', 'kms:Decrypt');
    topicKey.grant(new ServicePrincipal('sns.amazonaws.com'), 'kms:GenerateDataKey*', 'kms:Decrypt');
    this.sesTopic = new Topic(this, 'SesEvents', {
      topicName: `${stackName}-ses-events`,
      masterKey: topicKey,
      enforceSSL: true,
    });
    this.sesTopic.addSubscription(new SqsSubscription(this.queue, { rawMessageDelivery: false }));
    this.sesConfigurationSet = new ConfigurationSet(this, 'SesConfigurationSet', {
      configurationSetName: stackName,
    });
    this.sesConfigurationSet.addEventDestination('ToDeliveryEvents', {
      destination: EventDestination.snsTopic(this.sesTopic),
      events: [
        EmailSendingEvent.SEND,
        EmailSendingEvent.DELIVERY,
        EmailSendingEvent.BOUNCE,
        EmailSendingEvent.COMPLAINT,
        EmailSendingEvent.REJECT,
        EmailSendingEvent.DELIVERY_DELAY,
        EmailSendingEvent.RENDERING_FAILURE,
      ],
    });

    this.consumer = new PmailFunction(this, 'Consumer', {
      entry: 'functions/events/delivery-events.handler.ts',
      handler: 'handler',
      description: 'pmail delivery-events consumer',
      // A sixth of the queue's 60 s visibility timeout, as AWS advises for SQS event sources.
      timeout: Duration.seconds(10),
      environment: props.environment,
      logRetention: props.logRetention,
    });
    this.consumer.fn.addEventSource(
      new SqsEventSource(this.queue, { batchSize: 10, reportBatchItemFailures: true }),
    );
  }
}
