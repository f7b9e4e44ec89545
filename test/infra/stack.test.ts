import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { type CfnElement, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeGroupEntries, routes } from '../../functions/api/routes.ts';
import { WAIT_MAX_SECONDS } from '../../functions/core/follow.ts';
import { BATCH_TIME_BUDGET_MS } from '../../functions/core/limits.ts';
import { LOCK_WAIT_MAX_MS } from '../../functions/send/submit.ts';
import { STREAM_WAKE_FILTERS } from '../../functions/stream/fan-out.ts';
import { TRANSPORT_TASKS } from '../../functions/transports/tasks.ts';
import { OUTBOX_INSERT_FILTER } from '../../functions/webhooks/fan-out.ts';
import { createPmailApp } from '../../lib/app.ts';
import { ESM_REQUIRE_BANNER, LAMBDA_MEMORY_MB, type PmailFunction } from '../../lib/defaults.ts';
import { INGEST_MEMORY_MB } from '../../lib/inbound.ts';
import type { PmailStack } from '../../lib/pmail-stack.ts';

type Resource = { Type: string; Properties: Record<string, unknown>; DependsOn?: string | string[] };

let stack: PmailStack;
let outdir: string;
let template: Template;
let resources: Record<string, Resource>;

beforeAll(() => {
  // One synthesis for the whole file: it bundles every handler with esbuild.
  const built = createPmailApp();
  stack = built.stack;
  outdir = built.app.outdir;
  template = Template.fromStack(stack);
  resources = template.toJSON().Resources;
}, 300_000);

afterAll(() => rmSync(outdir, { recursive: true, force: true }));

const logicalId = (element: IConstruct): string =>
  Stack.of(stack).resolve((element.node.defaultChild as CfnElement).logicalId);
const ofType = (type: string): [string, Resource][] =>
  Object.entries(resources).filter(([, r]) => r.Type === type);

/** The actions each function's role may take, with the resources of each action (as JSON). */
function envOf(fn: PmailFunction): Record<string, unknown> {
  return (resources[logicalId(fn.fn)].Properties.Environment as { Variables: Record<string, unknown> })
    .Variables;
}

function permissionsOf(fn: PmailFunction): Map<string, string[]> {
  const role = logicalId(fn.role);
  const granted = new Map<string, string[]>();
  for (const [, policy] of ofType('AWS::IAM::Policy')) {
    const props = policy.Properties as {
      Roles: { Ref: string }[];
      PolicyDocument: { Statement: { Action: string | string[]; Resource: unknown }[] };
    };
    if (!props.Roles.some((r) => r.Ref === role)) continue;
    for (const statement of props.PolicyDocument.Statement) {
      for (const action of [statement.Action].flat()) {
        const list = granted.get(action) ?? [];
        list.push(JSON.stringify(statement.Resource));
        granted.set(action, list);
      }
    }
  }
  return granted;
}

/** Logical ids a CloudFormation value refers to (Ref, Fn::GetAtt, ${X} in Fn::Sub). */
function references(value: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const v of value) references(v, into);
  else if (value && typeof value === 'object') {
    for (const [key, v] of Object.entries(value)) {
      if (key === 'Ref' && typeof v === 'string') into.add(v);
      else if (key === 'Fn::GetAtt' && Array.isArray(v)) into.add(String(v[0]));
      else if (key === 'Fn::Sub') {
        const text = Array.isArray(v) ? v[0] : v;
        for (const m of String(text).matchAll(/\$\{([^}.!]+)/g)) into.add(m[1]);
        references(v, into);
      } else references(v, into);
    }
  }
  return into;
}

describe('data', () => {
  it('keeps every item in one on-demand table keyed by the strings pk and sk', () => {
    template.resourceCountIs('AWS::DynamoDB::Table', 1);
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      AttributeDefinitions: Match.arrayWith([
        { AttributeName: 'pk', AttributeType: 'S' },
        { AttributeName: 'sk', AttributeType: 'S' },
      ]),
    });
  });

  it('expires items through the ttl attribute and keeps point-in-time recovery on', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      TimeToLiveSpecification: { AttributeName: 'ttl', Enabled: true },
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
    });
  });

  it('maps provider message ids to messages (gsi1) and queued (by dispatch time) or uncertain (by identity) messages (gsi2), keys only', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      GlobalSecondaryIndexes: ['gsi1', 'gsi2'].map((name) => ({
        IndexName: name,
        KeySchema: [
          { AttributeName: `${name}pk`, KeyType: 'HASH' },
          { AttributeName: `${name}sk`, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'KEYS_ONLY' },
      })),
      AttributeDefinitions: Match.arrayWith([
        { AttributeName: 'gsi1pk', AttributeType: 'S' },
        { AttributeName: 'gsi1sk', AttributeType: 'S' },
        { AttributeName: 'gsi2pk', AttributeType: 'S' },
        { AttributeName: 'gsi2sk', AttributeType: 'S' },
      ]),
    });
  });

  it('retains the table and the blob bucket when they leave the stack', () => {
    template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: Match.objectLike({ DeletionProtectionEnabled: true }),
    });
    template.hasResource('AWS::S3::Bucket', { DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
  });

  it('blocks all public access to the blob bucket, encrypts it and refuses plain HTTP', () => {
    template.resourceCountIs('AWS::S3::Bucket', 1);
    template.hasResourceProperties('AWS::S3::Bucket', {
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
      },
      VersioningConfiguration: Match.absent(),
    });
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
  });
});

describe('send-attempt machine', () => {
  /**
   * The definition as CloudFormation will create it: DefinitionBody.fromFile ships the ASL as an asset
   * (DefinitionS3Location) and CloudFormation fills DefinitionSubstitutions in at deploy time. Each
   * Fn::GetAtt becomes a marker naming its resource.
   */
  const deployedDefinition = (machineConstruct: IConstruct = stack.send.stateMachine): string => {
    const machine = resources[logicalId(machineConstruct)];
    const { DefinitionS3Location, DefinitionSubstitutions } = machine.Properties as {
      DefinitionS3Location: { Key: string };
      DefinitionSubstitutions: Record<string, { 'Fn::GetAtt'?: [string, string] }>;
    };
    let text = readFileSync(join(outdir, `asset.${DefinitionS3Location.Key}`), 'utf8');
    for (const [name, value] of Object.entries(DefinitionSubstitutions)) {
      // A function is a Fn::GetAtt; the other machine is named by an ARN built from its name.
      const marker = value['Fn::GetAtt'] ? `arn:test:${value['Fn::GetAtt'][0]}` : `arn:test:${name}`;
      text = text.replaceAll(`\${${name}}`, marker);
    }
    return text;
  };

  it('is an Express machine with traces on, beside the Standard send machine', () => {
    template.resourceCountIs('AWS::StepFunctions::StateMachine', 2);
    const machine = (c: IConstruct) => resources[logicalId(c)].Properties;
    expect(machine(stack.send.stateMachine)).toMatchObject({
      StateMachineType: 'EXPRESS',
      TracingConfiguration: { Enabled: true },
    });
    expect(machine(stack.send.sendMachine)).toMatchObject({
      StateMachineType: 'STANDARD',
      TracingConfiguration: { Enabled: true },
      LoggingConfiguration: { Level: 'ERROR', IncludeExecutionData: false },
    });
  });

  it('lets the two machines start each other by name, and the Standard machine follow its attempts', () => {
    expect(JSON.parse(deployedDefinition()).States.StartStandard.Parameters.StateMachineArn).toBe(
      'arn:test:SendStateMachineArn',
    );
    const send = JSON.parse(deployedDefinition(stack.send.sendMachine));
    expect(send.States.Attempt.Resource).toBe('arn:aws:states:::states:startExecution.sync:2');
    expect(send.States.Attempt.Parameters.StateMachineArn).toBe('arn:test:SendAttemptStateMachineArn');
    const policies = (role: IConstruct) =>
      JSON.stringify(
        ofType('AWS::IAM::Policy').filter(([, p]) =>
          (p.Properties.Roles as { Ref: string }[]).some((r) => r.Ref === logicalId(role)),
        ),
      );
    const standard = policies(stack.send.sendMachine.role);
    for (const action of ['states:StartExecution', 'states:DescribeExecution', 'events:PutRule']) {
      expect(standard).toContain(action);
    }
    expect(standard).toContain('StepFunctionsGetEventsForStepFunctionsExecutionRule');
    expect(standard).toContain(':stateMachine:Pmail-send-attempt');
    expect(policies(stack.send.stateMachine.role)).toContain(':stateMachine:Pmail-send"');
  });

  it('runs the sweeper every minute', () => {
    const rule = resources[logicalId(stack.sweeper.schedule)].Properties;
    expect(rule.ScheduleExpression).toBe('rate(1 minute)');
    expect(JSON.stringify(rule.Targets)).toContain(logicalId(stack.sweeper.fn.fn));
  });

  it('has its task functions (one per transport) substituted into the definition, with no placeholder left', () => {
    const text = deployedDefinition();
    expect(text).not.toContain('${');
    const states = JSON.parse(text).States as Record<string, { Resource?: string }>;
    expect(states.Claim.Resource).toBe(`arn:test:${logicalId(stack.send.claim.fn)}`);
    for (const t of TRANSPORT_TASKS) {
      expect(states[t.state].Resource).toBe(`arn:test:${logicalId(stack.send.transports[t.provider]!.fn)}`);
    }
    expect(states.Record.Resource).toBe(`arn:test:${logicalId(stack.send.record.fn)}`);
  });

  it('logs errors only and never the execution data', () => {
    template.hasResourceProperties('AWS::StepFunctions::StateMachine', {
      LoggingConfiguration: {
        Level: 'ERROR',
        IncludeExecutionData: false,
        Destinations: [{ CloudWatchLogsLogGroup: { LogGroupArn: Match.anyValue() } }],
      },
    });
  });

  it('may invoke exactly its task functions', () => {
    const machineRole = logicalId(stack.send.stateMachine.role);
    const invoke = ofType('AWS::IAM::Policy')
      .filter(([, p]) => (p.Properties.Roles as { Ref: string }[]).some((r) => r.Ref === machineRole))
      .flatMap(
        ([, p]) =>
          (p.Properties.PolicyDocument as { Statement: { Action: unknown; Resource: unknown }[] }).Statement,
      )
      .filter((s) => [s.Action].flat().includes('lambda:InvokeFunction'))
      .flatMap((s) => [s.Resource].flat());
    // As a set: the IAM policy minimisation feature flag (cdk.json) merges and orders statements.
    const byJson = (a: unknown, b: unknown) => JSON.stringify(a).localeCompare(JSON.stringify(b));
    expect(invoke.sort(byJson)).toEqual(
      [stack.send.claim, ...stack.send.transportFunctions, stack.send.record]
        .map((f) => ({ 'Fn::GetAtt': [logicalId(f.fn), 'Arn'] }))
        .sort(byJson),
    );
  });

  it('gives each transport Lambda 10 s more than its ASL task, below five minutes', () => {
    const timeout = (f: PmailFunction) => resources[logicalId(f.fn)].Properties.Timeout;
    expect(timeout(stack.send.claim)).toBe(20);
    expect(timeout(stack.send.record)).toBe(20);
    for (const t of TRANSPORT_TASKS) {
      expect(timeout(stack.send.transports[t.provider]!)).toBe(t.timeoutSeconds + 10);
      expect(t.timeoutSeconds + 10).toBeLessThan(300);
    }
  });

  it('gives the MCP function time for a whole wait_for_message, inside API Gateway’s 30 s', () => {
    const timeout = (f: PmailFunction) => resources[logicalId(f.fn)].Properties.Timeout;
    expect(timeout(stack.api.functions.mcp)).toBeGreaterThan(WAIT_MAX_SECONDS);
    expect(timeout(stack.api.functions.mcp)).toBeLessThan(30);
    expect(timeout(stack.api.functions.identities)).toBe(15);
  });

  it('gives the messages function a batch’s time budget and a thread lock’s longest wait, inside API Gateway’s 30 s', () => {
    const timeout = (f: PmailFunction): number => Number(resources[logicalId(f.fn)].Properties.Timeout);
    expect(timeout(stack.api.functions.messages) * 1000).toBeGreaterThanOrEqual(
      BATCH_TIME_BUDGET_MS + LOCK_WAIT_MAX_MS + 5000,
    );
    expect(timeout(stack.api.functions.messages)).toBeLessThan(30);
    // MCP's send_batch runs a batch inside the MCP function.
    expect(timeout(stack.api.functions.mcp) * 1000).toBeGreaterThan(BATCH_TIME_BUDGET_MS + LOCK_WAIT_MAX_MS);
  });
});

describe('delivery events', () => {
  it('moves an event to the dead-letter queue after 20 receives and keeps it there 14 days', () => {
    const dlq = logicalId(stack.events.deadLetterQueue);
    template.hasResourceProperties('AWS::SQS::Queue', {
      VisibilityTimeout: 60,
      SqsManagedSseEnabled: true,
      RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [dlq, 'Arn'] }, maxReceiveCount: 20 },
    });
    expect(resources[dlq].Properties).toMatchObject({
      MessageRetentionPeriod: 1_209_600,
      SqsManagedSseEnabled: true,
    });
  });

  it('refuses plain HTTP on both queues', () => {
    for (const queue of [stack.events.queue, stack.events.deadLetterQueue]) {
      template.hasResourceProperties('AWS::SQS::QueuePolicy', {
        Queues: [{ Ref: logicalId(queue) }],
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
          ]),
        },
      });
    }
  });

  it('feeds the consumer in batches of ten with partial batch responses', () => {
    const consumer = logicalId(stack.events.consumer.fn);
    expect(
      ofType('AWS::Lambda::EventSourceMapping').filter(
        ([, m]) => (m.Properties.FunctionName as { Ref: string }).Ref === consumer,
      ),
    ).toHaveLength(1);
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      BatchSize: 10,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      EventSourceArn: { 'Fn::GetAtt': [logicalId(stack.events.queue), 'Arn'] },
      FunctionName: { Ref: logicalId(stack.events.consumer.fn) },
    });
  });

  it('publishes the seven SES sending events through an encrypted SNS topic to the queue, enveloped', () => {
    const topic = logicalId(stack.events.sesTopic);
    template.hasResourceProperties('AWS::SES::ConfigurationSetEventDestination', {
      EventDestination: {
        Enabled: true,
        MatchingEventTypes: [
          'send',
          'delivery',
          'bounce',
          'complaint',
          'reject',
          'deliveryDelay',
          'renderingFailure',
        ],
        SnsDestination: { TopicARN: { Ref: topic } },
      },
    });
    expect(resources[topic].Properties.KmsMasterKeyId).toBeDefined();
    template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'sqs',
      TopicArn: { Ref: topic },
      Endpoint: { 'Fn::GetAtt': [logicalId(stack.events.queue), 'Arn'] },
    });
    const subscription = ofType('AWS::SNS::Subscription')[0][1];
    expect(subscription.Properties.RawMessageDelivery ?? false).toBe(false);
  });
});

describe('api', () => {
  it('has a route for every entry of the route table, served by its group function, and a $default fallback', () => {
    const httpRoutes = ofType('AWS::ApiGatewayV2::Route').filter(([, r]) =>
      references(r.Properties.ApiId).has(logicalId(stack.api.httpApi)),
    );
    const routeKeys = httpRoutes.map(([, r]) => r.Properties.RouteKey);
    expect(routeKeys.sort()).toEqual(['$default', ...routes.map((r) => `${r.method} ${r.path}`)].sort());

    for (const route of routes) {
      const [, resource] = httpRoutes.find(
        ([, r]) => r.Properties.RouteKey === `${route.method} ${route.path}`,
      ) as [string, Resource];
      const integrationId = (
        (resource.Properties.Target as { 'Fn::Join': [string, unknown[]] })['Fn::Join'][1][1] as {
          Ref: string;
        }
      ).Ref;
      expect(resources[integrationId].Properties).toMatchObject({
        IntegrationType: 'AWS_PROXY',
        IntegrationUri: { 'Fn::GetAtt': [logicalId(stack.api.functions[route.group].fn), 'Arn'] },
      });
    }
  });

  it('builds one function per route group from its handler entry', () => {
    for (const [group, { handler }] of Object.entries(routeGroupEntries)) {
      const fn = stack.api.functions[group as keyof typeof routeGroupEntries];
      expect(resources[logicalId(fn.fn)].Properties.Handler).toBe(`index.${handler}`);
    }
  });

  it('writes access logs of the auto-deployed default stage to a log group', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
      AccessLogSettings: {
        DestinationArn: { 'Fn::GetAtt': [logicalId(stack.api.accessLogs), 'Arn'] },
        Format: Match.stringLikeRegexp('\\$context\\.requestId'),
      },
    });
  });
});

describe('functions', () => {
  const all = (): PmailFunction[] => [
    ...Object.values(stack.api.functions),
    stack.send.claim,
    ...stack.send.transportFunctions,
    stack.send.record,
    stack.events.consumer,
    stack.sweeper.fn,
    stack.webhooks.fanOut,
    stack.webhooks.deliverer,
    stack.stream.authorizer,
    stack.stream.routes,
    stack.stream.fanOut,
    stack.domainCheck.fn,
    ...(stack.inbound ? [stack.inbound.ingest] : []),
  ];
  // Functions that know neither the table nor the queue: the orphan pass, the rule set activation.
  const apart = (): PmailFunction[] => [
    stack.orphans.fn,
    ...(stack.inbound?.activator ? [stack.inbound.activator] : []),
  ];

  it('are all ours, each on Node.js 22 on arm64 with active tracing and source maps', () => {
    const functions = ofType('AWS::Lambda::Function');
    expect(functions.map(([id]) => id).sort()).toEqual(
      [...all(), ...apart()].map((f) => logicalId(f.fn)).sort(),
    );
    // The ingest is sized for a 40 MB message (lib/inbound.ts › INGEST_MEMORY_MB).
    const ingest = stack.inbound ? logicalId(stack.inbound.ingest.fn) : undefined;
    for (const [id, fn] of functions) {
      expect(fn.Properties).toMatchObject({
        Runtime: 'nodejs22.x',
        Architectures: ['arm64'],
        TracingConfig: { Mode: 'Active' },
        MemorySize: id === ingest ? INGEST_MEMORY_MB : LAMBDA_MEMORY_MB,
        Environment: { Variables: { NODE_OPTIONS: '--enable-source-maps' } },
      });
    }
  });

  it('each log to their own log group kept for one month', () => {
    for (const f of [...all(), ...apart()]) {
      const group = logicalId(f.logGroup);
      expect(resources[logicalId(f.fn)].Properties.LoggingConfig).toEqual({ LogGroup: { Ref: group } });
      expect(resources[group].Properties.RetentionInDays).toBe(30);
    }
  });

  it('are bundled as ESM that defines require, with a source map', () => {
    const assets = new Set(
      ofType('AWS::Lambda::Function').map(([, fn]) =>
        (fn.Properties.Code as { S3Key: string }).S3Key.replace('.zip', ''),
      ),
    );
    for (const hash of assets) {
      const dir = join(outdir, `asset.${hash}`);
      expect(readFileSync(join(dir, 'index.mjs'), 'utf8').startsWith(ESM_REQUIRE_BANNER)).toBe(true);
      expect(existsSync(join(dir, 'index.mjs.map'))).toBe(true);
    }
  });

  it('all know the table, the blob bucket and the events queue; only api and events know the machine', () => {
    for (const f of all()) {
      const variables = (
        resources[logicalId(f.fn)].Properties.Environment as { Variables: Record<string, unknown> }
      ).Variables;
      expect(variables).toMatchObject({
        PMAIL_TABLE: { Ref: logicalId(stack.data.table) },
        PMAIL_BLOB_BUCKET: { Ref: logicalId(stack.data.bucket) },
        PMAIL_EVENTS_QUEUE_URL: { Ref: logicalId(stack.events.queue) },
        PMAIL_KEYS_SECRET_ARN: { Ref: logicalId(stack.data.keys) },
      });
      const startsAttempts =
        f === stack.events.consumer ||
        f === stack.sweeper.fn ||
        Object.values(stack.api.functions).includes(f);
      expect(JSON.stringify(variables.PMAIL_SEND_ATTEMPT_ARN ?? null)).toEqual(
        startsAttempts ? expect.stringContaining(':stateMachine:Pmail-send-attempt') : 'null',
      );
      expect(JSON.stringify(variables.PMAIL_SEND_ARN ?? null)).toEqual(
        startsAttempts ? expect.stringContaining(':stateMachine:Pmail-send"') : 'null',
      );
    }
  });
});

describe('permissions', () => {
  /** The API's functions that reach data: all but the console's, which serves its built files only. */
  const api = () => Object.values(stack.api.functions).filter((f) => f !== stack.api.functions.console);
  const transports = () => stack.send.transportFunctions;
  /** The functions with the table's item-level read/write (every transport has less). */
  const everyone = () => [
    ...api(),
    stack.send.claim,
    stack.send.record,
    stack.events.consumer,
    stack.sweeper.fn,
  ];

  it('give the console function no data, keys, blobs or executions: logs and tracing only', () => {
    const granted = [...permissionsOf(stack.api.functions.console).keys()];
    expect(granted.filter((a) => !/^(logs|xray):/.test(a))).toEqual([]);
  });

  it('let every function read and write items of the table and its gsi1 index, without Scan', () => {
    const table = logicalId(stack.data.table);
    for (const f of everyone()) {
      const granted = permissionsOf(f);
      for (const action of [
        'dynamodb:GetItem',
        'dynamodb:Query',
        'dynamodb:PutItem',
        'dynamodb:UpdateItem',
      ]) {
        expect(granted.get(action)?.join(), `${f.node.path} ${action}`).toContain(table);
        expect(granted.get(action)?.join()).toContain('/index/gsi1');
        expect(granted.get(action)?.join()).toContain('/index/gsi2');
      }
      expect(granted.has('dynamodb:Scan')).toBe(false);
    }
  });

  it('let each transport task read the message, its domain and the directory, set the mark or cancel a follow-up answered, and nothing else on the table', () => {
    for (const f of transports()) {
      const granted = permissionsOf(f);
      const table = [...granted.keys()].filter((a) => a.startsWith('dynamodb:')).sort();
      expect(table, f.node.path).toEqual([
        'dynamodb:BatchGetItem',
        'dynamodb:ConditionCheckItem',
        'dynamodb:GetItem',
        'dynamodb:PutItem',
        'dynamodb:UpdateItem',
      ]);
      expect(granted.get('dynamodb:UpdateItem')?.join()).not.toContain('/index/');
      expect(granted.has('s3:PutObject'), f.node.path).toBe(false);
    }
  });

  it('let only the SMTP transport read the relays’ secrets (its prefix only) and the stored outbound copies', () => {
    const smtp = stack.send.transports.smtp!;
    for (const f of [...everyone(), ...transports()]) {
      const granted = permissionsOf(f);
      const secrets = granted.get('secretsmanager:GetSecretValue')?.join() ?? '';
      expect(secrets.includes(':secret:Pmail/smtp/*'), f.node.path).toBe(f === smtp);
      expect(granted.has('secretsmanager:PutSecretValue'), f.node.path).toBe(
        f === stack.api.functions.domains,
      );
    }
    const smtpGrants = permissionsOf(smtp);
    expect(smtpGrants.get('secretsmanager:GetSecretValue')).toHaveLength(1);
    expect(smtpGrants.get('s3:GetObject')?.join()).toContain('/t/*/i/*/out/*');
    expect(smtpGrants.has('s3:PutObject')).toBe(false);
    expect(smtpGrants.has('sqs:SendMessage')).toBe(false);
    expect(smtpGrants.has('ses:SendEmail')).toBe(false);
    const cloudflare = stack.send.transports.cloudflare!;
    expect(permissionsOf(cloudflare).get('s3:GetObject')?.join()).toContain('/t/*/i/*/out/*');
    for (const f of transports().filter((t) => t !== smtp && t !== cloudflare)) {
      expect(permissionsOf(f).get('s3:GetObject')?.join() ?? '', f.node.path).not.toContain('/out/');
    }
  });

  it('let only the domains API write the relays’ secrets (never read them), and only it and the domain check invoke the SMTP transport (its probe)', () => {
    const smtp = stack.send.transports.smtp!;
    const domainsApi = stack.api.functions.domains;
    const all = [
      ...everyone(),
      ...transports(),
      stack.domainCheck.fn,
      stack.webhooks.fanOut,
      stack.webhooks.deliverer,
    ].filter((f, i, list) => f && list.indexOf(f) === i);
    for (const f of all) {
      const granted = permissionsOf(f);
      for (const action of [
        'secretsmanager:CreateSecret',
        'secretsmanager:PutSecretValue',
        'secretsmanager:DeleteSecret',
      ]) {
        const on = granted.get(action)?.join() ?? '';
        expect(on.includes(':secret:Pmail/smtp/*'), `${f.node.path} ${action}`).toBe(f === domainsApi);
      }
      const readsRelaySecrets = (granted.get('secretsmanager:GetSecretValue')?.join() ?? '').includes(
        ':secret:Pmail/smtp/*',
      );
      expect(readsRelaySecrets, f.node.path).toBe(f === smtp);
      const invokes = JSON.stringify(granted.get('lambda:InvokeFunction') ?? []);
      expect(invokes.includes(logicalId(smtp.fn)), f.node.path).toBe(
        f === domainsApi || f === stack.domainCheck.fn,
      );
    }
    for (const f of [domainsApi, stack.domainCheck.fn]) {
      expect(permissionsOf(f).get('lambda:InvokeFunction'), f.node.path).toHaveLength(1);
      expect(JSON.stringify(envOf(f).PMAIL_SMTP_PROBE_FUNCTION)).toContain(logicalId(smtp.fn));
    }
  });

  it('let only the SES transport send through SES: its identities and the stack configuration set, reading the stored copy', () => {
    const ses = stack.send.transports.ses!;
    for (const f of [...everyone(), ...transports()]) {
      expect(permissionsOf(f).has('ses:SendEmail'), f.node.path).toBe(f === ses);
    }
    const granted = permissionsOf(ses);
    const actions = [...granted.keys()]
      .filter((a) => !a.startsWith('logs:') && !a.startsWith('xray:'))
      .sort();
    expect(actions).toEqual([
      'dynamodb:BatchGetItem',
      'dynamodb:ConditionCheckItem',
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
      's3:GetObject',
      's3:ListBucket',
      'ses:SendEmail',
    ]);
    const arns = granted.get('ses:SendEmail')!.join();
    expect(arns).toContain(':identity/*');
    expect(arns).toContain(':configuration-set/');
    expect(arns).not.toContain('"*"');
    expect(JSON.stringify(envOf(ses).PMAIL_SES_CONFIGURATION_SET)).toContain(
      logicalId(stack.events.sesConfigurationSet),
    );
  });

  it('let only the domains API manage SES identities, and the hourly domain check only read and delete them', () => {
    const domains = stack.api.functions.domains;
    const check = stack.domainCheck.fn;
    const sesActions = (f: PmailFunction) =>
      [...permissionsOf(f).keys()].filter((a) => a.startsWith('ses:')).sort();
    expect(sesActions(domains)).toEqual([
      'ses:CreateEmailIdentity',
      'ses:DeleteEmailIdentity',
      'ses:GetEmailIdentity',
      'ses:PutEmailIdentityMailFromAttributes',
    ]);
    expect(sesActions(check)).toEqual(['ses:DeleteEmailIdentity', 'ses:GetEmailIdentity']);
    for (const f of [...everyone(), ...transports()]) {
      if (f === domains || f === stack.send.transports.ses) continue;
      expect(sesActions(f), f.node.path).toEqual([]);
    }
    expect(permissionsOf(check).get('ses:GetEmailIdentity')!.join()).toContain(':identity/*');
    const rule = resources[logicalId(stack.domainCheck.schedule)].Properties;
    expect(rule.ScheduleExpression).toBe('rate(1 hour)');
  });

  it('let only the api and record (loopback copies) read and write blobs', () => {
    for (const f of everyone()) {
      const expected = api().includes(f) || f === stack.send.record;
      expect(permissionsOf(f).has('s3:PutObject'), f.node.path).toBe(expected);
      expect(permissionsOf(f).has('s3:GetObject'), f.node.path).toBe(expected);
    }
  });

  it('let only the api and the sweeper start executions, and only the sweeper describe them', () => {
    for (const f of everyone()) {
      const starts = api().includes(f) || f === stack.sweeper.fn;
      expect(permissionsOf(f).has('states:StartExecution'), f.node.path).toBe(starts);
      if (starts) {
        const arns = permissionsOf(f).get('states:StartExecution')!.join();
        expect(arns).toContain(':stateMachine:Pmail-send-attempt');
        expect(arns).toContain(':stateMachine:Pmail-send"');
      }
      expect(permissionsOf(f).has('states:DescribeExecution'), f.node.path).toBe(f === stack.sweeper.fn);
    }
  });

  it('let the simulator and record send to the events queue, and the consumer change visibility', () => {
    const queue = logicalId(stack.events.queue);
    const senders = [stack.send.transports.simulator, stack.send.record];
    for (const f of [...everyone(), ...transports()]) {
      const granted = permissionsOf(f);
      expect(granted.has('sqs:SendMessage'), f.node.path).toBe(senders.includes(f));
      if (senders.includes(f)) expect(granted.get('sqs:SendMessage')?.join()).toContain(queue);
      expect(granted.has('sqs:ChangeMessageVisibility'), f.node.path).toBe(f === stack.events.consumer);
    }
  });

  it('grant no action on every resource except X-Ray and log delivery, which have no resource level', () => {
    for (const [, policy] of ofType('AWS::IAM::Policy')) {
      for (const s of (
        policy.Properties.PolicyDocument as { Statement: { Action: unknown; Resource: unknown }[] }
      ).Statement) {
        if (s.Resource !== '*') continue;
        // dynamodb:ListStreams (the fan-out's stream event source) has no resource level either, nor
        // do the two calls on the Region's one active receipt rule set (lib/inbound.ts).
        for (const action of [s.Action].flat() as string[])
          expect(action).toMatch(
            /^(xray:|logs:|dynamodb:ListStreams$|ses:SetActiveReceiptRuleSet$|ses:DescribeActiveReceiptRuleSet$)/,
          );
      }
    }
  });
});

describe('the orphan pass', () => {
  it('runs daily, knows only the table and the bucket, and may only list and delete outbound objects and items', () => {
    const fn = stack.orphans.fn;
    expect(Object.keys(envOf(fn)).sort()).toEqual(['NODE_OPTIONS', 'PMAIL_BLOB_BUCKET', 'PMAIL_TABLE']);
    const rule = ofType('AWS::Events::Rule').find(([, r]) =>
      JSON.stringify(r.Properties.Targets).includes(logicalId(fn.fn)),
    );
    expect(rule?.[1].Properties.ScheduleExpression).toBe('rate(1 day)');
    const granted = permissionsOf(fn);
    const data = [...granted.keys()]
      .filter((a) => /^(s3|dynamodb|secretsmanager|states|sqs):/.test(a))
      .sort();
    expect(data).toEqual([
      'dynamodb:BatchGetItem',
      'dynamodb:DeleteItem',
      'dynamodb:Query',
      's3:DeleteObject',
      's3:ListBucket',
    ]);
    expect(granted.get('s3:DeleteObject')?.join()).toContain('/t/*/i/*/out/*');
    expect(granted.get('dynamodb:Query')?.join()).toContain('/index/gsi1');
  });
});

describe('webhooks', () => {
  const mappingOf = (fn: PmailFunction) =>
    ofType('AWS::Lambda::EventSourceMapping').filter(
      ([, m]) => (m.Properties.FunctionName as { Ref: string }).Ref === logicalId(fn.fn),
    );

  it('turns the table stream on, with new images', () => {
    expect(resources[logicalId(stack.data.table)].Properties.StreamSpecification).toEqual({
      StreamViewType: 'NEW_IMAGE',
    });
  });

  it('feeds the fan-out with outbox inserts only, reporting partial failures, giving up to a failure queue', () => {
    const mappings = mappingOf(stack.webhooks.fanOut);
    expect(mappings).toHaveLength(1);
    const [, mapping] = mappings[0];
    expect(mapping.Properties).toMatchObject({
      EventSourceArn: { 'Fn::GetAtt': [logicalId(stack.data.table), 'StreamArn'] },
      StartingPosition: 'TRIM_HORIZON',
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      BisectBatchOnFunctionError: true,
      MaximumRetryAttempts: 20,
      DestinationConfig: {
        OnFailure: { Destination: { 'Fn::GetAtt': [logicalId(stack.webhooks.fanOutFailures), 'Arn'] } },
      },
    });
    const filters = (mapping.Properties.FilterCriteria as { Filters: { Pattern: string }[] }).Filters;
    expect(filters.map((f) => JSON.parse(f.Pattern))).toEqual([OUTBOX_INSERT_FILTER]);
  });

  it('queues deliveries with a dead-letter queue after 10 receives, all three queues refusing plain HTTP', () => {
    const dlq = logicalId(stack.webhooks.deadLetterQueue);
    expect(resources[logicalId(stack.webhooks.queue)].Properties).toMatchObject({
      VisibilityTimeout: 180,
      SqsManagedSseEnabled: true,
      RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [dlq, 'Arn'] }, maxReceiveCount: 10 },
    });
    for (const queue of [
      stack.webhooks.queue,
      stack.webhooks.deadLetterQueue,
      stack.webhooks.fanOutFailures,
    ]) {
      template.hasResourceProperties('AWS::SQS::QueuePolicy', {
        Queues: [{ Ref: logicalId(queue) }],
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
          ]),
        },
      });
    }
  });

  it('feeds the deliverer from the deliveries queue in batches of ten with partial batch responses', () => {
    const mappings = mappingOf(stack.webhooks.deliverer);
    expect(mappings).toHaveLength(1);
    expect(mappings[0][1].Properties).toMatchObject({
      BatchSize: 10,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      EventSourceArn: { 'Fn::GetAtt': [logicalId(stack.webhooks.queue), 'Arn'] },
    });
    const variables = (
      resources[logicalId(stack.webhooks.deliverer.fn)].Properties.Environment as {
        Variables: Record<string, unknown>;
      }
    ).Variables;
    expect(variables.PMAIL_WEBHOOK_QUEUE_URL).toEqual({ Ref: logicalId(stack.webhooks.queue) });
  });

  it('lets the fan-out only query the table and the deliverer only get, update and put items, both send jobs', () => {
    const table = logicalId(stack.data.table);
    const items = (f: PmailFunction) =>
      [...permissionsOf(f).entries()].filter(
        ([a, r]) => a.startsWith('dynamodb:') && r.join().includes(`"${table}","Arn"`),
      );
    expect(items(stack.webhooks.fanOut).map(([a]) => a)).toEqual(['dynamodb:Query']);
    expect(
      items(stack.webhooks.deliverer)
        .map(([a]) => a)
        .sort(),
    ).toEqual(['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem']);
    for (const f of [stack.webhooks.fanOut, stack.webhooks.deliverer]) {
      const granted = permissionsOf(f);
      expect(granted.get('sqs:SendMessage')?.join()).toContain(logicalId(stack.webhooks.queue));
      expect(granted.get('sqs:SendMessage')?.join()).not.toContain(logicalId(stack.events.queue));
      expect(granted.has('s3:GetObject')).toBe(false);
      expect(granted.has('states:StartExecution')).toBe(false);
      expect(granted.has('dynamodb:DeleteItem')).toBe(false);
    }
    // The deliverer's puts are its attempts (functions/store/webhook-deliveries.store.ts).
    expect(permissionsOf(stack.webhooks.fanOut).has('dynamodb:PutItem')).toBe(false);
    expect(permissionsOf(stack.webhooks.fanOut).get('dynamodb:GetRecords')?.join()).toContain('StreamArn');
  });

  it('serves the webhooks routes from their own route-group function', () => {
    expect(routes.filter((r) => r.group === 'webhooks').map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /v1/webhooks',
      'GET /v1/webhooks',
      'GET /v1/webhooks/{webhook_id}',
      'DELETE /v1/webhooks/{webhook_id}',
      'GET /v1/webhooks/{webhook_id}/deliveries',
      'POST /v1/webhooks/{webhook_id}/test',
    ]);
    expect(resources[logicalId(stack.api.functions.webhooks.fn)].Properties.Description).toBe(
      'pmail api: webhooks',
    );
  });
});

describe('stack', () => {
  it('has no dependency cycle between its resources', () => {
    const edges = new Map<string, string[]>();
    for (const [id, r] of Object.entries(resources)) {
      const deps = references(r.Properties);
      for (const d of [r.DependsOn ?? []].flat()) deps.add(d);
      edges.set(
        id,
        [...deps].filter((d) => d in resources),
      );
    }
    const state = new Map<string, 'visiting' | 'done'>();
    const visit = (id: string, path: string[]): void => {
      if (state.get(id) === 'done') return;
      if (state.get(id) === 'visiting') throw new Error(`cycle: ${[...path, id].join(' → ')}`);
      state.set(id, 'visiting');
      for (const next of edges.get(id) ?? []) visit(next, [...path, id]);
      state.set(id, 'done');
    };
    for (const id of edges.keys()) visit(id, []);
    expect(state.size).toBe(Object.keys(resources).length);
  });

  it('outputs the API URL, the table and bucket names and the send-attempt ARN', () => {
    template.hasOutput('ApiUrl', { Value: Match.anyValue() });
    template.hasOutput('TableName', { Value: { Ref: logicalId(stack.data.table) } });
    template.hasOutput('BucketName', { Value: { Ref: logicalId(stack.data.bucket) } });
    template.hasOutput('SendAttemptArn', { Value: { Ref: logicalId(stack.send.stateMachine) } });
  });

  it('is environment-agnostic', () => {
    expect(stack.environment).toBe('aws://unknown-account/unknown-region');
  });
});

describe('event stream', () => {
  const ofApi = (type: string) =>
    ofType(type).filter(([, r]) => references(r.Properties).has(logicalId(stack.stream.api)));
  const targetsOf = (props: Record<string, unknown>) => references(props.Target);

  it('is a WebSocket API whose $connect runs the REQUEST authorizer, with $disconnect and $default, on an auto-deployed stage', () => {
    expect(resources[logicalId(stack.stream.api)].Properties).toMatchObject({
      ProtocolType: 'WEBSOCKET',
      RouteSelectionExpression: '$request.body.action',
    });
    const [[authorizerId, authorizer]] = ofApi('AWS::ApiGatewayV2::Authorizer');
    expect(authorizer.Properties).toMatchObject({
      AuthorizerType: 'REQUEST',
      IdentitySource: ['route.request.header.Host'],
    });
    expect(references(authorizer.Properties.AuthorizerUri).has(logicalId(stack.stream.authorizer.fn))).toBe(
      true,
    );
    const routesById = Object.fromEntries(
      ofApi('AWS::ApiGatewayV2::Route').map(([, r]) => [r.Properties.RouteKey as string, r.Properties]),
    );
    expect(Object.keys(routesById).sort()).toEqual(['$connect', '$default', '$disconnect']);
    expect(routesById.$connect).toMatchObject({
      AuthorizationType: 'CUSTOM',
      AuthorizerId: { Ref: authorizerId },
    });
    for (const key of ['$disconnect', '$default'])
      expect(routesById[key].AuthorizationType ?? 'NONE').toBe('NONE');
    const integrations = Object.fromEntries(ofApi('AWS::ApiGatewayV2::Integration'));
    for (const route of Object.values(routesById)) {
      const [integration] = [...targetsOf(route)].filter((id) => id in integrations);
      expect(
        references(integrations[integration].Properties.IntegrationUri).has(
          logicalId(stack.stream.routes.fn),
        ),
      ).toBe(true);
    }
    expect(resources[logicalId(stack.stream.stage)].Properties).toMatchObject({
      StageName: 'v1',
      AutoDeploy: true,
    });
    const output = template.toJSON().Outputs.StreamUrl;
    expect(references(output.Value).has(logicalId(stack.stream.api))).toBe(true);
  });

  it('lets only the fan-out post to the connections, on this stage, and nothing else manage them', () => {
    const fanOutRole = logicalId(stack.stream.fanOut.role);
    const holders: string[] = [];
    for (const [, policy] of ofType('AWS::IAM::Policy')) {
      const props = policy.Properties as {
        Roles: { Ref: string }[];
        PolicyDocument: { Statement: { Action: string | string[]; Resource: unknown }[] };
      };
      for (const statement of props.PolicyDocument.Statement) {
        const actions = [statement.Action].flat();
        if (actions.some((a) => a === '*' || a.startsWith('execute-api:')))
          holders.push(
            ...props.Roles.map((r) => `${r.Ref} ${actions.join()} ${JSON.stringify(statement.Resource)}`),
          );
      }
    }
    expect(holders).toHaveLength(1);
    expect(holders[0]).toContain(`${fanOutRole} execute-api:ManageConnections`);
    expect(holders[0]).toContain('/v1/*/@connections/*');
    expect(envOf(stack.stream.fanOut).PMAIL_STREAM_ENDPOINT).toBeDefined();
    expect(envOf(stack.stream.fanOut).PMAIL_STREAM_GATEWAY).toEqual(
      envOf(stack.stream.routes).PMAIL_STREAM_GATEWAY,
    );
  });

  it('wakes the fan-out from the table’s stream with the filters its code reads, and every minute', () => {
    const mappings = ofType('AWS::Lambda::EventSourceMapping').filter(
      ([, m]) => (m.Properties.FunctionName as { Ref: string }).Ref === logicalId(stack.stream.fanOut.fn),
    );
    expect(mappings).toHaveLength(1);
    const props = mappings[0][1].Properties;
    expect(props).toMatchObject({
      EventSourceArn: { 'Fn::GetAtt': [logicalId(stack.data.table), 'StreamArn'] },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    const filters = (props.FilterCriteria as { Filters: { Pattern: string }[] }).Filters;
    expect(filters.map((f) => JSON.parse(f.Pattern))).toEqual(STREAM_WAKE_FILTERS);
    expect(resources[logicalId(stack.stream.schedule)].Properties).toMatchObject({
      ScheduleExpression: 'rate(1 minute)',
    });
    const rule = resources[logicalId(stack.stream.schedule)].Properties as { Targets: { Arn: unknown }[] };
    expect(references(rule.Targets[0].Arn).has(logicalId(stack.stream.fanOut.fn))).toBe(true);
  });

  it('answers tickets with the stream’s URL and lets the console connect to it', () => {
    for (const fn of [stack.api.functions.events, stack.api.functions.console])
      expect(references(envOf(fn).PM_STREAM_URL).has(logicalId(stack.stream.api))).toBe(true);
  });
});
