import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { type CheckReport, checkDeploy, formatReport } from '../../deploy/check.ts';
import { loadRecording, type Recording } from '../../deploy/recording.ts';
import { synthTemplate } from '../../deploy/synth.ts';
import type { CfnTemplate } from '../../deploy/template.ts';

/**
 * `npm run check:deploy` on the stack as synthesized, over the AWS calls every other test file of
 * this run recorded (this file runs after them all: vitest.config.ts › the `deploy` project). Then
 * a copy of the template with one needed action taken out of one role, for a sample of roles: the
 * check fails naming that Lambda and that action.
 */

const root = join(import.meta.dirname, '../..');
let template: CfnTemplate;
let recording: Recording;
let report: CheckReport;

beforeAll(async () => {
  template = await synthTemplate();
  recording = loadRecording(root);
  report = await checkDeploy(template, recording, { root });
}, 300_000);

/** A copy of the template whose role `role` no longer has `action` in any of its statements. */
function without(t: CfnTemplate, removals: { role: string; action: string }[]): CfnTemplate {
  const copy = structuredClone(t);
  for (const r of Object.values(copy.Resources)) {
    if (r.Type !== 'AWS::IAM::Policy') continue;
    const p = r.Properties as {
      Roles: { Ref: string }[];
      PolicyDocument: { Statement: { Action: string | string[] }[] };
    };
    for (const { role, action } of removals) {
      if (!p.Roles.some((x) => x.Ref === role)) continue;
      p.PolicyDocument.Statement = p.PolicyDocument.Statement.map((s) => ({
        ...s,
        Action: [s.Action].flat().filter((a) => a !== action),
      })).filter((s) => s.Action.length > 0);
    }
  }
  return copy;
}

describe('npm run check:deploy', () => {
  it('passes on the stack as synthesized: no recorded or derived request is refused', () => {
    expect(recording.files.length, 'test files with a recording').toBeGreaterThan(0);
    expect(report.recorded).toBeGreaterThan(0);
    expect(report.problems, formatReport(report)).toEqual([]);
    expect(report.refused, formatReport(report)).toEqual([]);
  });

  it('fails naming the Lambda and the action when a role loses an action a recorded call needs', async () => {
    // One sample per role: the first action its recorded calls need, over every role they use.
    const byRole = new Map<string, { role: string; who: string; action: string }>();
    for (const n of report.recordedNeeds) if (!byRole.has(n.role)) byRole.set(n.role, n);
    const sample = [...byRole.values()];
    expect(sample.length).toBeGreaterThanOrEqual(5);
    const broken = await checkDeploy(without(template, sample), recording, { root });
    for (const s of sample)
      expect(
        broken.refused.filter((r) => r.who === s.who && r.action === s.action),
        `${s.who} without ${s.action}`,
      ).not.toEqual([]);
    expect(formatReport(broken)).toContain('Refused (');
  }, 300_000);
});
