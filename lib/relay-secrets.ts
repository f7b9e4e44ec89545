import { ArnFormat, Stack, Validations } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { PmailFunction } from './defaults.ts';

/**
 * The SMTP relays' secrets (functions/store/relay-secrets.store.ts): one Secrets Manager secret per
 * sending domain, `{stackName}/smtp/{domain}`, created by the domains API when a domain with
 * transport `smtp` is given credentials. No secret exists at deploy time, so the grants name the
 * prefix. Only the SMTP transport Lambda reads (`grantSmtpSecretsRead`); only the domains API
 * function writes (`grantSmtpSecretsWrite`, wired with the domains API).
 */
export const smtpSecretPrefix = (stack: Stack): string => stack.stackName;

/** The ARN pattern of every relay secret (Secrets Manager appends six random characters). */
export function smtpSecretsArn(stack: Stack): string {
  return stack.formatArn({
    service: 'secretsmanager',
    resource: 'secret',
    resourceName: `${smtpSecretPrefix(stack)}/smtp/*`,
    arnFormat: ArnFormat.COLON_RESOURCE_NAME,
  });
}

const nagId = (stack: Stack) =>
  `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:secretsmanager:<AWS::Region>:<AWS::AccountId>:secret:${smtpSecretPrefix(stack)}/smtp/*]`;

export function grantSmtpSecretsRead(fn: PmailFunction): void {
  const stack = Stack.of(fn);
  fn.grantPrincipal.addToPrincipalPolicy(
    new PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [smtpSecretsArn(stack)] }),
  );
  fn.addEnvironment({ PMAIL_SMTP_SECRET_PREFIX: smtpSecretPrefix(stack) });
  Validations.of(fn).acknowledge({
    id: nagId(stack),
    reason:
      'One secret per sending domain, created at run time by the domains API under this prefix; the SMTP transport reads the one its domain names.',
  });
}

export function grantSmtpSecretsWrite(fn: PmailFunction): void {
  const stack = Stack.of(fn);
  fn.grantPrincipal.addToPrincipalPolicy(
    new PolicyStatement({
      actions: [
        'secretsmanager:CreateSecret',
        'secretsmanager:PutSecretValue',
        'secretsmanager:DeleteSecret',
      ],
      resources: [smtpSecretsArn(stack)],
    }),
  );
  fn.addEnvironment({ PMAIL_SMTP_SECRET_PREFIX: smtpSecretPrefix(stack) });
  Validations.of(fn).acknowledge({
    id: nagId(stack),
    reason:
      'The domains API stores each smtp domain’s credentials in its own secret under this prefix (write-only: it never reads them back).',
  });
}
