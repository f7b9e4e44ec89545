import { App, type AppProps, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { PmailStack } from './pmail-stack.ts';

/** The stack's id and CloudFormation name. */
export const STACK_NAME = 'Pmail';

/**
 * The pmail CDK app: the `Pmail` stack, environment-agnostic (no account or region, so it
 * synthesises offline and deploys wherever the CLI's credentials point), checked by cdk-nag's
 * AWS Solutions pack, whose unacknowledged findings fail synthesis.
 */
export function createPmailApp(props: AppProps = {}): { app: App; stack: PmailStack } {
  const app = new App(props);
  const stack = new PmailStack(app, STACK_NAME, {
    description: 'pmail: outbound email with safe retries (API, send machines, delivery events)',
  });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { app, stack };
}
