import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LambdaContext } from '../functions/local/aws-calls.ts';
import { ENTRY_METADATA, HANDLER_METADATA } from '../lib/defaults.ts';
import { type CfnResource, ResolvedTemplate } from './template.ts';

/**
 * pmail's Lambda functions as the template holds them, and which one a recorded call ran in.
 *
 * Each function names its handler file and export in its metadata (lib/defaults.ts). A handler file
 * names its service where it builds its ports: `loadLambdaDeps('api-messages', …)`,
 * `loadTransportDeps('transport-ses', …)` or its logger's `jsonLogger({ service: 'orphans' })`; the
 * local runtime records each call under the same service (functions/local/aws-calls.ts). A task
 * state of a state machine (the send machine runs Claim, the transports and Record locally too) is
 * found through the machine's definition file and its substitutions.
 */

export interface TemplateFunction {
  id: string;
  description: string;
  entry?: string;
  handler?: string;
  service?: string;
  roleId?: string;
  environment: Record<string, unknown>;
  logGroupId?: string;
}

export const label = (f: TemplateFunction): string => (f.description ? `${f.id} (${f.description})` : f.id);

const SERVICE_NAMED =
  /(?:loadLambdaDeps|loadTransportDeps)\(\s*'([^']+)'|jsonLogger\(\s*\{\s*service:\s*'([^']+)'/;

/** The service a handler file names, if it names one. */
export function serviceOfEntry(root: string, entry: string): string | undefined {
  const path = join(root, entry);
  if (!existsSync(path)) return undefined;
  const m = SERVICE_NAMED.exec(readFileSync(path, 'utf8'));
  return m ? (m[1] ?? m[2]) : undefined;
}

export function templateFunctions(t: ResolvedTemplate, root: string): TemplateFunction[] {
  return t.ofType('AWS::Lambda::Function').map(([id, r]) => {
    const p = r.Properties ?? {};
    const entry = r.Metadata?.[ENTRY_METADATA] as string | undefined;
    return {
      id,
      description: String(p.Description ?? ''),
      entry,
      handler: r.Metadata?.[HANDLER_METADATA] as string | undefined,
      service: entry ? serviceOfEntry(root, entry) : undefined,
      roleId: ResolvedTemplate.target(p.Role),
      environment: ((p.Environment as { Variables?: Record<string, unknown> })?.Variables ?? {}) as Record<
        string,
        unknown
      >,
      logGroupId: ResolvedTemplate.target((p.LoggingConfig as { LogGroup?: unknown })?.LogGroup),
    };
  });
}

/** A state machine's task states and the function each invokes (through its substitutions). */
export function taskFunctions(t: ResolvedTemplate, root: string, machine: CfnResource): Map<string, string> {
  const subs = (machine.Properties?.DefinitionSubstitutions ?? {}) as Record<string, unknown>;
  const definition = definitionOf(t, root, machine);
  const out = new Map<string, string>();
  const walk = (
    states: Record<string, { Type: string; Resource?: string; Parameters?: { FunctionName?: string } }>,
  ) => {
    for (const [name, s] of Object.entries(states)) {
      const target = s.Parameters?.FunctionName ?? s.Resource;
      const placeholder = /^\$\{(\w+)\}$/.exec(target ?? '')?.[1];
      const fn = placeholder ? ResolvedTemplate.target(subs[placeholder]) : undefined;
      if (s.Type === 'Task' && fn && t.resources[fn]?.Type === 'AWS::Lambda::Function') out.set(name, fn);
      for (const branch of (s as { Branches?: { States: never }[] }).Branches ?? []) walk(branch.States);
      const items = (s as { ItemProcessor?: { States: never } }).ItemProcessor;
      if (items) walk(items.States);
    }
  };
  if (definition) walk(definition.States as never);
  return out;
}

/**
 * The machine's definition: inline in the template, or (DefinitionBody.fromFile) the file of
 * statemachines/ whose placeholders are exactly the machine's substitutions.
 */
export function definitionOf(
  t: ResolvedTemplate,
  root: string,
  machine: CfnResource,
): Record<string, unknown> | undefined {
  const p = machine.Properties ?? {};
  if (p.DefinitionString) return JSON.parse(String(t.resolve(p.DefinitionString)));
  if (p.Definition) return p.Definition as Record<string, unknown>;
  const keys = Object.keys((p.DefinitionSubstitutions ?? {}) as object).sort();
  const dir = join(root, 'statemachines');
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.asl.json'))) {
    const text = readFileSync(join(dir, file), 'utf8');
    const placeholders = [...new Set([...text.matchAll(/\$\{(\w+)\}/g)].map((m) => m[1]))].sort();
    if (placeholders.join() === keys.join()) return JSON.parse(text);
  }
  return undefined;
}

/** Which function a recorded call ran in, or why none can be named. */
export function functionOf(
  t: ResolvedTemplate,
  root: string,
  functions: TemplateFunction[],
  ctx: LambdaContext,
): TemplateFunction | { problem: string } {
  if (ctx.part) {
    for (const [, machine] of t.ofType('AWS::StepFunctions::StateMachine')) {
      const id = taskFunctions(t, root, machine).get(ctx.part);
      if (id) return functions.find((f) => f.id === id) ?? { problem: `no function ${id}` };
    }
  }
  const found = functions.filter((f) => f.service === ctx.service);
  if (found.length === 1) return found[0];
  if (found.length === 0)
    return {
      problem: `no function in the template runs service ${ctx.service}${ctx.part ? ` (${ctx.part})` : ''}`,
    };
  return { problem: `service ${ctx.service} is ${found.map((f) => f.id).join(' and ')}: say which part` };
}
