import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { label, type TemplateFunction, taskFunctions, templateFunctions } from '../../deploy/lambdas.ts';
import { synthTemplate } from '../../deploy/synth.ts';
import { type CfnTemplate, ResolvedTemplate } from '../../deploy/template.ts';

/**
 * The stack's wiring, from the synthesized template: every function's environment resolves to what
 * the template defines, every event source reaches a function whose handler file exports the handler
 * it names (the permission to invoke it is asked of the IAM simulator by test/deploy/permissions.test.ts),
 * and cfn-lint finds nothing (a warning kept on purpose is suppressed on its resource, with its reason).
 */

const root = join(import.meta.dirname, '../..');
let template: CfnTemplate;
let t: ResolvedTemplate;
let functions: TemplateFunction[];
const dir = mkdtempSync(join(tmpdir(), 'pmail-wiring-'));

beforeAll(async () => {
  template = await synthTemplate();
  t = new ResolvedTemplate(template);
  functions = templateFunctions(t, root);
}, 300_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Whether the handler file exports `name` (a const, a function, or a re-export). */
function exportsHandler(entry: string, name: string): boolean {
  const text = readFileSync(join(root, entry), 'utf8');
  return new RegExp(`export (const|async function|function) ${name}\\b|export \\{[^}]*\\b${name}\\b`).test(
    text,
  );
}

const target = (v: unknown) => ResolvedTemplate.target(v) ?? '';
const fn = (id: string) => functions.find((f) => f.id === id);
/** The function an API integration or authorizer invokes: its ARN, or the one inside an invocation URI's `Fn::Join`. */
const invoked = (v: unknown): string => {
  const parts = (v as { 'Fn::Join'?: [string, unknown[]] } | undefined)?.['Fn::Join']?.[1];
  return target(v) || (parts ?? []).map(target).find((id) => id && fn(id)) || '';
};

describe('the template’s wiring', () => {
  it('gives every pmail function a handler file that exports its handler', () => {
    const pmail = functions.filter((f) => f.entry);
    expect(pmail.length).toBeGreaterThan(20);
    for (const f of pmail) {
      expect(existsSync(join(root, f.entry!)), label(f)).toBe(true);
      expect(exportsHandler(f.entry!, f.handler!), `${label(f)}: ${f.entry} exports ${f.handler}`).toBe(true);
    }
    // Only the CDK's own helper functions run code that is not pmail's.
    expect(functions.filter((f) => !f.entry).map((f) => f.id)).toEqual([]);
  });

  it('resolves every function’s environment to what the template defines', () => {
    for (const f of functions)
      for (const [name, value] of Object.entries(f.environment))
        expect(() => t.str(value), `${label(f)}: ${name}`).not.toThrow();
  });

  it('sets every variable a handler file requires', () => {
    for (const f of functions.filter((x) => x.entry)) {
      const text = readFileSync(join(root, f.entry!), 'utf8');
      for (const m of text.matchAll(/required\('(\w+)'\)/g))
        expect(Object.keys(f.environment), `${label(f)} requires ${m[1]}`).toContain(m[1]);
    }
  });

  it('points every event source at a pmail function', () => {
    const sources: [string, string][] = [];
    for (const [id, m] of t.ofType('AWS::Lambda::EventSourceMapping')) {
      sources.push([id, target(m.Properties?.FunctionName)]);
      const from = target(m.Properties?.EventSourceArn);
      expect(['AWS::SQS::Queue', 'AWS::DynamoDB::Table'], `${id} reads ${from}`).toContain(
        t.resources[from]?.Type,
      );
    }
    for (const [id, rule] of t.ofType('AWS::Events::Rule'))
      for (const x of (rule.Properties?.Targets as { Arn: unknown }[]) ?? [])
        sources.push([id, target(x.Arn)]);
    for (const [id, i] of t.ofType('AWS::ApiGatewayV2::Integration'))
      sources.push([id, invoked(i.Properties?.IntegrationUri)]);
    for (const [id, a] of t.ofType('AWS::ApiGatewayV2::Authorizer'))
      sources.push([id, invoked(a.Properties?.AuthorizerUri)]);
    let tasks = 0;
    for (const [id, m] of t.ofType('AWS::StepFunctions::StateMachine'))
      for (const [state, f] of taskFunctions(t, root, m)) {
        sources.push([`${id} ${state}`, f]);
        tasks++;
      }
    // Claim, the five transports and Record.
    expect(tasks).toBeGreaterThanOrEqual(7);
    for (const [id, c] of t.ofType('Custom::PmailActiveReceiptRuleSet'))
      sources.push([id, target(c.Properties?.ServiceToken)]);
    expect(sources.length).toBeGreaterThan(20);
    for (const [source, id] of sources) expect(fn(id)?.entry, `${source} → ${id}`).toBeTruthy();
    // Every route reaches an integration of its API.
    for (const [id, r] of t.ofType('AWS::ApiGatewayV2::Route')) {
      const integration = /^integrations\/(.+)$/.exec(String(t.resolve(r.Properties?.Target)))?.[1];
      expect(
        t.ofType('AWS::ApiGatewayV2::Integration').some(([i]) => t.ref(i) === integration),
        `${id} → ${integration}`,
      ).toBe(true);
    }
  });

  it('delivers every subscription and receipt rule to a resource of the stack', () => {
    for (const [id, s] of t.ofType('AWS::SNS::Subscription')) {
      expect(t.resources[target(s.Properties?.TopicArn)]?.Type, id).toBe('AWS::SNS::Topic');
      expect(t.resources[target(s.Properties?.Endpoint)]?.Type, id).toMatch(
        /^AWS::(SQS::Queue|Lambda::Function)$/,
      );
    }
    for (const [id, r] of t.ofType('AWS::SES::ReceiptRule'))
      for (const a of (r.Properties as { Rule: { Actions: Record<string, Record<string, unknown>>[] } }).Rule
        .Actions) {
        if (a.S3Action) expect(t.resources[target(a.S3Action.BucketName)]?.Type, id).toBe('AWS::S3::Bucket');
        if (a.S3Action?.TopicArn)
          expect(t.resources[target(a.S3Action.TopicArn)]?.Type, id).toBe('AWS::SNS::Topic');
      }
  });
});

describe('cfn-lint', () => {
  it('finds no error and no warning (each kept warning is suppressed on its resource, with a reason)', () => {
    const file = join(dir, 'Pmail.template.json');
    writeFileSync(file, JSON.stringify(template));
    const run = spawnSync('cfn-lint', ['--format', 'parseable', file], { encoding: 'utf8' });
    // Absent is a failure: .ci/run installs it (docs/deploying.md › Checks before a deploy).
    expect(run.error, 'cfn-lint is not installed: pip install cfn-lint (see .ci/run)').toBeUndefined();
    expect(`${run.stdout}${run.stderr}`.trim()).toBe('');
    expect(run.status).toBe(0);
    for (const [id, r] of Object.entries(template.Resources)) {
      const ignored =
        (r.Metadata?.['cfn-lint'] as { config?: { ignore_checks?: string[] } })?.config?.ignore_checks ?? [];
      const reasons = (r.Metadata?.['pmail:lint-reasons'] ?? {}) as Record<string, string>;
      for (const rule of ignored)
        expect(reasons[rule], `${id} suppresses ${rule} with a reason`).toBeTruthy();
    }
  }, 180_000);
});
