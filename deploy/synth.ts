import { rmSync } from 'node:fs';
import { createPmailApp } from '../lib/app.ts';
import type { CfnTemplate } from './template.ts';

/** The `Pmail` stack's template, synthesized without bundling (the check reads no code assets). */
export async function synthTemplate(context: Record<string, unknown> = {}): Promise<CfnTemplate> {
  const { app, stack } = createPmailApp({ context: { 'aws:cdk:bundling-stacks': [], ...context } });
  try {
    return app.synth().getStackByName(stack.stackName).template as CfnTemplate;
  } finally {
    rmSync(app.outdir, { recursive: true, force: true });
  }
}
