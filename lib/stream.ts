import { type CfnElement, Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import { LogGroupLogDestination, WebSocketApi, WebSocketStage } from 'aws-cdk-lib/aws-apigatewayv2';
import { WebSocketLambdaAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { WebSocketLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { FilterCriteria, FilterRule, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { STREAM_HEARTBEAT_MS } from '../functions/core/stream.ts';
import { PmailFunction } from './defaults.ts';

export interface PmailStreamProps {
  /** The table; its stream (NEW_IMAGE, lib/data.ts) wakes the fan-out. */
  readonly table: ITable;
  /** Environment of the three functions (the table, the keys secret). */
  readonly environment: Record<string, string>;
  /** @default RetentionDays.ONE_MONTH */
  readonly logRetention?: RetentionDays;
}

/** The WebSocket API's stage: its URL is `wss://{api}.execute-api.{region}.amazonaws.com/v1`. */
export const STREAM_STAGE = 'v1';

/**
 * The event stream on AWS (docs/guides/stream.md, docs/design/stream.md): an API Gateway WebSocket
 * API whose `$connect` runs a REQUEST authorizer (the API key on the upgrade, or a ticket) and
 * records the connection in the table; `$disconnect` forgets it; `$default` ignores what clients
 * send. The fan-out — the one function that may post to the connections — is woken by the table's
 * stream (outbox events, new connections, revoked keys) and by a schedule every minute
 * (heartbeats, keys that ended, catch-up).
 */
export class PmailStream extends Construct {
  readonly api: WebSocketApi;
  readonly stage: WebSocketStage;
  readonly authorizer: PmailFunction;
  readonly routes: PmailFunction;
  readonly fanOut: PmailFunction;
  readonly schedule: Rule;
  /** Stream batches the fan-out gave up on (after its retries): their shard and sequence numbers. */
  readonly fanOutFailures: Queue;

  constructor(scope: Construct, id: string, props: PmailStreamProps) {
    super(scope, id);
    const gateway = { PMAIL_STREAM_GATEWAY: `${Stack.of(this).stackName}-stream` };
    const common = { environment: { ...props.environment, ...gateway }, logRetention: props.logRetention };
    this.authorizer = new PmailFunction(this, 'Authorizer', {
      entry: 'functions/api/stream-authorizer.handler.ts',
      description: 'pmail stream: the $connect authorizer (API key or ticket)',
      ...common,
    });
    this.routes = new PmailFunction(this, 'Routes', {
      entry: 'functions/api/stream.handler.ts',
      description: 'pmail stream: $connect, $disconnect and $default',
      ...common,
    });
    const integration = (name: string) => new WebSocketLambdaIntegration(name, this.routes.fn);
    this.api = new WebSocketApi(this, 'WebSocket', {
      description: 'pmail event stream',
      connectRouteOptions: {
        integration: integration('ConnectIntegration'),
        // The key comes as a header or a ticket in the query; the authorizer reads both, so its
        // identity source is a header every upgrade carries.
        authorizer: new WebSocketLambdaAuthorizer('Authorizer', this.authorizer.fn, {
          identitySource: ['route.request.header.Host'],
        }),
      },
      disconnectRouteOptions: { integration: integration('DisconnectIntegration') },
      defaultRouteOptions: { integration: integration('DefaultIntegration') },
    });
    const accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: props.logRetention ?? RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.stage = new WebSocketStage(this, 'Stage', {
      webSocketApi: this.api,
      stageName: STREAM_STAGE,
      autoDeploy: true,
      accessLogSettings: {
        destination: new LogGroupLogDestination(accessLogs),
        format: AccessLogFormat.custom(
          JSON.stringify({
            requestId: '$context.requestId',
            requestTime: '$context.requestTime',
            routeKey: '$context.routeKey',
            eventType: '$context.eventType',
            status: '$context.status',
            connectionId: '$context.connectionId',
            integrationError: '$context.integrationErrorMessage',
          }),
        ),
      },
    });
    Validations.of(this.api).acknowledge({
      id: 'AwsSolutions-APIG4',
      reason:
        'A WebSocket API authorizes on $connect only (its REQUEST authorizer checks the pmail API key or ticket); $disconnect and $default belong to a connection already authorized.',
    });

    this.fanOutFailures = new Queue(this, 'FanOutFailures', {
      retentionPeriod: Duration.days(14),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    Validations.of(this.fanOutFailures).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason:
        'This queue is the dead-letter destination of the stream fan-out mapping (onFailure): it records batches given up on; the schedule catches their connections up within a minute.',
    });
    this.fanOut = this.buildFanOut(props, common.environment, common.logRetention);
    this.schedule = new Rule(this, 'Schedule', {
      description: 'pmail stream: heartbeats, ended keys, catch-up',
      schedule: Schedule.rate(Duration.millis(STREAM_HEARTBEAT_MS)),
      targets: [new LambdaFunction(this.fanOut.fn, { retryAttempts: 0 })],
    });
  }

  private buildFanOut(
    props: PmailStreamProps,
    environment: Record<string, string>,
    logRetention?: RetentionDays,
  ) {
    const fanOut = new PmailFunction(this, 'FanOut', {
      entry: 'functions/stream/fan-out.handler.ts',
      description: 'pmail stream: the tenant feed to each connection, in order, once',
      timeout: Duration.seconds(60),
      environment: { ...environment, PMAIL_STREAM_ENDPOINT: this.stage.callbackUrl },
      logRetention,
    });
    fanOut.fn.addEventSource(
      new DynamoEventSource(props.table, {
        startingPosition: StartingPosition.LATEST,
        batchSize: 100,
        reportBatchItemFailures: true,
        // The same filters functions/stream/fan-out.ts reads (STREAM_WAKE_FILTERS).
        filters: [
          FilterCriteria.filter({
            eventName: FilterRule.isEqual('INSERT'),
            dynamodb: { NewImage: { type: { S: FilterRule.or('event', 'stream_connection') } } },
          }),
          FilterCriteria.filter({
            eventName: FilterRule.isEqual('MODIFY'),
            dynamodb: {
              NewImage: {
                type: { S: FilterRule.isEqual('api_key') },
                revoked_at: { N: FilterRule.exists() },
              },
            },
          }),
        ],
        retryAttempts: 10,
        bisectBatchOnError: true,
        maxRecordAge: Duration.hours(1),
        onFailure: new SqsDlq(this.fanOutFailures),
      }),
    );
    // Only the fan-out may post to (and close) the stream's connections.
    this.stage.grantManagementApiAccess(fanOut.fn);
    const apiId = Stack.of(this).resolve((this.api.node.defaultChild as CfnElement).logicalId);
    Validations.of(fanOut).acknowledge({
      id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:execute-api:<AWS::Region>:<AWS::AccountId>:<${apiId}>/${STREAM_STAGE}/*/@connections/*]`,
      reason:
        'Connection ids are minted by API Gateway at each connect: the fan-out posts to and closes any connection of this one stage.',
    });
    return fanOut;
  }

  /** The URL clients open: `wss://{api}.execute-api.{region}.amazonaws.com/v1`. */
  get url(): string {
    return this.stage.url;
  }
}
