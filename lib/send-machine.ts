import { join } from 'node:path';
import { Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { DefinitionBody, LogLevel, StateMachine, StateMachineType } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { PmailFunction, REPO_ROOT } from './defaults.ts';

/** The attempt machine's definition file, under `statemachines/`. */
export const SEND_ATTEMPT_ASL = 'send-attempt.asl.json';

/** The `${…}` placeholders of send-attempt.asl.json; the construct fills exactly these. */
export const SEND_ATTEMPT_SUBSTITUTIONS = [
  'ClaimFunctionArn',
  'TransportFunctionArn',
  'RecordFunctionArn',
] as const;

/**
 * Every state machine file the CDK deploys and the placeholders it substitutes in it. The ASL test
 * reads this, so a placeholder added to a file without a value here fails before a deploy does.
 */
export const STATE_MACHINE_SUBSTITUTIONS: Readonly<Record<string, readonly string[]>> = {
  [SEND_ATTEMPT_ASL]: SEND_ATTEMPT_SUBSTITUTIONS,
};

const SEND_ENTRY = 'functions/send/send-attempt.handler.ts';

export interface SendMachineProps {
  /** Environment of the three task functions (table, bucket, queue). Must not name the machine. */
  readonly environment: Record<string, string>;
  /** @default RetentionDays.ONE_MONTH */
  readonly logRetention?: RetentionDays;
}

/**
 * The Express send-attempt machine (DESIGN § 6): Claim → Transport → Record, one Lambda per task,
 * all from functions/send/send-attempt.handler.ts. Execution logs carry errors only and never the
 * execution data, so message bodies and addresses stay out of CloudWatch.
 */
export class SendMachine extends Construct {
  readonly claim: PmailFunction;
  readonly transport: PmailFunction;
  readonly record: PmailFunction;
  readonly stateMachine: StateMachine;
  readonly logGroup: LogGroup;

  constructor(scope: Construct, id: string, props: SendMachineProps) {
    super(scope, id);
    const task = (name: string, handler: string, timeout: Duration, description: string) =>
      new PmailFunction(this, name, {
        entry: SEND_ENTRY,
        handler,
        timeout,
        description,
        environment: props.environment,
        logRetention: props.logRetention,
      });

    this.claim = task('Claim', 'claim', Duration.seconds(20), 'pmail send-attempt: claim the queued message');
    // One provider call; the SMTP deadline is 4 min and the ASL task times out at 250 s (DESIGN § 6).
    this.transport = task(
      'Transport',
      'transport',
      Duration.seconds(260),
      'pmail send-attempt: one provider call',
    );
    this.record = task('Record', 'record', Duration.seconds(20), 'pmail send-attempt: record the outcome');

    this.logGroup = new LogGroup(this, 'Logs', {
      // The vendedlogs prefix keeps CloudWatch Logs' resource policy from growing per machine.
      logGroupName: `/aws/vendedlogs/states/${Stack.of(this).stackName}-send-attempt`,
      retention: props.logRetention ?? RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.RETAIN,
    });

    const substitutions: Record<(typeof SEND_ATTEMPT_SUBSTITUTIONS)[number], string> = {
      ClaimFunctionArn: this.claim.fn.functionArn,
      TransportFunctionArn: this.transport.fn.functionArn,
      RecordFunctionArn: this.record.fn.functionArn,
    };

    this.stateMachine = new StateMachine(this, 'Machine', {
      stateMachineName: `${Stack.of(this).stackName}-send-attempt`,
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
        resources: [this.claim.fn.functionArn, this.transport.fn.functionArn, this.record.fn.functionArn],
      }),
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
