import { CfnOutput, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { CfnBucket } from 'aws-cdk-lib/aws-s3';
import type { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { INBOUND_RAW_PREFIX } from '../functions/inbound/notification.ts';
import { alarmSettings, PmailAlarms } from './alarms.ts';
import { PmailApi } from './api.ts';
import { CloudflareEvents, type CloudflareSettings, cloudflareSettings } from './cloudflare-events.ts';
import { PmailDashboard } from './dashboard.ts';
import { PmailData } from './data.ts';
import type { PmailFunction } from './defaults.ts';
import { discover } from './discover.ts';
import { DomainCheck } from './domains.ts';
import { DeliveryEvents } from './events.ts';
import { InboundReceiving, receivingSettings } from './inbound.ts';
import { OrphanSweep } from './orphans.ts';
import { cloudflareSendingToken, grantSmtpSecretsRead, grantSmtpSecretsWrite } from './relay-secrets.ts';
import { SendMachine } from './send-machine.ts';
import { PmailStream } from './stream.ts';
import { Sweeper } from './sweeper.ts';
import { Webhooks } from './webhooks.ts';

/** How cdk-nag names the SES wildcard resources (acknowledged where granted). */
const SES_IDENTITIES_NAG = 'arn:<AWS::Partition>:ses:*:<AWS::AccountId>:identity/*';
const SES_CONFIGURATION_SETS_NAG = 'arn:<AWS::Partition>:ses:*:<AWS::AccountId>:configuration-set/*';

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
  readonly orphans: OrphanSweep;
  /** The Cloudflare Email Sending token of the Cloudflare transport (the operator fills it). */
  readonly cloudflareSendingToken?: Secret;
  /** Present only when the stack is given Cloudflare settings. */
  readonly cloudflare?: CloudflareEvents;

  readonly webhooks: Webhooks;
  readonly stream: PmailStream;
  readonly dashboard: PmailDashboard;
  readonly alarms: PmailAlarms;
  readonly domainCheck: DomainCheck;
  /** SES receiving; absent with `pmail:receiving=false`. */
  readonly inbound?: InboundReceiving;

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
    // SES identities and configuration sets of this account in any Region: a domain may name its own.
    const sesIdentityArn = `arn:${this.partition}:ses:*:${this.account}:identity/*`;
    const sesConfigurationSetsArn = `arn:${this.partition}:ses:*:${this.account}:configuration-set/*`;

    // Only functions that start attempts learn the machine's ARN (never the send functions).
    const startsAttempts = {
      ...environment,
      PMAIL_SEND_ATTEMPT_ARN: this.send.attemptArn,
      PMAIL_SEND_ARN: this.send.sendArn,
    };
    this.events.consumer.addEnvironment(startsAttempts);
    this.api = new PmailApi(this, 'Api', { environment: startsAttempts });
    this.sweeper = new Sweeper(this, 'Sweeper', { environment: startsAttempts });

    // The console's function serves its built files only (functions/api/console.handler.ts): no data.
    const { console: _console, ...dataApi } = this.api.functions;
    const apiFunctions = Object.values(dataApi);
    const sendFunctions = [this.send.claim, this.send.record];
    const all: PmailFunction[] = [...apiFunctions, ...sendFunctions, this.events.consumer, this.sweeper.fn];

    for (const fn of all) {
      this.data.grantTableReadWrite(fn);
      this.data.grantKeysRead(fn);
    }
    // Record writes loopback's inbound copies (functions/send/loopback-delivery.ts).
    for (const fn of [...apiFunctions, this.send.record]) this.data.grantBlobReadWrite(fn);
    // Each transport task reads the message, its domain and the directory and writes the claim with
    // its sending mark (functions/send/transport-task.ts); a follow-up sent unless they reply is
    // claimed with a guard on its thread's answers (ConditionCheckItem), or canceled with its event
    // at a feed position (PutItem): functions/send/unless-reply.ts; the SMTP one's PutItem also fails
    // a relay's domain that refuses the login (functions/domains/relay-refusal.ts). No keys, no blob writes.
    // Provider grants follow per transport.
    for (const fn of this.send.transportFunctions) {
      this.data.grantTableItems(fn, [
        'GetItem',
        'BatchGetItem',
        'UpdateItem',
        'ConditionCheckItem',
        'PutItem',
      ]);
    }
    // The SMTP relay transport reads the stored copy it sends and its domains' relay secrets.
    const smtp = this.send.transports.smtp;
    if (smtp) {
      this.data.grantOutboundRead(smtp);
      grantSmtpSecretsRead(smtp);
    }
    // The Cloudflare transport reads the stored copy it sends and, when the stack has Cloudflare
    // settings, its own sending token (without them it refuses every send: no account, no token).
    const cfTransport = this.send.transports.cloudflare;
    const cfSettings = cloudflareSettings(this, props?.cloudflare);
    if (cfTransport) {
      this.data.grantOutboundRead(cfTransport);
      if (cfSettings)
        this.cloudflareSendingToken = cloudflareSendingToken(this, cfTransport, cfSettings.accountId);
    }
    const ses = this.send.transports.ses;
    if (ses) {
      // SES sends the stored .eml: it reads that copy, and may send from the account's verified
      // identities (the tenants' domains, created at runtime) through the stack's configuration set.
      this.data.grantBlobRead(ses);
      ses.fn.addEnvironment(
        'PMAIL_SES_CONFIGURATION_SET',
        this.events.sesConfigurationSet.configurationSetName,
      );
      // A domain may name its own Region and configuration set (`ses.region`, `ses.configuration_set`).
      ses.grantPrincipal.addToPrincipalPolicy(
        new PolicyStatement({
          actions: ['ses:SendEmail'],
          resources: [sesIdentityArn, sesConfigurationSetsArn],
        }),
      );
      Validations.of(ses).acknowledge(
        {
          id: `AwsSolutions-IAM5[Resource::${SES_IDENTITIES_NAG}]`,
          reason:
            'Sending domains are SES identities created at runtime by the domains API, in the deployment Region or the one a domain names: SendEmail may use any identity of this account.',
        },
        {
          id: `AwsSolutions-IAM5[Resource::${SES_CONFIGURATION_SETS_NAG}]`,
          reason:
            'A domain sends through the stack configuration set unless it names its own (ses.configuration_set), in its own Region.',
        },
      );
    }
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
    // The simulator and Record (loopback) emit their events. The consumer sends none: an event it
    // cannot apply yet comes back by its visibility timeout.
    const simulator = this.send.transports.simulator;
    for (const fn of [...(simulator ? [simulator] : []), this.send.record]) {
      this.events.queue.grant(fn, 'sqs:SendMessage');
    }
    // sqs:ChangeMessageVisibility (the 30 s NotFound retry) comes with the event source's grant.

    // Sending domains: the domains API creates, reads and deletes SES identities (in the stack's
    // configuration set); the hourly check reads them and finishes removals.
    this.domainCheck = new DomainCheck(this, 'DomainCheck', { environment });
    this.data.grantTableItems(this.domainCheck.fn, ['GetItem', 'Query', 'PutItem']);
    this.data.grantKeysRead(this.domainCheck.fn);
    const domainsApi = this.api.functions.domains;
    domainsApi.fn.addEnvironment(
      'PMAIL_SES_CONFIGURATION_SET',
      this.events.sesConfigurationSet.configurationSetName,
    );
    domainsApi.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        actions: [
          'ses:CreateEmailIdentity',
          'ses:GetEmailIdentity',
          'ses:DeleteEmailIdentity',
          'ses:PutEmailIdentityMailFromAttributes',
        ],
        resources: [sesIdentityArn],
      }),
    );
    // CreateEmailIdentity with ConfigurationSetName is authorised on the configuration set too (the
    // stack's, or the one a domain names).
    domainsApi.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({ actions: ['ses:CreateEmailIdentity'], resources: [sesConfigurationSetsArn] }),
    );
    this.domainCheck.fn.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['ses:GetEmailIdentity', 'ses:DeleteEmailIdentity'],
        resources: [sesIdentityArn],
      }),
    );
    for (const fn of [domainsApi, this.domainCheck.fn]) {
      Validations.of(fn).acknowledge({
        id: `AwsSolutions-IAM5[Resource::${SES_IDENTITIES_NAG}]`,
        reason:
          'Sending domains are SES identities named by tenants at runtime, in the deployment Region or the one a domain names: the domains API and the domain check manage any identity of this account.',
      });
    }
    Validations.of(domainsApi).acknowledge({
      id: `AwsSolutions-IAM5[Resource::${SES_CONFIGURATION_SETS_NAG}]`,
      reason:
        'A new identity joins the stack configuration set unless its domain names its own (ses.configuration_set).',
    });

    // SMTP relay domains: the domains API alone writes their credentials (write-only: it never reads
    // them); the SMTP transport alone reads them, so the relay probe runs there — the domains API and
    // the domain check may invoke that one function (a `{ probe }` event; functions/domains/smtp-probe.ts).
    grantSmtpSecretsWrite(domainsApi);
    if (smtp) {
      for (const fn of [domainsApi, this.domainCheck.fn]) {
        fn.grantPrincipal.addToPrincipalPolicy(
          new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [smtp.fn.functionArn] }),
        );
        fn.addEnvironment({ PMAIL_SMTP_PROBE_FUNCTION: smtp.fn.functionName });
      }
    }

    // Journal copies (functions/core/journal.ts) are recognised on PM_PLATFORM_DOMAIN.
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
    this.data.grantTableItems(this.webhooks.deliverer, ['GetItem', 'UpdateItem', 'PutItem']);
    for (const fn of [this.webhooks.fanOut, this.webhooks.deliverer]) this.data.grantKeysRead(fn);

    // The event stream (lib/stream.ts): the authorizer reads keys, tickets and identities and marks
    // a key used and a ticket spent; the routes record and forget connections; the fan-out reads
    // feeds, events and connections (gsi1: a gateway's), seals gaps and moves positions.
    this.stream = new PmailStream(this, 'Stream', { table: this.data.table, environment });
    this.data.grantTableItems(this.stream.authorizer, ['GetItem', 'BatchGetItem', 'UpdateItem']);
    this.data.grantTableItems(this.stream.routes, ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem']);
    this.data.grantTableItems(this.stream.fanOut, [
      'GetItem',
      'BatchGetItem',
      'Query',
      'PutItem',
      'UpdateItem',
      'DeleteItem',
    ]);
    this.stream.fanOut.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['dynamodb:Query'],
        resources: [`${this.data.table.tableArn}/index/gsi1`],
      }),
    );
    for (const fn of [this.stream.authorizer, this.stream.routes, this.stream.fanOut])
      this.data.keys.grantRead(fn);
    // Tickets answer the stream's URL; the console's policy lets the page connect to it.
    for (const fn of [this.api.functions.events, this.api.functions.console])
      fn.fn.addEnvironment('PM_STREAM_URL', this.stream.url);

    // The daily orphan pass lists tenants and identities, reads messages, lists and deletes blobs
    // and the orphans' search documents.
    this.orphans = new OrphanSweep(this, 'Orphans', {
      environment: { PMAIL_TABLE: this.data.table.tableName, PMAIL_BLOB_BUCKET: this.data.bucket.bucketName },
    });
    this.data.grantTableItems(this.orphans.fn, ['BatchGetItem', 'DeleteItem']);
    this.orphans.fn.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['dynamodb:Query'],
        resources: [`${this.data.table.tableArn}/index/gsi1`],
      }),
    );
    this.data.grantOutboundListDelete(this.orphans.fn);

    // Receiving (lib/inbound.ts): the ingest reads the raw message SES stored, writes each
    // recipient's copy and the message items, and publishes the delivery events of routed DSNs.
    // Its metrics are EMF lines in its own log group (functions/metrics.ts): no further grant.
    const receiving = receivingSettings(this);
    if (receiving) {
      this.inbound = new InboundReceiving(this, 'Inbound', {
        bucket: this.data.bucket,
        settings: receiving,
        environment,
      });
      const ingest = this.inbound.ingest;
      this.data.grantTableReadWrite(ingest);
      this.data.grantKeysRead(ingest);
      this.events.queue.grant(ingest, 'sqs:SendMessage');
      const raw = `${INBOUND_RAW_PREFIX}*`;
      const copies = 't/*/i/*/in/*';
      ingest.grantPrincipal.addToPrincipalPolicy(
        new PolicyStatement({ actions: ['s3:GetObject'], resources: [this.data.bucket.arnForObjects(raw)] }),
      );
      // DeleteObject: a repeat's or a duplicate's copy that no message took is removed
      // (functions/inbound/ingest.ts › dropRawCopy).
      ingest.grantPrincipal.addToPrincipalPolicy(
        new PolicyStatement({
          actions: ['s3:GetObject', 's3:PutObject', 's3:DeleteObject'],
          resources: [this.data.bucket.arnForObjects(copies)],
        }),
      );
      ingest.grantPrincipal.addToPrincipalPolicy(
        new PolicyStatement({ actions: ['s3:ListBucket'], resources: [this.data.bucket.bucketArn] }),
      );
      const bucketId = this.resolve((this.data.bucket.node.defaultChild as CfnBucket).logicalId);
      Validations.of(ingest).acknowledge(
        {
          id: `AwsSolutions-IAM5[Resource::<${bucketId}.Arn>/${raw}]`,
          reason:
            'SES names each received message by its own message id under the inbound prefix: read only.',
        },
        {
          id: `AwsSolutions-IAM5[Resource::<${bucketId}.Arn>/${copies}]`,
          reason:
            'A received message is stored once per recipient identity (t/{ten}/i/{idn}/in/{msg}.eml): any tenant and identity, inbound keys only.',
        },
      );
      // `pmail doctor --stack` checks that this rule set is the active one and holds this rule.
      new CfnOutput(this, 'ReceiptRuleSetName', { value: this.inbound.ruleSetName });
      new CfnOutput(this, 'ReceiptRuleName', { value: this.inbound.rule.receiptRuleName });
      // The domains API suggests, and the domain check looks for, the MX record of this Region.
      for (const fn of [this.api.functions.domains, this.domainCheck.fn]) {
        fn.addEnvironment({ PMAIL_INBOUND_REGION: this.region });
      }
    }

    // Observability last: the dashboard and the alarms cover every function, machine and queue
    // found in the stack at this point, whichever construct added it. Add new constructs above.
    const discovered = discover(this);
    this.dashboard = new PmailDashboard(this, 'Dashboard', {
      discovered,
      httpApi: this.api.httpApi,
      table: this.data.table,
    });
    this.alarms = new PmailAlarms(this, 'Alarms', {
      discovered,
      httpApi: this.api.httpApi,
      settings: alarmSettings(this),
    });
    new CfnOutput(this, 'AlarmTopicArn', {
      value: this.alarms.topic.topicArn,
      description: 'SNS topic of every pmail alarm: subscribe to it',
    });
    new CfnOutput(this, 'DashboardName', { value: this.dashboard.dashboard.dashboardName });

    new CfnOutput(this, 'ApiUrl', { value: this.api.url, description: 'Base URL of the pmail HTTP API' });
    new CfnOutput(this, 'StreamUrl', {
      value: this.stream.url,
      description: 'The event stream (WebSocket): docs/guides/stream.md',
    });
    new CfnOutput(this, 'TableName', { value: this.data.table.tableName });
    new CfnOutput(this, 'BucketName', { value: this.data.bucket.bucketName });
    new CfnOutput(this, 'SendAttemptArn', { value: this.send.stateMachine.stateMachineArn });
    new CfnOutput(this, 'SendArn', { value: this.send.sendMachine.stateMachineArn });
  }
}
