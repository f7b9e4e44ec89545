import { rmSync } from 'node:fs';
import type { CfnElement } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { afterAll, describe, expect, it } from 'vitest';
import { createPmailApp } from '../../lib/app.ts';
import { CLOUDFLARE_CONTEXT } from '../../lib/cloudflare-events.ts';
import type { PmailStack } from '../../lib/pmail-stack.ts';

const outdirs: string[] = [];
afterAll(() => {
  for (const dir of outdirs) rmSync(dir, { recursive: true, force: true });
});

/** The stack without bundling (the stack test bundles): the construct tree is what is checked. */
function build(context: Record<string, string> = {}) {
  const built = createPmailApp({ context: { 'aws:cdk:bundling-stacks': [], ...context } });
  outdirs.push(built.app.outdir);
  return built;
}
const SETTINGS = {
  [CLOUDFLARE_CONTEXT.accountId]: '023e105f4ecef8ad9ca31a8372d0c353',
  [CLOUDFLARE_CONTEXT.queueId]: 'f9f79265f388666de8122cfb508d7776',
};

const logicalId = (stack: PmailStack, el: { node: { defaultChild?: unknown } }) =>
  stack.resolve((el.node.defaultChild as CfnElement).logicalId) as string;

describe('Cloudflare events in the stack', () => {
  it('creates nothing for Cloudflare by default', () => {
    const { stack } = build();
    expect(stack.cloudflare).toBeUndefined();
    const template = Template.fromStack(stack);
    template.resourceCountIs('AWS::SecretsManager::Secret', 1);
    expect(JSON.stringify(template.toJSON())).not.toContain('PM_CF_ACCOUNT_ID');
    expect(JSON.stringify(template.toJSON())).not.toContain('cloudflare-pull');
  });

  it('refuses half the settings', () => {
    expect(() => build({ [CLOUDFLARE_CONTEXT.accountId]: 'abc' })).toThrow(/both/);
  });

  describe('with an account and a queue id', () => {
    const { app, stack } = build(SETTINGS);
    const template = Template.fromStack(stack);
    const cf = stack.cloudflare!;
    const fnId = logicalId(stack, cf.fn.fn);
    const roleId = logicalId(stack, cf.fn.role);
    const secretId = logicalId(stack, cf.apiToken);
    const queueId = logicalId(stack, stack.events.queue);

    it('runs the pull function every minute with the settings, the secret and the queue URL', () => {
      template.hasResourceProperties('AWS::Lambda::Function', {
        Handler: 'index.handler',
        Timeout: 90,
        Environment: {
          Variables: Match.objectLike({
            PM_CF_ACCOUNT_ID: SETTINGS[CLOUDFLARE_CONTEXT.accountId],
            PM_CF_EVENTS_QUEUE_ID: SETTINGS[CLOUDFLARE_CONTEXT.queueId],
            PMAIL_CF_API_TOKEN_SECRET_ARN: { Ref: secretId },
            PMAIL_EVENTS_QUEUE_URL: { Ref: queueId },
          }),
        },
      });
      template.hasResourceProperties('AWS::Events::Rule', {
        ScheduleExpression: 'rate(1 minute)',
        Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [fnId, 'Arn'] } })],
      });
    });

    it('lets the function send to the delivery-events queue and read its token, and nothing more', () => {
      const statements = Object.values(template.findResources('AWS::IAM::Policy'))
        .filter((p) => (p.Properties.Roles as { Ref: string }[]).some((r) => r.Ref === roleId))
        .flatMap(
          (p) => p.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[],
        );
      const byAction = new Map<string, string[]>();
      for (const st of statements)
        for (const a of [st.Action].flat())
          byAction.set(a, [...(byAction.get(a) ?? []), JSON.stringify(st.Resource)]);
      const sqsActions = [...byAction.keys()].filter((a) => a.startsWith('sqs:'));
      expect(sqsActions).toEqual(['sqs:SendMessage']);
      expect(byAction.get('sqs:SendMessage')).toEqual([JSON.stringify({ 'Fn::GetAtt': [queueId, 'Arn'] })]);
      expect(byAction.get('secretsmanager:GetSecretValue')).toEqual([JSON.stringify({ Ref: secretId })]);
      expect([...byAction.keys()].filter((a) => a.startsWith('dynamodb:') || a.startsWith('s3:'))).toEqual(
        [],
      );
    });

    it('gives the Cloudflare transport its own sending token, read by it alone, and the account', () => {
      const transport = stack.send.transports.cloudflare!;
      const tokenId = logicalId(stack, stack.cloudflareSendingToken!);
      template.hasResourceProperties('AWS::Lambda::Function', {
        Environment: {
          Variables: Match.objectLike({
            PM_CF_ACCOUNT_ID: SETTINGS[CLOUDFLARE_CONTEXT.accountId],
            PMAIL_CF_API_TOKEN_SECRET_ARN: { Ref: tokenId },
          }),
        },
      });
      const readers = Object.values(template.findResources('AWS::IAM::Policy')).filter((p) =>
        JSON.stringify(p.Properties.PolicyDocument).includes(`"Ref":"${tokenId}"`),
      );
      expect(readers.map((p) => p.Properties.Roles)).toEqual([[{ Ref: logicalId(stack, transport.role) }]]);
    });

    it('keeps the token secret on removal and names it in an output', () => {
      template.hasResource('AWS::SecretsManager::Secret', { DeletionPolicy: 'Retain' });
      // The keys, the pull consumer's token and the Cloudflare transport's sending token.
      template.resourceCountIs('AWS::SecretsManager::Secret', 3);
      expect(
        Object.values(template.toJSON().Outputs).map((o) => JSON.stringify((o as { Value: unknown }).Value)),
      ).toContain(JSON.stringify({ Ref: secretId }));
    });

    it('passes cdk-nag with every acknowledgement reasoned', () => {
      const findings = new AwsSolutionsChecks().validateScope(app).violations.map((v) => v.ruleName);
      expect(findings).toEqual([]);
    });
  });
});
