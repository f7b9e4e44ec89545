import {
  CloudFormationClient,
  DescribeStacksCommand,
  paginateListStackResources,
} from '@aws-sdk/client-cloudformation';
import { CloudWatchClient, DescribeAlarmsCommand } from '@aws-sdk/client-cloudwatch';
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DescribeActiveReceiptRuleSetCommand, SESClient } from '@aws-sdk/client-ses';
import { GetAccountCommand, ListEmailIdentitiesCommand, SESv2Client } from '@aws-sdk/client-sesv2';
import { DescribeStateMachineCommand, SFNClient } from '@aws-sdk/client-sfn';
import { ListSubscriptionsByTopicCommand, SNSClient } from '@aws-sdk/client-sns';
import { SES_RECEIVING_REGIONS } from '../../functions/core/ses-regions.ts';
import { awsHint } from './aws.ts';
import { EXIT } from './client.ts';
import type { Ctx } from './context.ts';
import { out, printJson } from './io.ts';

/**
 * `pmail doctor --stack <name>`: a deployed stack checks itself, read-only. Each check says what
 * to do when it fails, in the words docs/deploying.md › When the first deploy fails quotes.
 */

export interface StackCheck {
  name: string;
  result: 'pass' | 'warn' | 'fail' | 'skip';
  detail: string;
  /** What to do about a warn or a fail. */
  fix?: string;
}

/** The AWS clients the checks read through (tests give them clients mocked with recorded answers). */
export interface StackClients {
  cloudformation: CloudFormationClient;
  dynamodb: DynamoDBClient;
  sfn: SFNClient;
  ses: SESClient;
  sesv2: SESv2Client;
  sns: SNSClient;
  cloudwatch: CloudWatchClient;
  fetch: typeof fetch;
}

export function stackClients(region: string | undefined): StackClients {
  const config = region ? { region, maxAttempts: 2 } : { maxAttempts: 2 };
  return {
    cloudformation: new CloudFormationClient(config),
    dynamodb: new DynamoDBClient(config),
    sfn: new SFNClient(config),
    ses: new SESClient(config),
    sesv2: new SESv2Client(config),
    sns: new SNSClient(config),
    cloudwatch: new CloudWatchClient(config),
    fetch,
  };
}

/** The words each failure is reported with (docs/deploying.md quotes them). */
export const FIX = {
  bootstrap: (region: string) =>
    `CDK is not bootstrapped in ${region}: run \`npx cdk bootstrap\` with these credentials, then \`npx cdk deploy\``,
  notDeployed: (stack: string, region: string) =>
    `stack ${stack} is not deployed in ${region}: run \`npx cdk deploy\` (or pass --region where it is)`,
  failedStack:
    'the last deploy failed: read the first FAILED event (`aws cloudformation describe-stack-events`), fix it, deploy again',
  receivingRegion: (region: string) =>
    `SES has no email receiving in ${region}: deploy to one of ${SES_RECEIVING_REGIONS.join(', ')}, or leave receiving out with -c pmail:receiving=false`,
  ruleSetInactive: (name: string) =>
    `the receipt rule set ${name} is not the active one, so no mail reaches pmail: run \`aws ses set-active-receipt-rule-set --rule-set-name ${name}\``,
  sandbox:
    'the SES account is in the sandbox: it sends only to verified addresses; request production access (docs/deploying.md › The SES sandbox)',
  sendingDisabled:
    'SES sending is disabled for this account: read the SES console’s account dashboard and open a case',
  noIdentity:
    'no verified SES identity: add a sending domain (`npx pmail domains add <name>`) and publish its DNS records',
  unconfirmed: (topic: string) =>
    `a subscription of ${topic} waits for confirmation: click the link in the email AWS sent to it`,
  noSubscriber: (topic: string) =>
    `nobody is subscribed to ${topic}: \`aws sns subscribe --topic-arn ${topic} --protocol email --notification-endpoint you@example.com\``,
  api: 'the API does not answer /health: read the meta function’s log group, then deploy again',
  table: 'the table is not ACTIVE: wait for the deploy to finish, or read the stack events',
  machines: 'a state machine is not ACTIVE: wait for the deploy to finish, or read the stack events',
  alarms: 'alarms the stack defines are missing: deploy again',
} as const;

interface Stack {
  outputs: Record<string, string>;
  resources: { type: string; id: string; logical: string }[];
  status: string;
}

/** The stack, its outputs and its resources; or the checks that say why there is none. */
async function readStack(name: string, region: string, c: StackClients): Promise<Stack | StackCheck[]> {
  try {
    const s = (await c.cloudformation.send(new DescribeStacksCommand({ StackName: name }))).Stacks?.[0];
    const outputs = Object.fromEntries(
      (s?.Outputs ?? []).map((o) => [o.OutputKey ?? '', o.OutputValue ?? '']),
    );
    const resources: Stack['resources'] = [];
    for await (const page of paginateListStackResources({ client: c.cloudformation }, { StackName: name }))
      for (const r of page.StackResourceSummaries ?? [])
        resources.push({
          type: r.ResourceType ?? '',
          id: r.PhysicalResourceId ?? '',
          logical: r.LogicalResourceId ?? '',
        });
    return { outputs, resources, status: s?.StackStatus ?? 'UNKNOWN' };
  } catch (e) {
    if (!/does not exist/.test((e as Error).message)) throw e;
    const bootstrapped = await c.cloudformation
      .send(new DescribeStacksCommand({ StackName: 'CDKToolkit' }))
      .then(() => true)
      .catch((err: Error) => (/does not exist/.test(err.message) ? false : Promise.reject(err)));
    const checks: StackCheck[] = [
      bootstrapped
        ? { name: 'stack', result: 'fail', detail: `${name}: not found`, fix: FIX.notDeployed(name, region) }
        : {
            name: 'cdk bootstrap',
            result: 'fail',
            detail: 'no CDKToolkit stack',
            fix: FIX.bootstrap(region),
          },
    ];
    if (!(SES_RECEIVING_REGIONS as readonly string[]).includes(region))
      checks.push({
        name: 'ses receiving',
        result: 'fail',
        detail: region,
        fix: FIX.receivingRegion(region),
      });
    return checks;
  }
}

const check = (name: string, ok: boolean, detail: string, fix: string, soft = false): StackCheck =>
  ok ? { name, result: 'pass', detail } : { name, result: soft ? 'warn' : 'fail', detail, fix };

/** One check that may throw: its error is the check's failure, with the AWS hint. */
async function guarded(name: string, run: () => Promise<StackCheck | StackCheck[]>): Promise<StackCheck[]> {
  try {
    return [await run()].flat();
  } catch (e) {
    return [{ name, result: 'fail', detail: awsHint(e).message }];
  }
}

async function apiCheck(s: Stack, c: StackClients): Promise<StackCheck> {
  const base = (s.outputs.ApiUrl ?? '').replace(/\/+$/, '');
  if (!base) return { name: 'api', result: 'fail', detail: 'no ApiUrl output', fix: FIX.api };
  const res = await c.fetch(`${base}/health`, { signal: AbortSignal.timeout(10_000) });
  const body = (await res.json().catch(() => ({}))) as { status?: string; checks?: Record<string, string> };
  const ok = res.ok && body.status === 'ok';
  return check(
    'api',
    ok,
    `${base}/health: ${res.status} ${body.status ?? ''} ${JSON.stringify(body.checks ?? {})}`,
    FIX.api,
  );
}

const ofType = (s: Stack, type: string) => s.resources.filter((r) => r.type === type);

async function tableCheck(s: Stack, c: StackClients): Promise<StackCheck> {
  const name = s.outputs.TableName ?? ofType(s, 'AWS::DynamoDB::Table')[0]?.id;
  const t = await c.dynamodb.send(new DescribeTableCommand({ TableName: name }));
  return check('table', t.Table?.TableStatus === 'ACTIVE', `${name}: ${t.Table?.TableStatus}`, FIX.table);
}

async function machinesCheck(s: Stack, c: StackClients): Promise<StackCheck> {
  const arns = ofType(s, 'AWS::StepFunctions::StateMachine').map((r) => r.id);
  const status = await Promise.all(
    arns.map(
      async (arn) =>
        `${arn.split(':').pop()} ${(await c.sfn.send(new DescribeStateMachineCommand({ stateMachineArn: arn }))).status}`,
    ),
  );
  const ok = arns.length > 0 && status.every((x) => x.endsWith(' ACTIVE'));
  return check('state machines', ok, status.join(', ') || 'none in the stack', FIX.machines);
}

async function receivingCheck(s: Stack, region: string, c: StackClients): Promise<StackCheck[]> {
  const set = s.outputs.ReceiptRuleSetName;
  if (!set) return [{ name: 'receipt rule set', result: 'skip', detail: 'the stack does not receive mail' }];
  if (!(SES_RECEIVING_REGIONS as readonly string[]).includes(region))
    return [{ name: 'ses receiving', result: 'fail', detail: region, fix: FIX.receivingRegion(region) }];
  const active = await c.ses.send(new DescribeActiveReceiptRuleSetCommand({}));
  const name = active.Metadata?.Name;
  const rule = s.outputs.ReceiptRuleName;
  const hasRule = !rule || (active.Rules ?? []).some((r) => r.Name === rule);
  return [
    check(
      'receipt rule set',
      name === set && hasRule,
      `active: ${name ?? 'none'}; pmail's: ${set}`,
      FIX.ruleSetInactive(set),
    ),
  ];
}

async function sesAccountChecks(c: StackClients): Promise<StackCheck[]> {
  const a = await c.sesv2.send(new GetAccountCommand({}));
  const ids = await c.sesv2.send(new ListEmailIdentitiesCommand({ PageSize: 1000 }));
  const verified = (ids.EmailIdentities ?? []).filter(
    (i) => i.VerificationStatus === 'SUCCESS' || i.SendingEnabled,
  );
  return [
    check(
      'ses sending',
      a.SendingEnabled === true,
      `sending ${a.SendingEnabled ? 'enabled' : 'disabled'}`,
      FIX.sendingDisabled,
    ),
    check(
      'ses sandbox',
      a.ProductionAccessEnabled === true,
      a.ProductionAccessEnabled ? 'production access' : 'sandbox',
      FIX.sandbox,
      true,
    ),
    check(
      'ses identity',
      verified.length > 0,
      `${verified.length} verified: ${verified.map((i) => i.IdentityName).join(', ')}`,
      FIX.noIdentity,
      true,
    ),
  ];
}

async function subscriptionChecks(s: Stack, c: StackClients): Promise<StackCheck[]> {
  const out: StackCheck[] = [];
  for (const topic of ofType(s, 'AWS::SNS::Topic').map((r) => r.id)) {
    const subs =
      (await c.sns.send(new ListSubscriptionsByTopicCommand({ TopicArn: topic }))).Subscriptions ?? [];
    const pending = subs.filter((x) => x.SubscriptionArn === 'PendingConfirmation');
    const name = `subscriptions ${topic.split(':').pop()}`;
    if (pending.length)
      out.push({ name, result: 'warn', detail: `${pending.length} pending`, fix: FIX.unconfirmed(topic) });
    else if (topic === s.outputs.AlarmTopicArn && subs.length === 0)
      out.push({ name, result: 'warn', detail: 'no subscriber', fix: FIX.noSubscriber(topic) });
    else out.push({ name, result: 'pass', detail: `${subs.length} confirmed` });
  }
  return out;
}

async function alarmsCheck(s: Stack, c: StackClients): Promise<StackCheck> {
  const names = ofType(s, 'AWS::CloudWatch::Alarm').map((r) => r.id);
  const found = new Map<string, string>();
  for (let i = 0; i < names.length; i += 100) {
    const page = await c.cloudwatch.send(new DescribeAlarmsCommand({ AlarmNames: names.slice(i, i + 100) }));
    for (const a of page.MetricAlarms ?? []) found.set(a.AlarmName ?? '', a.StateValue ?? '');
  }
  const missing = names.filter((n) => !found.has(n));
  const firing = [...found].filter(([, state]) => state === 'ALARM').map(([n]) => n);
  const detail = `${found.size} of ${names.length} present${firing.length ? `; in ALARM: ${firing.join(', ')}` : ''}`;
  return check(
    'alarms',
    missing.length === 0,
    missing.length ? `${detail}; missing: ${missing.join(', ')}` : detail,
    FIX.alarms,
  );
}

/** Every check of a deployed stack, in the order a first deploy meets them. */
export async function stackChecks(name: string, region: string, c: StackClients): Promise<StackCheck[]> {
  const stack = await readStack(name, region, c);
  if (Array.isArray(stack)) return stack;
  const checks: StackCheck[] = [
    check('stack', !/FAILED|ROLLBACK/.test(stack.status), `${name}: ${stack.status}`, FIX.failedStack),
  ];
  checks.push(...(await guarded('api', () => apiCheck(stack, c))));
  checks.push(...(await guarded('table', () => tableCheck(stack, c))));
  checks.push(...(await guarded('state machines', () => machinesCheck(stack, c))));
  checks.push(...(await guarded('receipt rule set', () => receivingCheck(stack, region, c))));
  checks.push(...(await guarded('ses account', () => sesAccountChecks(c))));
  checks.push(...(await guarded('subscriptions', () => subscriptionChecks(stack, c))));
  checks.push(...(await guarded('alarms', () => alarmsCheck(stack, c))));
  return checks;
}

/** The command: print each check (and its fix), exit 12 when one fails. */
export async function doctorStackCommand(ctx: Ctx): Promise<number> {
  const region =
    (ctx.opts.region as string | undefined) ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION;
  if (!region) {
    out('doctor --stack needs a Region: pass --region or set AWS_REGION');
    return EXIT.config;
  }
  const checks = await stackChecks(String(ctx.opts.stack), region, stackClients(region));
  if (ctx.opts.json) printJson({ checks });
  else
    for (const c of checks) {
      out(`${c.result.padEnd(4)}  ${c.name.padEnd(22)}  ${c.detail}`);
      if (c.fix) out(`      ${''.padEnd(22)}  → ${c.fix}`);
    }
  return checks.some((c) => c.result === 'fail') ? EXIT.doctor_failed : EXIT.ok;
}
