import { join } from 'node:path';
import { ArnFormat, type CfnResource, Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { DefinitionBody, LogLevel, StateMachine, StateMachineType } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { TRANSPORT_TASKS } from '../functions/transports/tasks.ts';
import type { TransportProvider } from '../functions/transports/transport.ts';
import { PmailFunction, REPO_ROOT, suppressLint } from './defaults.ts';

/** The attempt machine's definition file, under `statemachines/`. */
export const SEND_ATTEMPT_ASL = 'send-attempt.asl.json';

/** The Standard send machine's definition file (scheduled sends and back-off waits). */
export const SEND_ASL = 'send.asl.json';

/** The `${…}` placeholders of send-attempt.asl.json; the construct fills exactly these. */
export const SEND_ATTEMPT_SUBSTITUTIONS: readonly string[] = [
  'ClaimFunctionArn',
  ...TRANSPORT_TASKS.map((t) => t.arn),
  'RecordFunctionArn',
  'SendStateMachineArn',
];

/** The `${…}` placeholders of send.asl.json. */
export const SEND_SUBSTITUTIONS = ['SendAttemptStateMachineArn'] as const;

/**
 * Every state machine file the CDK deploys and the placeholders it substitutes in it. The ASL test
 * reads this, so a placeholder added to a file without a value here fails before a deploy does.
 */
export const STATE_MACHINE_SUBSTITUTIONS: Readonly<Record<string, readonly string[]>> = {
  [SEND_ATTEMPT_ASL]: SEND_ATTEMPT_SUBSTITUTIONS,
  [SEND_ASL]: SEND_SUBSTITUTIONS,
};

const SEND_ENTRY = 'functions/send/send-attempt.handler.ts';

export interface SendMachineProps {
  /** Environment of the task functions (table, bucket, queue). Must not name the machine. */
  readonly environment: Record<string, string>;
  /** @default RetentionDays.ONE_MONTH */
  readonly logRetention?: RetentionDays;
}

/**
 * The Express send-attempt machine: Claim → the provider's transport task → Record, one
 * Lambda per task: Claim and Record from functions/send/send-attempt.handler.ts, one transport
 * Lambda per entry of functions/transports/tasks.ts (each granted only its own permissions by the
 * stack), and the Standard send machine that waits (a
 * scheduled send's `send_at`, a back-off) and runs the attempt synchronously. Each names the other
 * by its fixed name (not by reference), so the two definitions do not depend on each other. Execution
 * logs carry errors only and never the execution data, so message bodies and addresses stay out of
 * CloudWatch.
 */
export class SendMachine extends Construct {
  readonly claim: PmailFunction;
  /** One Lambda per transport task (functions/transports/tasks.ts). */
  readonly transports: Readonly<Partial<Record<TransportProvider, PmailFunction>>>;
  readonly record: PmailFunction;
  readonly stateMachine: StateMachine;
  readonly logGroup: LogGroup;
  /** The Standard machine of statemachines/send.asl.json. */
  readonly sendMachine: StateMachine;
  readonly sendLogGroup: LogGroup;
  /** ARNs by name (known before either machine exists). */
  readonly attemptArn: string;
  readonly sendArn: string;
  /** Every execution of the Standard machine (DescribeExecution for the sweeper). */
  readonly sendExecutions: string;

  /** The transport Lambdas, in the order of functions/transports/tasks.ts. */
  get transportFunctions(): PmailFunction[] {
    return TRANSPORT_TASKS.map((t) => this.transports[t.provider]!);
  }

  constructor(scope: Construct, id: string, props: SendMachineProps) {
    super(scope, id);
    const task = (
      name: string,
      handler: string,
      timeout: Duration,
      description: string,
      entry = SEND_ENTRY,
    ) =>
      new PmailFunction(this, name, {
        entry,
        handler,
        timeout,
        description,
        environment: props.environment,
        logRetention: props.logRetention,
      });

    this.claim = task('Claim', 'claim', Duration.seconds(20), 'pmail send-attempt: claim the queued message');
    // One provider call each; the Lambda outlives its ASL task timeout by 10 s.
    const transports: Partial<Record<TransportProvider, PmailFunction>> = {};
    for (const t of TRANSPORT_TASKS) {
      transports[t.provider] = task(
        t.state,
        'handler',
        Duration.seconds(t.timeoutSeconds + 10),
        `pmail send-attempt: one ${t.provider} provider call`,
        t.entry,
      );
    }
    this.transports = transports;
    this.record = task('Record', 'record', Duration.seconds(20), 'pmail send-attempt: record the outcome');

    this.logGroup = new LogGroup(this, 'Logs', {
      // The vendedlogs prefix keeps CloudWatch Logs' resource policy from growing per machine.
      logGroupName: `/aws/vendedlogs/states/${Stack.of(this).stackName}-send-attempt`,
      retention: props.logRetention ?? RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.RETAIN,
    });

    const stack = Stack.of(this);
    const attemptName = `${stack.stackName}-send-attempt`;
    const sendName = `${stack.stackName}-send`;
    const machineArn = (name: string) =>
      stack.formatArn({
        service: 'states',
        resource: 'stateMachine',
        resourceName: name,
        arnFormat: ArnFormat.COLON_RESOURCE_NAME,
      });
    const executionsOf = (name: string, resource = 'execution') =>
      stack.formatArn({
        service: 'states',
        resource,
        resourceName: `${name}:*`,
        arnFormat: ArnFormat.COLON_RESOURCE_NAME,
      });
    this.attemptArn = machineArn(attemptName);
    this.sendExecutions = executionsOf(sendName);
    this.sendArn = machineArn(sendName);

    const substitutions: Record<string, string> = {
      ClaimFunctionArn: this.claim.fn.functionArn,
      RecordFunctionArn: this.record.fn.functionArn,
      SendStateMachineArn: this.sendArn,
    };
    for (const t of TRANSPORT_TASKS) substitutions[t.arn] = transports[t.provider]!.fn.functionArn;

    this.stateMachine = new StateMachine(this, 'Machine', {
      stateMachineName: attemptName,
      stateMachineType: StateMachineType.EXPRESS,
      definitionBody: DefinitionBody.fromFile(join(REPO_ROOT, 'statemachines', SEND_ATTEMPT_ASL)),
      definitionSubstitutions: substitutions,
      logs: { destination: this.logGroup, level: LogLevel.ERROR, includeExecutionData: false },
      tracingEnabled: true,
    });

    // The ASL names unqualified function ARNs, so the role needs exactly those (no `:*` versions).
    this.stateMachine.addToRolePolicy(
      new PolicyStatement({
        actions: ['lambda:InvokeFunction'],
        resources: [this.claim, ...this.transportFunctions, this.record].map((f) => f.fn.functionArn),
      }),
    );
    // A back-off without a parent starts the Standard machine (StartStandard).
    this.stateMachine.addToRolePolicy(
      new PolicyStatement({ actions: ['states:StartExecution'], resources: [this.sendArn] }),
    );

    this.sendLogGroup = new LogGroup(this, 'SendLogs', {
      logGroupName: `/aws/vendedlogs/states/${sendName}`,
      retention: props.logRetention ?? RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    const sendSubstitutions: Record<(typeof SEND_SUBSTITUTIONS)[number], string> = {
      SendAttemptStateMachineArn: this.attemptArn,
    };
    this.sendMachine = new StateMachine(this, 'SendMachine', {
      stateMachineName: sendName,
      stateMachineType: StateMachineType.STANDARD,
      definitionBody: DefinitionBody.fromFile(join(REPO_ROOT, 'statemachines', SEND_ASL)),
      definitionSubstitutions: sendSubstitutions,
      logs: { destination: this.sendLogGroup, level: LogLevel.ERROR, includeExecutionData: false },
      tracingEnabled: true,
    });
    // startExecution.sync:2 of the attempt machine: start it, follow and stop its executions, and the
    // managed EventBridge rule through which Step Functions learns that a child has ended.
    this.sendMachine.addToRolePolicy(
      new PolicyStatement({ actions: ['states:StartExecution'], resources: [this.attemptArn] }),
    );
    this.sendMachine.addToRolePolicy(
      new PolicyStatement({
        actions: ['states:DescribeExecution', 'states:StopExecution'],
        resources: [executionsOf(attemptName), executionsOf(attemptName, 'express')],
      }),
    );
    this.sendMachine.addToRolePolicy(
      new PolicyStatement({
        actions: ['events:PutTargets', 'events:PutRule', 'events:DescribeRule'],
        resources: [
          stack.formatArn({
            service: 'events',
            resource: 'rule',
            resourceName: 'StepFunctionsGetEventsForStepFunctionsExecutionRule',
          }),
        ],
      }),
    );
    for (const machine of [this.stateMachine, this.sendMachine])
      suppressLint(
        machine.node.defaultChild as CfnResource,
        'W3005',
        'The CDK makes a state machine depend on its role and the role’s policy, so that no execution starts before the policy exists; the role’s half of it is also implied by the RoleArn property, which cfn-lint reports.',
      );
    const arnMarker = (resource: string) =>
      `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:states:<AWS::Region>:<AWS::AccountId>:${resource}:${attemptName}:*]`;
    Validations.of(this.sendMachine).acknowledge(
      {
        id: arnMarker('execution'),
        reason:
          'startExecution.sync follows the attempt executions it starts; their names are minted per message, so only the machine-wide execution prefix can be named.',
      },
      {
        id: arnMarker('express'),
        reason:
          'startExecution.sync follows the Express attempt executions it starts; their ids are per execution, so only the machine-wide express-execution prefix can be named.',
      },
      {
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason:
          'Step Functions log delivery (logs:*LogDelivery*, DescribeLogGroups, resource policies) and X-Ray actions support no resource-level permissions.',
      },
      {
        id: 'AwsSolutions-SF1',
        reason:
          'Execution logs are ERROR level without execution data on purpose: inputs and outputs carry message ids and recipients, which are never logged.',
      },
    );

    Validations.of(this.stateMachine).acknowledge(
      {
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason:
          'Step Functions log delivery (logs:*LogDelivery*, DescribeLogGroups, resource policies) and X-Ray actions support no resource-level permissions.',
      },
      {
        id: 'AwsSolutions-SF1',
        reason:
          'Execution logs are ERROR level without execution data on purpose: inputs and outputs carry message ids and recipients, which are never logged.',
      },
    );
  }
}
