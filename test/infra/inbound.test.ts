import { rmSync } from 'node:fs';
import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INBOUND_RAW_PREFIX } from '../../functions/inbound/notification.ts';
import { activeRuleSetHandler } from '../../functions/inbound/receipt-rule-set.ts';
import { createPmailApp } from '../../lib/app.ts';
import { SES_RECEIVING_REGIONS } from '../../lib/inbound.ts';
import { PmailStack } from '../../lib/pmail-stack.ts';

type Resource = { Type: string; Properties: Record<string, any>; DependsOn?: string[] };

const outdirs: string[] = [];
afterAll(() => {
  for (const d of outdirs) rmSync(d, { recursive: true, force: true });
});

/** Synthesise without bundling (the stack test bundles): the receiving resources read the tree. */
function synth(context: Record<string, unknown> = {}, region?: string) {
  const ctx = { 'aws:cdk:bundling-stacks': [], ...context };
  if (region) {
    const app = new App({ context: ctx });
    outdirs.push(app.outdir);
    const stack = new PmailStack(app, 'Pmail', { env: { account: '111122223333', region } });
    return Template.fromStack(stack);
  }
  const { app, stack } = createPmailApp({ context: ctx });
  outdirs.push(app.outdir);
  return Template.fromStack(stack);
}

const ofType = (t: Template, type: string) =>
  Object.entries(t.toJSON().Resources as Record<string, Resource>).filter(([, r]) => r.Type === type);

let own: Template;
beforeAll(() => {
  own = synth();
}, 300_000);

describe('SES receiving, pmail’s own rule set', () => {
  it('stores each message under the inbound prefix of the blob bucket and notifies the inbound topic', () => {
    const [[topicId]] = ofType(own, 'AWS::SNS::Topic').filter(([id]) => id.startsWith('Inbound'));
    const [[bucketId]] = ofType(own, 'AWS::S3::Bucket');
    const [[ruleSetId]] = ofType(own, 'AWS::SES::ReceiptRuleSet');
    own.hasResourceProperties('AWS::SES::ReceiptRule', {
      RuleSetName: { Ref: ruleSetId },
      Rule: Match.objectLike({
        Enabled: true,
        ScanEnabled: true,
        Actions: [
          {
            S3Action: {
              BucketName: { Ref: bucketId },
              ObjectKeyPrefix: INBOUND_RAW_PREFIX,
              TopicArn: { Ref: topicId },
            },
          },
        ],
      }),
    });
    // No recipients: the domains are created at run time, the rule set scopes the rule.
    const [[, rule]] = ofType(own, 'AWS::SES::ReceiptRule');
    expect(rule.Properties.Rule.Recipients).toBeUndefined();
  });

  it('lets only this account’s SES, for this rule, put objects, and only under the inbound prefix', () => {
    const [[, policy]] = ofType(own, 'AWS::S3::BucketPolicy');
    const ses = (policy.Properties.PolicyDocument.Statement as any[]).filter(
      (s) => s.Principal?.Service === 'ses.amazonaws.com',
    );
    expect(ses).toHaveLength(1);
    expect(ses[0].Action).toBe('s3:PutObject');
    expect(JSON.stringify(ses[0].Resource)).toContain(`/${INBOUND_RAW_PREFIX}*`);
    expect(ses[0].Condition.StringEquals['aws:SourceAccount']).toEqual({ Ref: 'AWS::AccountId' });
    expect(JSON.stringify(ses[0].Condition.ArnLike['aws:SourceArn'])).toContain(
      ':receipt-rule-set/Pmail-inbound:receipt-rule/Pmail-inbound',
    );
    // The rule is created after the policy: SES checks it may write there at CreateReceiptRule.
    const [[policyId]] = ofType(own, 'AWS::S3::BucketPolicy');
    const [[, ruleRes]] = ofType(own, 'AWS::SES::ReceiptRule');
    expect(ruleRes.DependsOn).toContain(policyId);
  });

  it('feeds the ingest queue from the topic (raw delivery), five receives before its dead-letter queue', () => {
    const queues = ofType(own, 'AWS::SQS::Queue');
    const [[dlqId]] = queues.filter(([, q]) => q.Properties.QueueName === 'Pmail-inbound-dlq');
    const [[queueId, queue]] = queues.filter(([, q]) => q.Properties.QueueName === 'Pmail-inbound');
    expect(queue.Properties.RedrivePolicy).toEqual({
      deadLetterTargetArn: { 'Fn::GetAtt': [dlqId, 'Arn'] },
      maxReceiveCount: 5,
    });
    own.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'sqs',
      RawMessageDelivery: true,
      Endpoint: { 'Fn::GetAtt': [queueId, 'Arn'] },
    });
    own.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Principal: { Service: 'ses.amazonaws.com' },
            Action: 'sns:Publish',
            Condition: Match.objectLike({ StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } }),
          }),
        ]),
      },
    });
    // The ingest function reads the queue with partial batch responses.
    own.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: { 'Fn::GetAtt': [queueId, 'Arn'] },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    own.hasResourceProperties('AWS::Lambda::Function', {
      Description: 'pmail inbound ingest',
      Timeout: 60,
    });
  });

  it('alarms when a message waits in the ingest dead-letter queue', () => {
    const [[dlqId]] = ofType(own, 'AWS::SQS::Queue').filter(
      ([, q]) => q.Properties.QueueName === 'Pmail-inbound-dlq',
    );
    const alarms = ofType(own, 'AWS::CloudWatch::Alarm').filter(([, a]) =>
      (a.Properties.Dimensions ?? []).some(
        (d: any) => d.Name === 'QueueName' && JSON.stringify(d.Value).includes(dlqId),
      ),
    );
    expect(alarms).toHaveLength(1);
    expect(alarms[0][1].Properties).toMatchObject({
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Threshold: 1,
    });
  });

  it('activates pmail’s rule set through a custom resource, after its rule exists', () => {
    const [[ruleSetId]] = ofType(own, 'AWS::SES::ReceiptRuleSet');
    const [[ruleId]] = ofType(own, 'AWS::SES::ReceiptRule');
    const [[, activation]] = ofType(own, 'Custom::PmailActiveReceiptRuleSet');
    expect(activation.Properties.RuleSetName).toEqual({ Ref: ruleSetId });
    expect(activation.DependsOn).toContain(ruleId);
  });

  it('stops a deploy outside the receiving Regions with a CloudFormation rule (the stack has no Region)', () => {
    const rules = own.toJSON().Rules as Record<string, any>;
    const [assertion] = rules.SesReceivingRegion.Assertions;
    expect(assertion.Assert).toEqual({
      'Fn::Contains': [[...SES_RECEIVING_REGIONS], { Ref: 'AWS::Region' }],
    });
    expect(assertion.AssertDescription).toContain('pmail:receiving=false');
  });

  it('tells the domains API and the domain check the Region whose MX to suggest', () => {
    const fns = ofType(own, 'AWS::Lambda::Function').filter(
      ([, f]) => f.Properties.Environment?.Variables?.PMAIL_INBOUND_REGION,
    );
    expect(fns.map(([, f]) => f.Properties.Description).sort()).toEqual(
      expect.arrayContaining([expect.stringMatching(/domain/i)]),
    );
    expect(fns).toHaveLength(2);
  });
});

describe('SES receiving, an account that has an active rule set', () => {
  it('adds pmail’s rule to that set by name, creates no set and activates nothing', () => {
    const t = synth({
      'pmail:receiptRuleSet': 'existing-set',
      'pmail:receivingDomains': 'a.example, B.example',
    });
    expect(ofType(t, 'AWS::SES::ReceiptRuleSet')).toHaveLength(0);
    expect(ofType(t, 'Custom::PmailActiveReceiptRuleSet')).toHaveLength(0);
    t.hasResourceProperties('AWS::SES::ReceiptRule', {
      RuleSetName: 'existing-set',
      Rule: Match.objectLike({ Recipients: ['a.example', 'b.example'] }),
    });
    const [[, policy]] = ofType(t, 'AWS::S3::BucketPolicy');
    expect(JSON.stringify(policy.Properties.PolicyDocument)).toContain(
      ':receipt-rule-set/existing-set:receipt-rule/Pmail-inbound',
    );
  });
});

describe('SES receiving switched off or out of reach', () => {
  it('leaves every receiving resource out with pmail:receiving=false', () => {
    const t = synth({ 'pmail:receiving': 'false' });
    expect(ofType(t, 'AWS::SES::ReceiptRule')).toHaveLength(0);
    expect(
      ofType(t, 'AWS::SQS::Queue').filter(([, q]) => /inbound/.test(q.Properties.QueueName)),
    ).toHaveLength(0);
    expect(t.toJSON().Rules?.SesReceivingRegion).toBeUndefined();
  });

  it('fails the synth in a Region without SES receiving, naming the Regions that have it', () => {
    expect(() => synth({}, 'ap-east-1')).toThrow(
      /SES email receiving is not available in ap-east-1\. It is available in: us-east-1, .*eu-west-1.*pmail:receiving=false/,
    );
    // The same stack synthesises there with receiving switched off, and in a receiving Region.
    expect(() => synth({ 'pmail:receiving': 'false' }, 'ap-east-1')).not.toThrow();
    const t = synth({}, 'eu-west-1');
    expect(ofType(t, 'AWS::SES::ReceiptRule')).toHaveLength(1);
  });
});

describe('the activation custom resource', () => {
  /** Runs the handler with a recording SES and a recording CloudFormation response endpoint. */
  async function run(
    requestType: 'Create' | 'Update' | 'Delete',
    activeName: string | undefined,
    failWith?: Error,
  ) {
    const calls: string[] = [];
    const ses = {
      async active() {
        calls.push('describe');
        if (failWith) throw failWith;
        return activeName;
      },
      async setActive(name: string | undefined) {
        calls.push(`set ${name ?? '(none)'}`);
        if (failWith) throw failWith;
      },
    };
    const responses: Record<string, string>[] = [];
    const handler = activeRuleSetHandler(ses, async (_url, body) => {
      responses.push(JSON.parse(body));
    });
    await handler({
      RequestType: requestType,
      ResponseURL: 'https://cfn.example/response',
      StackId: 'stack',
      RequestId: 'req',
      LogicalResourceId: 'ActiveRuleSet',
      ResourceProperties: { RuleSetName: 'Pmail-inbound' },
    });
    return { calls, responses };
  }

  it('activates pmail’s set on create and update', async () => {
    for (const type of ['Create', 'Update'] as const) {
      const { calls, responses } = await run(type, 'someone-else');
      expect(calls).toEqual(['set Pmail-inbound']);
      expect(responses).toEqual([
        expect.objectContaining({
          Status: 'SUCCESS',
          PhysicalResourceId: 'active-receipt-rule-set:Pmail-inbound',
        }),
      ]);
    }
  });

  it('on delete, deactivates only when the active set is still pmail’s', async () => {
    expect((await run('Delete', 'Pmail-inbound')).calls).toEqual(['describe', 'set (none)']);
    const theirs = await run('Delete', 'someone-else');
    expect(theirs.calls).toEqual(['describe']);
    expect(theirs.responses[0].Status).toBe('SUCCESS');
    expect((await run('Delete', undefined)).calls).toEqual(['describe']);
  });

  it('reports a refused call as FAILED, so CloudFormation stops instead of waiting', async () => {
    const { responses } = await run('Create', undefined, new Error('AccessDenied'));
    expect(responses).toEqual([expect.objectContaining({ Status: 'FAILED', Reason: 'AccessDenied' })]);
  });
});
