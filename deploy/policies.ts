import { runSimulation } from '@cloud-copilot/iam-simulate';
import { queueArn } from './iam.ts';
import type { Requirement } from './on-behalf.ts';
import { ResolvedTemplate } from './template.ts';

/**
 * The policies that decide a request, resolved to plain ARNs, and the IAM policy simulator's
 * answer. The simulator is `@cloud-copilot/iam-simulate`, a development dependency under the
 * AGPL-3.0: it runs in this check only and is never bundled with pmail (docs/deploying.md).
 */

export type Policy = { Version?: string; Statement: Statement[] };
export interface Statement {
  Effect: 'Allow' | 'Deny';
  Action?: string | string[];
  Resource?: string | string[];
  Principal?: unknown;
  Condition?: Record<string, unknown>;
}

/** The identity policies of a role: its own (`Policies`) and every AWS::IAM::Policy attached to it. */
export function rolePolicies(t: ResolvedTemplate, roleId: string): { name: string; policy: Policy }[] {
  const out: { name: string; policy: Policy }[] = [];
  const role = t.resources[roleId]?.Properties ?? {};
  for (const p of (role.Policies as { PolicyName: string; PolicyDocument: unknown }[]) ?? [])
    out.push({ name: p.PolicyName, policy: t.resolve(p.PolicyDocument) as Policy });
  for (const [id, r] of t.ofType('AWS::IAM::Policy')) {
    const p = r.Properties ?? {};
    if (((p.Roles as unknown[]) ?? []).some((x) => ResolvedTemplate.target(x) === roleId))
      out.push({ name: id, policy: t.resolve(p.PolicyDocument) as Policy });
  }
  return out;
}

/** The resource-based policy of the resource an ARN names, if the template gives it one. */
export function resourcePolicy(t: ResolvedTemplate, arn: string): Policy | undefined {
  const statements: Statement[] = [];
  const add = (doc: unknown) => statements.push(...((t.resolve(doc) as Policy).Statement ?? []));
  if (arn.startsWith('arn:aws:s3:::')) {
    const bucket = arn.slice('arn:aws:s3:::'.length).split('/')[0];
    for (const [, r] of t.ofType('AWS::S3::BucketPolicy'))
      if (t.str(r.Properties?.Bucket) === bucket) add(r.Properties?.PolicyDocument);
  } else if (arn.startsWith('arn:aws:sqs:')) {
    for (const [, r] of t.ofType('AWS::SQS::QueuePolicy'))
      if (((r.Properties?.Queues as unknown[]) ?? []).some((q) => queueArn(t.str(q)) === arn))
        add(r.Properties?.PolicyDocument);
  } else if (arn.startsWith('arn:aws:sns:')) {
    for (const [, r] of t.ofType('AWS::SNS::TopicPolicy'))
      if (((r.Properties?.Topics as unknown[]) ?? []).some((x) => t.str(x) === arn))
        add(r.Properties?.PolicyDocument);
  } else if (arn.startsWith('arn:aws:kms:')) {
    for (const [id, r] of t.ofType('AWS::KMS::Key'))
      if (t.getAtt(id, 'Arn') === arn) add(r.Properties?.KeyPolicy);
  } else if (arn.startsWith('arn:aws:lambda:')) {
    // A function's policy is the sum of its AWS::Lambda::Permission resources.
    for (const [, r] of t.ofType('AWS::Lambda::Permission')) {
      const p = r.Properties ?? {};
      const fn = t.str(p.FunctionName);
      if (fn !== arn && !arn.endsWith(`:function:${fn}`)) continue;
      const condition: Record<string, Record<string, string>> = {};
      if (p.SourceArn) condition.ArnLike = { 'aws:SourceArn': t.str(p.SourceArn) };
      if (p.SourceAccount) condition.StringEquals = { 'aws:SourceAccount': t.str(p.SourceAccount) };
      const principal = t.str(p.Principal);
      statements.push({
        Effect: 'Allow',
        Principal: principal.endsWith('.amazonaws.com') ? { Service: principal } : { AWS: principal },
        Action: t.str(p.Action),
        Resource: arn,
        ...(Object.keys(condition).length ? { Condition: condition } : {}),
      });
    }
  } else return undefined;
  return statements.length ? { Version: '2012-10-17', Statement: statements } : undefined;
}

export type Verdict = 'Allowed' | 'ImplicitlyDenied' | 'ExplicitlyDenied' | string;

const cache = new Map<string, Verdict>();

/** The simulator's answer for one requirement (requests over TLS, as every AWS SDK makes them). */
export async function evaluate(t: ResolvedTemplate, r: Requirement): Promise<Verdict> {
  const principal =
    'role' in r.principal ? `arn:aws:iam::${t.account}:role/${t.ref(r.principal.role)}` : r.principal.service;
  const identityPolicies = 'role' in r.principal ? rolePolicies(t, r.principal.role) : [];
  const policy = resourcePolicy(t, r.resource);
  const key = JSON.stringify([principal, r.action, r.resource, r.context, identityPolicies, policy]);
  const known = cache.get(key);
  if (known) return known;
  const result = await runSimulation(
    {
      request: {
        principal,
        action: r.action,
        resource: { resource: r.resource, accountId: t.account },
        contextVariables: { 'aws:SecureTransport': 'true', ...r.context },
      },
      identityPolicies,
      serviceControlPolicies: [],
      resourceControlPolicies: [],
      ...(policy ? { resourcePolicy: policy } : {}),
    },
    {},
  );
  const verdict =
    result.resultType === 'error'
      ? `error: ${JSON.stringify(result.errors)}`
      : (result as { overallResult: string }).overallResult;
  cache.set(key, verdict);
  return verdict;
}
