import { Duration } from 'aws-cdk-lib';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { PmailFunction } from './defaults.ts';

export interface SweeperProps {
  /** Environment of the sweeper (table, both machine ARNs). */
  readonly environment: Record<string, string>;
  /** @default RetentionDays.ONE_MONTH */
  readonly logRetention?: RetentionDays;
}

/**
 * The sweeper (functions/sweeper): every minute, re-dispatch queued messages whose
 * dispatch is more than 5 minutes old with nothing running for them, and resolve claims older than
 * 5 minutes to uncertain.
 */
export class Sweeper extends Construct {
  readonly fn: PmailFunction;
  readonly schedule: Rule;

  constructor(scope: Construct, id: string, props: SweeperProps) {
    super(scope, id);
    this.fn = new PmailFunction(this, 'Fn', {
      entry: 'functions/sweeper/sweeper.handler.ts',
      handler: 'handler',
      timeout: Duration.seconds(60),
      description: 'pmail sweeper: re-dispatch stranded queued messages, resolve stale claims',
      environment: props.environment,
      logRetention: props.logRetention,
    });
    this.schedule = new Rule(this, 'Schedule', {
      description: 'pmail sweeper, every minute',
      schedule: Schedule.rate(Duration.minutes(1)),
      targets: [new LambdaFunction(this.fn.fn, { retryAttempts: 0 })],
    });
  }
}
