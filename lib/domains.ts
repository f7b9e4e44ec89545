import { Duration } from 'aws-cdk-lib';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { PmailFunction } from './defaults.ts';

export interface DomainCheckProps {
  /** Environment of the check (table, keys secret). */
  readonly environment: Record<string, string>;
  /** @default RetentionDays.ONE_MONTH */
  readonly logRetention?: RetentionDays;
}

/**
 * The scheduled domain check (functions/domains/check.handler.ts): every hour, read each sending
 * domain's SES identity (GetEmailIdentity) and move its state; finish removals left half-done.
 */
export class DomainCheck extends Construct {
  readonly fn: PmailFunction;
  readonly schedule: Rule;

  constructor(scope: Construct, id: string, props: DomainCheckProps) {
    super(scope, id);
    this.fn = new PmailFunction(this, 'Fn', {
      entry: 'functions/domains/check.handler.ts',
      handler: 'handler',
      timeout: Duration.minutes(5),
      description: 'pmail domain check: read SES identities, move domain states',
      environment: props.environment,
      logRetention: props.logRetention,
    });
    this.schedule = new Rule(this, 'Schedule', {
      description: 'pmail domain check, every hour',
      schedule: Schedule.rate(Duration.hours(1)),
      targets: [new LambdaFunction(this.fn.fn, { retryAttempts: 0 })],
    });
  }
}
