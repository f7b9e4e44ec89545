import { rmSync } from 'node:fs';
import { type App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPmailApp } from '../../lib/app.ts';

let app: App;
const outdirs: string[] = [];

beforeAll(() => {
  // No bundling: cdk-nag reads the construct tree, not the code (the stack test bundles).
  app = createPmailApp({ context: { 'aws:cdk:bundling-stacks': [] } }).app;
  outdirs.push(app.outdir);
}, 300_000);

afterAll(() => {
  for (const dir of outdirs) rmSync(dir, { recursive: true, force: true });
});

/** Every acknowledgement in the tree: construct path, rule id, reason. */
function acknowledgements(root: IConstruct): { path: string; id: string; reason: string }[] {
  return root.node.findAll().flatMap((c) =>
    c.node.metadata
      .filter((m) => m.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
      .flatMap((m) => Object.entries(m.data as Record<string, string>))
      .map(([id, reason]) => ({ path: c.node.path, id, reason })),
  );
}

describe('cdk-nag AWS Solutions checks', () => {
  it('find nothing that is not acknowledged', () => {
    const report = new AwsSolutionsChecks().validateScope(app);
    const findings = report.violations.map((v) => ({
      rule: v.ruleName,
      at: v.violatingResources.map((r) => r.constructPath),
    }));
    expect(findings).toEqual([]);
  });

  it('have a written reason for every acknowledged finding', () => {
    const acks = acknowledgements(app);
    expect(acks.length).toBeGreaterThan(0);
    for (const ack of acks) expect(ack.reason.length, `${ack.path} ${ack.id}`).toBeGreaterThanOrEqual(40);
  });

  it('would flag every acknowledged finding, so no acknowledgement is stale', () => {
    // The same app built with acknowledgements switched off: each acknowledged id must be a finding.
    const acknowledge = Validations.prototype.acknowledge;
    Validations.prototype.acknowledge = () => {};
    let bare: App;
    try {
      bare = createPmailApp({ context: { 'aws:cdk:bundling-stacks': [] } }).app;
      outdirs.push(bare.outdir);
    } finally {
      Validations.prototype.acknowledge = acknowledge;
    }
    const flagged = new AwsSolutionsChecks().validateScope(bare).violations.map((v) => v.ruleName);
    const acknowledged = acknowledgements(app).map((a) => a.id.replace(/^annotation::/i, ''));
    expect(flagged.sort()).toEqual([...new Set(acknowledged)].sort());
  });
});
