import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  CloudFormationClient,
  DescribeStacksCommand,
  ListStackResourcesCommand,
} from '@aws-sdk/client-cloudformation';
import { CloudWatchClient, DescribeAlarmsCommand } from '@aws-sdk/client-cloudwatch';
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DescribeActiveReceiptRuleSetCommand, SESClient } from '@aws-sdk/client-ses';
import { GetAccountCommand, ListEmailIdentitiesCommand, SESv2Client } from '@aws-sdk/client-sesv2';
import { DescribeStateMachineCommand, SFNClient } from '@aws-sdk/client-sfn';
import { ListSubscriptionsByTopicCommand, SNSClient } from '@aws-sdk/client-sns';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { FIX, type StackCheck, type StackClients, stackChecks } from '../../bin/cli/doctor-stack.ts';

/**
 * `pmail doctor --stack`: each check against AWS answers recorded in the shapes the APIs document
 * (CloudFormation DescribeStacks and ListStackResources, DynamoDB DescribeTable, Step Functions
 * DescribeStateMachine, SES DescribeActiveReceiptRuleSet, SESv2 GetAccount and ListEmailIdentities,
 * SNS ListSubscriptionsByTopic, CloudWatch DescribeAlarms). aws-sdk-client-mock stands in for AWS:
 * no local engine implements CloudFormation or the SES account. Every failure docs/deploying.md ›
 * When the first deploy fails lists is one case here, with the doctor's words.
 */

const REGION = 'eu-west-1';
const A = '123456789012';
const topic = (n: string) => `arn:aws:sns:${REGION}:${A}:${n}`;
const machine = (n: string) => `arn:aws:states:${REGION}:${A}:stateMachine:${n}`;

const stack = {
  StackName: 'Pmail',
  StackStatus: 'CREATE_COMPLETE',
  Outputs: [
    { OutputKey: 'ApiUrl', OutputValue: 'https://abc123.execute-api.eu-west-1.amazonaws.com/' },
    { OutputKey: 'TableName', OutputValue: 'Pmail-DataTable-1X2Y3Z' },
    { OutputKey: 'AlarmTopicArn', OutputValue: topic('Pmail-alarms') },
    { OutputKey: 'ReceiptRuleSetName', OutputValue: 'Pmail-inbound' },
    { OutputKey: 'ReceiptRuleName', OutputValue: 'Pmail-inbound' },
  ],
};
const resources = [
  {
    ResourceType: 'AWS::DynamoDB::Table',
    PhysicalResourceId: 'Pmail-DataTable-1X2Y3Z',
    LogicalResourceId: 'DataTable',
  },
  {
    ResourceType: 'AWS::StepFunctions::StateMachine',
    PhysicalResourceId: machine('Pmail-send-attempt'),
    LogicalResourceId: 'M1',
  },
  {
    ResourceType: 'AWS::StepFunctions::StateMachine',
    PhysicalResourceId: machine('Pmail-send'),
    LogicalResourceId: 'M2',
  },
  {
    ResourceType: 'AWS::SNS::Topic',
    PhysicalResourceId: topic('Pmail-alarms'),
    LogicalResourceId: 'AlarmsTopic',
  },
  {
    ResourceType: 'AWS::SNS::Topic',
    PhysicalResourceId: topic('Pmail-ses-events'),
    LogicalResourceId: 'SesEvents',
  },
  {
    ResourceType: 'AWS::CloudWatch::Alarm',
    PhysicalResourceId: 'Pmail-AlarmsApi5xxRate-ABC',
    LogicalResourceId: 'Api5xx',
  },
  {
    ResourceType: 'AWS::CloudWatch::Alarm',
    PhysicalResourceId: 'Pmail-AlarmsUncertainRate-DEF',
    LogicalResourceId: 'Unc',
  },
].map((r) => ({ ...r, ResourceStatus: 'CREATE_COMPLETE', LastUpdatedTimestamp: new Date() }));
/** CloudFormation's answer to a stack that does not exist (a ValidationError, HTTP 400). */
const noStack = (name: string) =>
  Object.assign(new Error(`Stack with id ${name} does not exist`), {
    name: 'ValidationError',
    $metadata: { httpStatusCode: 400 },
  });

const cfn = new CloudFormationClient({ region: REGION });
const ddb = new DynamoDBClient({ region: REGION });
const sfn = new SFNClient({ region: REGION });
const ses = new SESClient({ region: REGION });
const sesv2 = new SESv2Client({ region: REGION });
const sns = new SNSClient({ region: REGION });
const cw = new CloudWatchClient({ region: REGION });
const mocks = [cfn, ddb, sfn, ses, sesv2, sns, cw].map((c) => mockClient(c as never));
const [cfnMock, ddbMock, sfnMock, sesMock, sesv2Mock, snsMock, cwMock] = mocks;
let health: { status: number; body: unknown };
const clients: StackClients = {
  cloudformation: cfn,
  dynamodb: ddb,
  sfn,
  ses,
  sesv2,
  sns,
  cloudwatch: cw,
  fetch: (async () => new Response(JSON.stringify(health.body), { status: health.status })) as typeof fetch,
};

/** A healthy deployed stack: every answer as AWS gives it after a good first deploy. */
beforeEach(() => {
  for (const m of mocks) m.reset();
  cfnMock.on(DescribeStacksCommand, { StackName: 'Pmail' }).resolves({ Stacks: [stack as never] });
  cfnMock
    .on(DescribeStacksCommand, { StackName: 'CDKToolkit' })
    .resolves({ Stacks: [{ StackName: 'CDKToolkit' } as never] });
  cfnMock.on(ListStackResourcesCommand).resolves({ StackResourceSummaries: resources as never });
  ddbMock
    .on(DescribeTableCommand)
    .resolves({ Table: { TableName: 'Pmail-DataTable-1X2Y3Z', TableStatus: 'ACTIVE' } });
  sfnMock.on(DescribeStateMachineCommand).resolves({ status: 'ACTIVE' } as never);
  sesMock.on(DescribeActiveReceiptRuleSetCommand).resolves({
    Metadata: { Name: 'Pmail-inbound', CreatedTimestamp: new Date() },
    Rules: [{ Name: 'Pmail-inbound', Enabled: true }],
  });
  sesv2Mock
    .on(GetAccountCommand)
    .resolves({ SendingEnabled: true, ProductionAccessEnabled: true, EnforcementStatus: 'HEALTHY' });
  sesv2Mock.on(ListEmailIdentitiesCommand).resolves({
    EmailIdentities: [
      {
        IdentityName: 'mail.example.com',
        IdentityType: 'DOMAIN',
        SendingEnabled: true,
        VerificationStatus: 'SUCCESS',
      },
    ],
  });
  snsMock.on(ListSubscriptionsByTopicCommand).resolves({
    Subscriptions: [
      { SubscriptionArn: `${topic('Pmail-alarms')}:0b1c`, Protocol: 'email', Endpoint: 'ops@example.com' },
    ],
  });
  cwMock.on(DescribeAlarmsCommand).resolves({
    MetricAlarms: [
      { AlarmName: 'Pmail-AlarmsApi5xxRate-ABC', StateValue: 'OK' },
      { AlarmName: 'Pmail-AlarmsUncertainRate-DEF', StateValue: 'INSUFFICIENT_DATA' },
    ],
  });
  health = { status: 200, body: { status: 'ok', checks: { table: 'ok', state_machines: 'ok' } } };
});

const run = (region = REGION) => stackChecks('Pmail', region, clients);
const named = (checks: StackCheck[], name: string) => checks.find((c) => c.name === name);

describe('pmail doctor --stack', () => {
  it('passes every check of a healthy stack, read-only', async () => {
    const checks = await run();
    expect(checks.filter((c) => c.result !== 'pass')).toEqual([]);
    expect(checks.map((c) => c.name)).toEqual(
      expect.arrayContaining([
        'stack',
        'api',
        'table',
        'state machines',
        'receipt rule set',
        'ses sandbox',
        'alarms',
      ]),
    );
    // Only reads: Describe*, List*, Get*.
    const sent = mocks.flatMap((m) => m.calls().map((c) => (c.args[0] as object).constructor.name));
    expect(sent.every((n) => /^(Describe|List|Get)/.test(n))).toBe(true);
  });

  it('no CDK bootstrap: names the bootstrap command', async () => {
    cfnMock.on(DescribeStacksCommand).rejects(noStack('Pmail'));
    const checks = await run();
    expect(named(checks, 'cdk bootstrap')).toMatchObject({ result: 'fail', fix: FIX.bootstrap(REGION) });
    expect(FIX.bootstrap(REGION)).toContain('npx cdk bootstrap');
  });

  it('bootstrapped but not deployed: says to deploy', async () => {
    cfnMock.on(DescribeStacksCommand, { StackName: 'Pmail' }).rejects(noStack('Pmail'));
    expect(named(await run(), 'stack')).toMatchObject({
      result: 'fail',
      fix: FIX.notDeployed('Pmail', REGION),
    });
  });

  it('a Region without SES receiving: names the Regions that have it', async () => {
    cfnMock.on(DescribeStacksCommand, { StackName: 'Pmail' }).rejects(noStack('Pmail'));
    const checks = await run('ap-east-1');
    expect(named(checks, 'ses receiving')).toMatchObject({
      result: 'fail',
      fix: FIX.receivingRegion('ap-east-1'),
    });
    expect(FIX.receivingRegion('ap-east-1')).toContain('eu-west-1');
    expect(named(await run('eu-west-1'), 'ses receiving')).toBeUndefined();
  });

  it('the receipt rule set not active: names the command that activates it', async () => {
    sesMock.on(DescribeActiveReceiptRuleSetCommand).resolves({});
    expect(named(await run(), 'receipt rule set')).toMatchObject({
      result: 'fail',
      detail: "active: none; pmail's: Pmail-inbound",
      fix: FIX.ruleSetInactive('Pmail-inbound'),
    });
    sesMock.on(DescribeActiveReceiptRuleSetCommand).resolves({ Metadata: { Name: 'other-set' }, Rules: [] });
    expect(named(await run(), 'receipt rule set')?.result).toBe('fail');
  });

  it('the SES sandbox: a warning that says how to leave it', async () => {
    sesv2Mock.on(GetAccountCommand).resolves({ SendingEnabled: true, ProductionAccessEnabled: false });
    expect(named(await run(), 'ses sandbox')).toMatchObject({ result: 'warn', fix: FIX.sandbox });
  });

  it('sending disabled, no verified identity', async () => {
    sesv2Mock.on(GetAccountCommand).resolves({ SendingEnabled: false, ProductionAccessEnabled: true });
    sesv2Mock.on(ListEmailIdentitiesCommand).resolves({
      EmailIdentities: [
        {
          IdentityName: 'mail.example.com',
          IdentityType: 'DOMAIN',
          SendingEnabled: false,
          VerificationStatus: 'PENDING',
        },
      ],
    });
    const checks = await run();
    expect(named(checks, 'ses sending')).toMatchObject({ result: 'fail', fix: FIX.sendingDisabled });
    expect(named(checks, 'ses identity')).toMatchObject({ result: 'warn', fix: FIX.noIdentity });
  });

  it('an alarm subscription not confirmed, and an alarm topic nobody follows', async () => {
    snsMock.on(ListSubscriptionsByTopicCommand).resolves({
      Subscriptions: [
        { SubscriptionArn: 'PendingConfirmation', Protocol: 'email', Endpoint: 'ops@example.com' },
      ],
    });
    expect(named(await run(), 'subscriptions Pmail-alarms')).toMatchObject({
      result: 'warn',
      fix: FIX.unconfirmed(topic('Pmail-alarms')),
    });
    snsMock.on(ListSubscriptionsByTopicCommand).resolves({ Subscriptions: [] });
    expect(named(await run(), 'subscriptions Pmail-alarms')).toMatchObject({
      result: 'warn',
      fix: FIX.noSubscriber(topic('Pmail-alarms')),
    });
  });

  it('the API, the table, a machine, an alarm: each failure named with what to do', async () => {
    health = {
      status: 503,
      body: { status: 'degraded', checks: { table: 'ok', state_machines: 'unreachable' } },
    };
    ddbMock.on(DescribeTableCommand).resolves({ Table: { TableStatus: 'CREATING' } });
    sfnMock.on(DescribeStateMachineCommand).resolves({ status: 'DELETING' } as never);
    cwMock
      .on(DescribeAlarmsCommand)
      .resolves({ MetricAlarms: [{ AlarmName: 'Pmail-AlarmsApi5xxRate-ABC', StateValue: 'ALARM' }] });
    const checks = await run();
    expect(named(checks, 'api')).toMatchObject({ result: 'fail', fix: FIX.api });
    expect(named(checks, 'table')).toMatchObject({ result: 'fail', fix: FIX.table });
    expect(named(checks, 'state machines')).toMatchObject({ result: 'fail', fix: FIX.machines });
    expect(named(checks, 'alarms')).toMatchObject({ result: 'fail', fix: FIX.alarms });
    expect(named(checks, 'alarms')?.detail).toContain('in ALARM: Pmail-AlarmsApi5xxRate-ABC');
  });

  it('a failed deploy, and refused access, say what to do', async () => {
    cfnMock
      .on(DescribeStacksCommand, { StackName: 'Pmail' })
      .resolves({ Stacks: [{ ...stack, StackStatus: 'ROLLBACK_COMPLETE' } as never] });
    sesv2Mock.on(GetAccountCommand).rejects(
      Object.assign(new Error('User is not authorized to perform: ses:GetAccount'), {
        name: 'AccessDeniedException',
        $metadata: {},
      }),
    );
    const checks = await run();
    expect(named(checks, 'stack')).toMatchObject({ result: 'fail', fix: FIX.failedStack });
    expect(named(checks, 'ses account')?.detail).toContain('your AWS credentials lack this permission');
  });
});

describe('docs/deploying.md › When the first deploy fails', () => {
  it('quotes the doctor’s words for each failure it lists', () => {
    const guide = readFileSync(join(import.meta.dirname, '../../docs/deploying.md'), 'utf8');
    for (const words of [
      FIX.bootstrap('eu-west-1'),
      FIX.notDeployed('Pmail', 'eu-west-1'),
      FIX.ruleSetInactive('Pmail-inbound'),
      FIX.sandbox,
      FIX.noIdentity,
      FIX.failedStack,
      FIX.receivingRegion('ap-east-1').slice(0, FIX.receivingRegion('ap-east-1').indexOf(' us-east-2')),
    ])
      expect(guide).toContain(words);
  });
});
