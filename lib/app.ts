import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, type AppProps, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { PmailStack } from './pmail-stack.ts';

/** The stack's id and CloudFormation name. */
export const STACK_NAME = 'Pmail';

/**
 * The pmail CDK app (run by bin/cdk-app.ts, cdk.json's `app`): the `Pmail` stack,
 * environment-agnostic (no account or region, so it synthesises offline and deploys wherever the
 * CLI's credentials point), checked by cdk-nag's AWS Solutions pack, whose unacknowledged findings
 * fail synthesis.
 */
export function createPmailApp(props: AppProps = {}): { app: App; stack: PmailStack } {
  const app = new App({ ...props, context: { ...featureFlags(), ...props.context } });
  const stack = new PmailStack(app, STACK_NAME, {
    description: 'pmail: outbound email with safe retries (API, send machines, delivery events)',
  });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { app, stack };
}

/**
 * The feature flags of cdk.json (aws-cdk-lib's recommended values), so an app made in a test or a
 * script synthesises what `cdk synth` and `cdk deploy` do; the CLI passes the same context itself.
 */
function featureFlags(): Record<string, unknown> {
  const file = join(import.meta.dirname, '..', 'cdk.json');
  const cdk = JSON.parse(readFileSync(file, 'utf8')) as { context?: Record<string, unknown> };
  return cdk.context ?? {};
}
