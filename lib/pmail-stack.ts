import { CfnOutput, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import { PmailApi } from './api.ts';
import { CloudflareEvents, type CloudflareSettings, cloudflareSettings } from './cloudflare-events.ts';
import { PmailData } from './data.ts';
import type { PmailFunction } from './defaults.ts';
import { DeliveryEvents } from './events.ts';
import { SendMachine } from './send-machine.ts';
import { Sweeper } from './sweeper.ts';
import { Webhooks } from './webhooks.ts';

export interface PmailStackProps extends StackProps {
  /**
   * Cloudflare Email Sending events: the account and the Cloudflare Queue to pull from.
   * @default - context `pmail:cloudflareAccountId` and `pmail:cloudflareEventsQueueId`; none → no
   * Cloudflare resources
   */
  readonly cloudflare?: CloudflareSettings;
}

/**
 * pmail in one stack: wires the data, events, send-machine and api constructs together and grants
 * each function what it uses and nothing more.
 *
 * Dependency direction: the send functions do not know the send-attempt machine (it references
 * them), the api and the events consumer do (they start it), so there is no cycle.
 */
export class PmailStack extends Stack {
  readonly data: PmailData;
  readonly events: DeliveryEvents;
  readonly send: SendMachine;
  readonly api: PmailApi;
  readonly sweeper: Sweeper;
  /** Present only when the stack is given Cloudflare settings. */
  readonly cloudflare?: CloudflareEvents;

  readonly webhooks: Webhooks;

  constructor(scope: Construct, id: string, props?: PmailStackProps) {
    super(scope, id, props);

    this.data = new PmailData(this, 'Data');
    this.events = new DeliveryEvents(this, 'DeliveryEvents');

    const environment: Record<string, string> = {
      PMAIL_TABLE: this.data.table.tableName,
      PMAIL_BLOB_BUCKET: this.data.bucket.bucketName,
      PMAIL_EVENTS_QUEUE_URL: this.events.queue.queueUrl,
      PMAIL_KEYS_SECRET_ARN: this.data.keys.secretArn,
    };
    this.send = new SendMachine(this, 'SendAttempt', { environment });

    // Only functions that start attempts learn the machine's ARN (never the send functions).
    const startsAttempts = {
      ...environment,
      PMAIL_SEND_ATTEMPT_ARN: this.send.attemptArn,
      PMAIL_SEND_ARN: this.send.sendArn,
    };
    this.events.consumer.addEnvironment(startsAttempts);
    this.api = new PmailApi(this, 'Api', { environment: startsAttempts });
    this.sweeper = new Sweeper(this, 'Sweeper', { environment: startsAttempts });

    const apiFunctions = Object.values(this.api.functions);
    const sendFunctions = [this.send.claim, this.send.transport, this.send.record];
    const all: PmailFunction[] = [...apiFunctions, ...sendFunctions, this.events.consumer, this.sweeper.fn];

    for (const fn of all) {
      this.data.grantTableReadWrite(fn);
      this.data.keys.grantRead(fn);
    }
    for (const fn of [...apiFunctions, this.send.transport]) this.data.grantBlobReadWrite(fn);
    // The api starts the Express attempt, or the Standard machine for a scheduled send; the sweeper
    // starts attempts and asks whether a named Standard execution still runs.
    for (const fn of [...apiFunctions, this.sweeper.fn]) {
      fn.grantPrincipal.addToPrincipalPolicy(
        new PolicyStatement({
          actions: ['states:StartExecution'],
          resources: [this.send.attemptArn, this.send.sendArn],
        }),
      );
    }
    this.sweeper.fn.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({ actions: ['states:DescribeExecution'], resources: [this.send.sendExecutions] }),
    );
    // GET /health asks whether both state machines answer.
    this.api.functions.meta.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['states:DescribeStateMachine'],
        resources: [this.send.attemptArn, this.send.sendArn],
      }),
    );
    Validations.of(this.sweeper.fn).acknowledge({
      id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:states:<AWS::Region>:<AWS::AccountId>:execution:${this.stackName}-send:*]`,
      reason:
        'The sweeper asks whether the Standard execution named on a message still runs; execution names are per message, so only the machine-wide prefix can be named.',
    });
    // Transport and Record emit TransportEvents (simulator, loopback); the consumer re-enqueues.
    for (const fn of [this.send.transport, this.send.record, this.events.consumer]) {
      this.events.queue.grant(fn, 'sqs:SendMessage');
    }
    // sqs:ChangeMessageVisibility (the 30 s NotFound retry) comes with the event source's grant.

    // Journal copies (seed 000 › Message-ID strategy B) are recognised on PM_PLATFORM_DOMAIN.
    const platformDomain = this.node.tryGetContext('pmail:platformDomain');
    if (platformDomain) this.events.consumer.addEnvironment({ PM_PLATFORM_DOMAIN: String(platformDomain) });
    const cloudflare = cloudflareSettings(this, props?.cloudflare);
    if (cloudflare)
      this.cloudflare = new CloudflareEvents(this, 'CloudflareEvents', {
        ...cloudflare,
        deliveryEvents: this.events.queue,
      });

    // Webhooks: the fan-out only lists a tenant's endpoints; the deliverer reads an endpoint and
    // an event and disables a gone endpoint. Both open the keys secret (loadLambdaDeps).
    this.webhooks = new Webhooks(this, 'Webhooks', { table: this.data.table, environment });
    this.data.grantTableItems(this.webhooks.fanOut, ['Query']);
    this.data.grantTableItems(this.webhooks.deliverer, ['GetItem', 'UpdateItem']);
    for (const fn of [this.webhooks.fanOut, this.webhooks.deliverer]) this.data.keys.grantRead(fn);

    new CfnOutput(this, 'ApiUrl', { value: this.api.url, description: 'Base URL of the pmail HTTP API' });
    new CfnOutput(this, 'TableName', { value: this.data.table.tableName });
    new CfnOutput(this, 'BucketName', { value: this.data.bucket.bucketName });
    new CfnOutput(this, 'SendAttemptArn', { value: this.send.stateMachine.stateMachineArn });
    new CfnOutput(this, 'SendArn', { value: this.send.sendMachine.stateMachineArn });
  }
}
