import { ArnFormat, CfnOutput, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { CLOUDFLARE_CONTEXT } from './cloudflare-events.ts';
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

/**
 * The Cloudflare transport's token (Email Sending: Edit), in its own secret that only the Cloudflare
 * transport Lambda reads; the operator fills it after the first deploy (until then a Cloudflare send
 * backs off as `Paused`: nothing is sent). The account comes from the stack's Cloudflare settings or
 * context `pmail:cloudflareAccountId`, unless a domain names its own.
 */
export function cloudflareSendingToken(stack: Stack, fn: PmailFunction, accountId?: string): Secret {
  const secret = new Secret(stack, 'CloudflareSendingToken', {
    description:
      'pmail: Cloudflare API token with Email Sending: Edit, for the Cloudflare transport (replace the generated value)',
    removalPolicy: RemovalPolicy.RETAIN,
  });
  Validations.of(secret).acknowledge({
    id: 'AwsSolutions-SMG4',
    reason:
      'The value is a Cloudflare API token issued in the Cloudflare dashboard; AWS cannot rotate it. The operator rolls the token there and puts the new value in this secret.',
  });
  secret.grantRead(fn);
  const account = accountId ?? stack.node.tryGetContext(CLOUDFLARE_CONTEXT.accountId);
  fn.addEnvironment({
    PMAIL_CF_API_TOKEN_SECRET_ARN: secret.secretArn,
    ...(account ? { PM_CF_ACCOUNT_ID: String(account) } : {}),
  });
  new CfnOutput(stack, 'CloudflareSendingTokenSecretArn', {
    value: secret.secretArn,
    description:
      'Put the Cloudflare API token (Email Sending: Edit) of the Cloudflare transport in this secret',
  });
  return secret;
}
