import { definitionOf, label, type TemplateFunction } from './lambdas.ts';
import { ResolvedTemplate } from './template.ts';

/**
 * What AWS does on the stack's behalf, each with the permission it needs, from the template alone:
 * a function's logs and traces (its role), an event source mapping reading its queue or the
 * table's stream (the function's role), a state machine invoking its tasks (the machine's role), and
 * the services that deliver to the stack's resources (EventBridge and API Gateway invoking a
 * function, SNS delivering to a queue, SES storing and publishing received mail and its sending
 * events, CloudWatch alarms publishing to their topic, each through the resource's own policy and,
 * for an encrypted topic, its key's policy). Sources: the Lambda, Step Functions, SNS, SES and
 * CloudWatch developer guides' pages on execution roles and resource-based policies.
 */

export interface Requirement {
  /** Whose permission: a role (logical id) or an AWS service principal. */
  principal: { role: string } | { service: string };
  /** Who, for the report (a function, a machine, a service for a resource). */
  who: string;
  action: string;
  resource: string;
  context?: Record<string, string>;
  why: string;
}

const sourceOf = (t: ResolvedTemplate, arn: string) => ({
  'aws:SourceArn': arn,
  'aws:SourceAccount': t.account,
});

function functionRequirements(t: ResolvedTemplate, f: TemplateFunction): Requirement[] {
  if (!f.roleId) return [];
  const who = label(f);
  const principal = { role: f.roleId };
  const out: Requirement[] = [];
  if (f.logGroupId) {
    const group = t.ref(f.logGroupId);
    const stream = `arn:aws:logs:${t.region}:${t.account}:log-group:${group}:log-stream:2026/01/01/[$LATEST]0`;
    for (const action of ['logs:CreateLogStream', 'logs:PutLogEvents'])
      out.push({ principal, who, action, resource: stream, why: 'Lambda writes the function’s log' });
  }
  const tracing = (t.prop(f.id, 'TracingConfig') as { Mode?: string } | undefined)?.Mode;
  if (tracing === 'Active')
    for (const action of ['xray:PutTraceSegments', 'xray:PutTelemetryRecords'])
      out.push({ principal, who, action, resource: '*', why: 'active tracing' });
  return out;
}

function eventSourceRequirements(t: ResolvedTemplate, functions: TemplateFunction[]): Requirement[] {
  const out: Requirement[] = [];
  for (const [id, m] of t.ofType('AWS::Lambda::EventSourceMapping')) {
    const p = m.Properties ?? {};
    const f = functions.find((x) => x.id === ResolvedTemplate.target(p.FunctionName));
    if (!f?.roleId) continue;
    const principal = { role: f.roleId };
    const who = label(f);
    const source = t.str(p.EventSourceArn);
    const why = `event source mapping ${id}`;
    const need = (action: string, resource: string) => out.push({ principal, who, action, resource, why });
    if (source.startsWith('arn:aws:sqs:')) {
      for (const a of ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes']) need(a, source);
      const queue = ResolvedTemplate.target(p.EventSourceArn);
      const key = queue ? t.prop(queue, 'KmsMasterKeyId') : undefined;
      if (key) need('kms:Decrypt', t.str({ 'Fn::GetAtt': [ResolvedTemplate.target(key), 'Arn'] }));
    } else if (source.includes(':dynamodb:') && source.includes('/stream/')) {
      for (const a of ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator'])
        need(a, source);
      need('dynamodb:ListStreams', '*');
    }
    const onFailure = (p.DestinationConfig as { OnFailure?: { Destination?: unknown } })?.OnFailure
      ?.Destination;
    if (onFailure) {
      const dest = t.str(onFailure);
      if (dest.startsWith('arn:aws:sqs:')) need('sqs:SendMessage', dest);
      if (dest.startsWith('arn:aws:sns:')) need('sns:Publish', dest);
    }
  }
  return out;
}

function machineRequirements(t: ResolvedTemplate, root: string): Requirement[] {
  const out: Requirement[] = [];
  for (const [id, machine] of t.ofType('AWS::StepFunctions::StateMachine')) {
    const p = machine.Properties ?? {};
    const role = ResolvedTemplate.target(p.RoleArn);
    if (!role) continue;
    const principal = { role };
    const who = `${id} (state machine ${t.ref(id)})`;
    const need = (action: string, resource: string, why: string) =>
      out.push({ principal, who, action, resource, why });
    const subs = (p.DefinitionSubstitutions ?? {}) as Record<string, unknown>;
    const fill = (s: string) => s.replace(/\$\{(\w+)\}/g, (m, k: string) => (k in subs ? t.str(subs[k]) : m));
    const definition = definitionOf(t, root, machine);
    const walk = (states: Record<string, Record<string, unknown>>) => {
      for (const [name, s] of Object.entries(states)) {
        if (s.Type === 'Task') taskRequirements(t, name, fill(String(s.Resource)), s, fill, need);
        for (const b of (s.Branches as { States: never }[]) ?? []) walk(b.States);
        const items = s.ItemProcessor as { States: never } | undefined;
        if (items) walk(items.States);
      }
    };
    if (definition) walk(definition.States as never);
    const logging = p.LoggingConfiguration as { Destinations?: unknown[] } | undefined;
    if (logging?.Destinations?.length)
      for (const a of [
        'logs:CreateLogDelivery',
        'logs:GetLogDelivery',
        'logs:UpdateLogDelivery',
        'logs:DeleteLogDelivery',
        'logs:ListLogDeliveries',
        'logs:PutResourcePolicy',
        'logs:DescribeResourcePolicies',
        'logs:DescribeLogGroups',
      ])
        need(a, '*', 'execution logs (CloudWatch Logs delivery)');
    if ((p.TracingConfiguration as { Enabled?: boolean })?.Enabled)
      for (const a of [
        'xray:PutTraceSegments',
        'xray:PutTelemetryRecords',
        'xray:GetSamplingRules',
        'xray:GetSamplingTargets',
      ])
        need(a, '*', 'tracing');
  }
  return out;
}

/** One Task state: a Lambda function, or a nested execution (startExecution, .sync:2 follows it). */
function taskRequirements(
  t: ResolvedTemplate,
  state: string,
  resource: string,
  s: Record<string, unknown>,
  fill: (s: string) => string,
  need: (action: string, resource: string, why: string) => void,
): void {
  const params = (s.Parameters ?? s.Arguments ?? {}) as Record<string, unknown>;
  const why = `task state ${state}`;
  if (resource.startsWith('arn:aws:lambda:') || resource === 'arn:aws:states:::lambda:invoke') {
    need(
      'lambda:InvokeFunction',
      resource.startsWith('arn:aws:lambda:') ? resource : fill(String(params.FunctionName)),
      why,
    );
    return;
  }
  const m = /^arn:aws:states:::states:startExecution(\.sync(:2)?)?$/.exec(resource);
  if (!m) return;
  const child = fill(String(params.StateMachineArn));
  need('states:StartExecution', child, why);
  if (!m[1]) return;
  const name = child.split(':').pop();
  const at = `${t.region}:${t.account}`;
  const express = t
    .ofType('AWS::StepFunctions::StateMachine')
    .some(([id, r]) => t.ref(id) === child && r.Properties?.StateMachineType === 'EXPRESS');
  need('states:DescribeExecution', `arn:aws:states:${at}:execution:${name}:x`, why);
  need('states:StopExecution', `arn:aws:states:${at}:execution:${name}:x`, why);
  if (express) need('states:DescribeExecution', `arn:aws:states:${at}:express:${name}:x:y`, why);
  for (const a of ['events:PutTargets', 'events:PutRule', 'events:DescribeRule'])
    need(a, `arn:aws:events:${at}:rule/StepFunctionsGetEventsForStepFunctionsExecutionRule`, why);
}

function invokeRequirements(t: ResolvedTemplate): Requirement[] {
  const out: Requirement[] = [];
  for (const [id, rule] of t.ofType('AWS::Events::Rule'))
    for (const target of (rule.Properties?.Targets as { Arn: unknown }[]) ?? []) {
      const arn = t.str(target.Arn);
      if (!arn.startsWith('arn:aws:lambda:')) continue;
      out.push({
        principal: { service: 'events.amazonaws.com' },
        who: `EventBridge rule ${id}`,
        action: 'lambda:InvokeFunction',
        resource: arn,
        context: sourceOf(t, t.getAtt(id, 'Arn')),
        why: 'scheduled invocation',
      });
    }
  for (const [id, route] of t.ofType('AWS::ApiGatewayV2::Route')) {
    const p = route.Properties ?? {};
    const integration = /^integrations\/(.+)$/.exec(t.str(p.Target ?? ''))?.[1];
    const integrationId = t
      .ofType('AWS::ApiGatewayV2::Integration')
      .find(([i]) => t.ref(i) === integration)?.[0];
    if (!integrationId) continue;
    const fn = lambdaOfUri(t.str(t.prop(integrationId, 'IntegrationUri')));
    if (!fn) continue;
    const api = t.str(p.ApiId);
    const stage =
      t
        .ofType('AWS::ApiGatewayV2::Stage')
        .map(([, s]) => s.Properties ?? {})
        .find((s) => t.str(s.ApiId) === api)?.StageName ?? '$default';
    const key = String(p.RouteKey);
    const [method, path] = key.includes(' ') ? key.split(' ') : [key, ''];
    out.push({
      principal: { service: 'apigateway.amazonaws.com' },
      who: `API route ${key}`,
      action: 'lambda:InvokeFunction',
      resource: fn,
      context: sourceOf(
        t,
        `arn:aws:execute-api:${t.region}:${t.account}:${api}/${String(stage)}/${method}${path}`,
      ),
      why: `route ${id}`,
    });
  }
  for (const [id, a] of t.ofType('AWS::ApiGatewayV2::Authorizer')) {
    const fn = lambdaOfUri(t.str(a.Properties?.AuthorizerUri ?? ''));
    if (!fn) continue;
    out.push({
      principal: { service: 'apigateway.amazonaws.com' },
      who: `API authorizer ${id}`,
      action: 'lambda:InvokeFunction',
      resource: fn,
      context: sourceOf(
        t,
        `arn:aws:execute-api:${t.region}:${t.account}:${t.str(a.Properties?.ApiId)}/authorizers/${t.ref(id)}`,
      ),
      why: `authorizer ${id}`,
    });
  }
  return out;
}

/**
 * The function an integration or authorizer invokes: a function ARN (an HTTP API's payload 2.0
 * integration), or the one inside an invocation URI (`arn:aws:apigateway:…:lambda:path/…/functions/
 * <function ARN>/invocations`, a WebSocket API's).
 */
function lambdaOfUri(uri: string): string | undefined {
  if (uri.startsWith('arn:aws:lambda:')) return uri;
  return /\/functions\/(arn:aws:lambda:[^/]+)\/invocations$/.exec(uri)?.[1];
}

/** A topic's KMS key, if it has one: the publisher needs it too (through the key's policy). */
function topicKeyRequirements(
  t: ResolvedTemplate,
  topic: string,
  service: string,
  who: string,
  context: Record<string, string>,
): Requirement[] {
  const topicId = t.ofType('AWS::SNS::Topic').find(([id]) => t.ref(id) === topic)?.[0];
  const key = topicId ? t.prop(topicId, 'KmsMasterKeyId') : undefined;
  if (!key) return [];
  const keyId = ResolvedTemplate.target(key);
  const arn = keyId ? t.getAtt(keyId, 'Arn') : t.str(key);
  return ['kms:GenerateDataKey', 'kms:Decrypt'].map((action) => ({
    principal: { service },
    who,
    action,
    resource: arn,
    context,
    why: `publishing to the encrypted topic ${topic}`,
  }));
}

/** What SNS asks of a subscription's endpoint, by protocol. */
const SNS_DELIVERIES: Record<string, { action: string; why: string }> = {
  sqs: { action: 'sqs:SendMessage', why: 'delivery to the queue' },
  lambda: { action: 'lambda:InvokeFunction', why: 'delivery to the function' },
};

function deliveryRequirements(t: ResolvedTemplate): Requirement[] {
  const out: Requirement[] = [];
  for (const [id, sub] of t.ofType('AWS::SNS::Subscription')) {
    const p = sub.Properties ?? {};
    const topic = t.str(p.TopicArn);
    const endpoint = t.str(p.Endpoint);
    const context = sourceOf(t, topic);
    const delivery = SNS_DELIVERIES[String(p.Protocol)];
    if (delivery)
      out.push({
        principal: { service: 'sns.amazonaws.com' },
        who: `SNS subscription ${id}`,
        action: delivery.action,
        resource: endpoint,
        context,
        why: delivery.why,
      });
  }
  for (const [id, rule] of t.ofType('AWS::SES::ReceiptRule')) {
    const p = rule.Properties ?? {};
    const r = p.Rule as { Name: string; Actions?: Record<string, Record<string, unknown>>[] };
    const ruleArn = `arn:aws:ses:${t.region}:${t.account}:receipt-rule-set/${t.str(p.RuleSetName)}:receipt-rule/${t.str(r.Name)}`;
    const context = sourceOf(t, ruleArn);
    const who = `SES receipt rule ${id}`;
    const service = 'ses.amazonaws.com';
    for (const action of r.Actions ?? []) {
      const s3 = action.S3Action;
      if (s3) {
        const prefix = s3.ObjectKeyPrefix ? t.str(s3.ObjectKeyPrefix) : '';
        out.push({
          principal: { service },
          who,
          action: 's3:PutObject',
          resource: `arn:aws:s3:::${t.str(s3.BucketName)}/${prefix}message-id`,
          context,
          why: 'storing a received message',
        });
      }
      for (const a of Object.values(action)) {
        if (!a.TopicArn) continue;
        const topic = t.str(a.TopicArn);
        out.push({
          principal: { service },
          who,
          action: 'sns:Publish',
          resource: topic,
          context,
          why: 'notifying a received message',
        });
        out.push(...topicKeyRequirements(t, topic, service, who, context));
      }
    }
  }
  for (const [id, dest] of t.ofType('AWS::SES::ConfigurationSetEventDestination')) {
    const p = dest.Properties ?? {};
    const topicArn = (p.EventDestination as { SnsDestination?: { TopicARN: unknown } }).SnsDestination
      ?.TopicARN;
    if (!topicArn) continue;
    const topic = t.str(topicArn);
    const set = `arn:aws:ses:${t.region}:${t.account}:configuration-set/${t.str(p.ConfigurationSetName)}`;
    const who = `SES event destination ${id}`;
    const context = sourceOf(t, set);
    out.push({
      principal: { service: 'ses.amazonaws.com' },
      who,
      action: 'sns:Publish',
      resource: topic,
      context,
      why: 'publishing sending events',
    });
    out.push(...topicKeyRequirements(t, topic, 'ses.amazonaws.com', who, context));
  }
  for (const [id, alarm] of t.ofType('AWS::CloudWatch::Alarm')) {
    const p = alarm.Properties ?? {};
    const actions = ['AlarmActions', 'OKActions', 'InsufficientDataActions'].flatMap(
      (k) => (p[k] as unknown[]) ?? [],
    );
    const alarmArn = `arn:aws:cloudwatch:${t.region}:${t.account}:alarm:${t.ref(id)}`;
    for (const a of actions) {
      const topic = t.str(a);
      if (!topic.startsWith('arn:aws:sns:')) continue;
      const who = `CloudWatch alarm ${id}`;
      const context = sourceOf(t, alarmArn);
      out.push({
        principal: { service: 'cloudwatch.amazonaws.com' },
        who,
        action: 'sns:Publish',
        resource: topic,
        context,
        why: 'the alarm’s notification',
      });
      out.push(...topicKeyRequirements(t, topic, 'cloudwatch.amazonaws.com', who, context));
    }
  }
  return out;
}

export function onBehalfRequirements(
  t: ResolvedTemplate,
  root: string,
  functions: TemplateFunction[],
): Requirement[] {
  return [
    ...functions.flatMap((f) => functionRequirements(t, f)),
    ...eventSourceRequirements(t, functions),
    ...machineRequirements(t, root),
    ...invokeRequirements(t),
    ...deliveryRequirements(t),
  ];
}
