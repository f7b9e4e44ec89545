import { Duration } from 'aws-cdk-lib';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { PmailFunction } from './defaults.ts';

export interface OrphanSweepProps {
  /** Environment of the pass (the table and the blob bucket). */
  readonly environment: Record<string, string>;
  /** @default RetentionDays.ONE_MONTH */
  readonly logRetention?: RetentionDays;
}

/**
 * The daily orphan pass (functions/sweeper/orphans.ts): deletes the outbound objects of submits
 * that never committed (docs/deploying.md, teardown).
 */
export class OrphanSweep extends Construct {
  readonly fn: PmailFunction;
  readonly schedule: Rule;

  constructor(scope: Construct, id: string, props: OrphanSweepProps) {
    super(scope, id);
    this.fn = new PmailFunction(this, 'Fn', {
      entry: 'functions/sweeper/orphans.handler.ts',
      handler: 'handler',
      timeout: Duration.minutes(15),
      description: 'pmail orphan pass: delete outbound objects of submits that never committed',
      environment: props.environment,
      logRetention: props.logRetention,
    });
    this.schedule = new Rule(this, 'Schedule', {
      description: 'pmail orphan pass, daily',
      schedule: Schedule.rate(Duration.days(1)),
      targets: [new LambdaFunction(this.fn.fn, { retryAttempts: 0 })],
    });
  }
}
