import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PortCall } from '../functions/local/aws-calls.ts';
import { iamRequests } from './iam.ts';
import { functionOf, label, type TemplateFunction, templateFunctions } from './lambdas.ts';
import { onBehalfRequirements, type Requirement } from './on-behalf.ts';
import { evaluate, rolePolicies } from './policies.ts';
import type { Recording } from './recording.ts';
import {
  type AwsRequest,
  liteRecorder,
  MissingVariable,
  recordingClients,
  replay,
  replayColdStart,
} from './replay.ts';
import { type CfnTemplate, ResolvedTemplate } from './template.ts';

/**
 * `npm run check:deploy`: every AWS call the test suite recorded, replayed through its AWS adapter
 * with the environment the template gives its Lambda, and every call AWS makes on the stack's
 * behalf, each asked of the IAM policy simulator against the role's policies and the resource's
 * policy (docs/deploying.md › Checks before a deploy).
 */

export interface Refusal {
  who: string;
  action: string;
  resource: string;
  verdict: string;
  why: string;
}

export interface Unused {
  who: string;
  action: string;
  resources: string[];
}

export interface CheckReport {
  /** Requests a policy would refuse: each fails the check. */
  refused: Refusal[];
  /** Calls the check could not replay or place (a variable not set, a port without an AWS adapter). */
  problems: string[];
  /** Granted actions no recorded or derived request uses (least privilege: listed, not failed). */
  unused: Unused[];
  /** The requests the recording cannot hold, each with its reason. */
  byHand: (Requirement & { reason: string })[];
  /** How many distinct requests were asked of the simulator. */
  requirements: number;
  /** The requests the recorded calls make, by role (what a removed grant must be caught by). */
  recordedNeeds: { role: string; who: string; action: string }[];
  recorded: number;
  missingFiles: string[];
}

/**
 * Calls no local engine reaches, listed by hand: the receipt rule set's activation runs once, as a
 * CloudFormation custom resource at deploy time, on the SES v1 client of the Lambda runtime (pmail
 * has no client of that API and no local engine implements it).
 */
export const BY_HAND: { entry: string; action: string; resource: string; reason: string }[] = [
  {
    entry: 'functions/inbound/receipt-rule-set.handler.ts',
    action: 'ses:DescribeActiveReceiptRuleSet',
    resource: '*',
    reason:
      'the rule set activation (a custom resource at deploy time) reads the active set; SES v1 API, no local engine',
  },
  {
    entry: 'functions/inbound/receipt-rule-set.handler.ts',
    action: 'ses:SetActiveReceiptRuleSet',
    resource: '*',
    reason:
      'the rule set activation makes pmail’s set the active one (and clears it on delete); SES v1 API, no local engine',
  },
];

/** Run `fn` with the function's environment (resolved) as `process.env`, restored after. */
async function withEnvironment<T>(vars: Record<string, string>, fn: () => Promise<T>): Promise<T> {
  const saved = { ...process.env };
  for (const k of Object.keys(process.env))
    if (k.startsWith('PM_') || k.startsWith('PMAIL_')) delete process.env[k];
  Object.assign(process.env, vars);
  try {
    return await fn();
  } finally {
    for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
    Object.assign(process.env, saved);
  }
}

function environmentOf(t: ResolvedTemplate, f: TemplateFunction, problems: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(f.environment)) {
    try {
      out[name] = t.str(value);
    } catch (e) {
      problems.push(`${label(f)}: ${name} does not resolve: ${(e as Error).message}`);
    }
  }
  return out;
}

const callName = (c: PortCall) => `${c.port}.${c.method}`;

/** The recorded calls of one function replayed into its role's requirements. */
async function functionRequirements(
  t: ResolvedTemplate,
  f: TemplateFunction,
  calls: PortCall[],
  coldStart: boolean,
  lite: { url: string; sink: AwsRequest[] },
  problems: string[],
): Promise<Requirement[]> {
  if (!f.roleId) return [];
  const vars = {
    ...environmentOf(t, f, problems),
    AWS_REGION: t.region,
    AWS_ACCESS_KEY_ID: 'AKIDCHECK',
    AWS_SECRET_ACCESS_KEY: 'check',
    AWS_ENDPOINT_URL_SECRETS_MANAGER: lite.url,
  };
  const out: Requirement[] = [];
  await withEnvironment(vars, async () => {
    const run = async (what: string, go: (sink: AwsRequest[]) => Promise<void>) => {
      const sink: AwsRequest[] = [];
      lite.sink = sink;
      try {
        await go(sink);
      } catch (e) {
        problems.push(
          `${label(f)}: ${what}: ${e instanceof MissingVariable ? e.message : (e as Error).message}`,
        );
      }
      for (const request of sink) {
        try {
          for (const r of iamRequests(request, t))
            out.push({ principal: { role: f.roleId! }, who: label(f), ...r, why: what });
        } catch (e) {
          problems.push(`${label(f)}: ${what}: ${(e as Error).message}`);
        }
      }
    };
    if (coldStart) await run('cold start (keys secret)', () => replayColdStart());
    for (const call of calls) await run(callName(call), (sink) => replay(call, sink, recordingClients(sink)));
  });
  return out;
}

/** SES receiving's own calls, as the local MX made them: each stored message under the rule's policy. */
function receivingRequirements(calls: PortCall[], derived: Requirement[]): Requirement[] {
  const stores = derived.filter((r) => r.action === 's3:PutObject' && 'service' in r.principal);
  return calls
    .filter((c) => c.port === 'blobs' && c.method === 'put')
    .flatMap((c) =>
      stores.map((s) => ({
        ...s,
        resource: `${s.resource.slice(0, s.resource.indexOf('/'))}/${String(c.args[0])}`,
        why: 'storing a received message (as the local MX stored it)',
      })),
    );
}

export async function checkDeploy(
  template: CfnTemplate,
  recording: Recording,
  opts: { root: string; stackName?: string },
): Promise<CheckReport> {
  const t = new ResolvedTemplate(template, opts.stackName);
  const functions = templateFunctions(t, opts.root);
  const problems: string[] = [];
  const byFunction = new Map<string, PortCall[]>();
  const receiving: PortCall[] = [];
  for (const call of recording.calls) {
    if (call.lambda.service === 'aws:ses-receiving') {
      receiving.push(call);
      continue;
    }
    const f = functionOf(t, opts.root, functions, call.lambda);
    if ('problem' in f) {
      problems.push(`${callName(call)}: ${f.problem}`);
      continue;
    }
    byFunction.set(f.id, [...(byFunction.get(f.id) ?? []), call]);
  }
  const derived = onBehalfRequirements(t, opts.root, functions);
  const requirements: Requirement[] = [...derived, ...receivingRequirements(receiving, derived)];
  const fromDerived = requirements.length;
  const to = { sink: [] as AwsRequest[] };
  const server = await liteRecorder((r) => to.sink.push(r));
  const lite = {
    url: server.url,
    get sink() {
      return to.sink;
    },
    set sink(s: AwsRequest[]) {
      to.sink = s;
    },
  };
  try {
    for (const f of functions) {
      if (!f.entry) continue;
      const coldStart = readFileSync(join(opts.root, f.entry), 'utf8').includes('loadLambdaDeps(');
      requirements.push(
        ...(await functionRequirements(t, f, byFunction.get(f.id) ?? [], coldStart, lite, problems)),
      );
    }
  } finally {
    await server.close();
  }
  const byHand = BY_HAND.flatMap((h) =>
    functions
      .filter((f) => f.entry === h.entry && f.roleId)
      .map((f) => ({
        principal: { role: f.roleId! },
        who: label(f),
        action: h.action,
        resource: h.resource,
        why: 'listed by hand',
        reason: h.reason,
      })),
  );
  requirements.push(...byHand);
  const refused: Refusal[] = [];
  const seen = new Set<string>();
  for (const r of requirements) {
    const key = JSON.stringify([r.principal, r.action, r.resource, r.context]);
    if (seen.has(key)) continue;
    seen.add(key);
    const verdict = await evaluate(t, r);
    if (verdict !== 'Allowed')
      refused.push({ who: r.who, action: r.action, resource: r.resource, verdict, why: r.why });
  }
  return {
    refused,
    problems: [...new Set(problems)],
    unused: unusedGrants(t, functions, requirements),
    byHand,
    requirements: seen.size,
    recordedNeeds: requirements
      .slice(fromDerived)
      .filter((r) => 'role' in r.principal && r.why !== 'listed by hand')
      .map((r) => ({ role: (r.principal as { role: string }).role, who: r.who, action: r.action })),
    recorded: recording.calls.length,
    missingFiles: recording.missing,
  };
}

/** Each pmail role's granted actions that no requirement of that role uses. */
function unusedGrants(
  t: ResolvedTemplate,
  functions: TemplateFunction[],
  requirements: Requirement[],
): Unused[] {
  const roles = new Map<string, string>();
  for (const f of functions) if (f.entry && f.roleId) roles.set(f.roleId, label(f));
  for (const [id, m] of t.ofType('AWS::StepFunctions::StateMachine')) {
    const role = ResolvedTemplate.target(m.Properties?.RoleArn);
    if (role) roles.set(role, `${id} (state machine ${t.ref(id)})`);
  }
  const out: Unused[] = [];
  for (const [role, who] of roles) {
    const used = new Set(
      requirements
        .filter((r) => 'role' in r.principal && r.principal.role === role)
        .map((r) => r.action.toLowerCase()),
    );
    const granted = new Map<string, Set<string>>();
    for (const { policy } of rolePolicies(t, role))
      for (const s of policy.Statement)
        if (s.Effect === 'Allow')
          for (const action of [s.Action ?? []].flat())
            for (const resource of [s.Resource ?? []].flat())
              granted.set(action, (granted.get(action) ?? new Set()).add(resource));
    for (const [action, resources] of granted) {
      const pattern = new RegExp(
        `^${action
          .toLowerCase()
          .replace(/[.+?^${}()|[\]\\]/g, '\\$&')
          .replace(/\*/g, '.*')}$`,
      );
      if (![...used].some((u) => pattern.test(u))) out.push({ who, action, resources: [...resources] });
    }
  }
  return out;
}

/** The report as `npm run check:deploy` prints it. */
export function formatReport(r: CheckReport): string {
  const lines: string[] = [];
  lines.push(
    `${r.requirements} requests checked (${r.recorded} recorded port calls, the rest what AWS does on the stack's behalf)`,
  );
  if (r.missingFiles.length)
    lines.push(
      `${r.missingFiles.length} test files have no recording yet (npm test records them): ${r.missingFiles.slice(0, 5).join(', ')}${r.missingFiles.length > 5 ? ', …' : ''}`,
    );
  lines.push('', `Refused (${r.refused.length}):`);
  for (const x of r.refused) lines.push(`  ${x.who}: ${x.action} on ${x.resource} — ${x.verdict} (${x.why})`);
  lines.push('', `Could not be checked (${r.problems.length}):`);
  for (const p of r.problems) lines.push(`  ${p}`);
  lines.push('', `Granted but used by no recorded or derived request (${r.unused.length}):`);
  const byWho = new Map<string, string[]>();
  for (const u of r.unused) byWho.set(u.who, [...(byWho.get(u.who) ?? []), u.action]);
  for (const [who, actions] of byWho) lines.push(`  ${who}: ${actions.join(', ')}`);
  lines.push('', `Listed by hand (${r.byHand.length}):`);
  for (const h of r.byHand) lines.push(`  ${h.who}: ${h.action} on ${h.resource} — ${h.reason}`);
  return lines.join('\n');
}
