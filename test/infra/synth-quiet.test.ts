import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * `cdk synth --quiet` (`npm run synth`) prints nothing on success: not CDK's "Bundling asset …"
 * line per function, nor esbuild's summary of each bundle. Run with the cdk CLI on an app of one
 * PmailFunction, bundled as every pmail function is (lib/defaults.ts).
 */
const ROOT = join(import.meta.dirname, '../..');
const out = mkdtempSync(join(tmpdir(), 'pmail-quiet-synth-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe('cdk synth --quiet', () => {
  it('prints nothing while it bundles a function', async () => {
    const cdk = join(ROOT, 'node_modules/aws-cdk/bin/cdk');
    const app = `"${process.execPath}" --import tsx test/fixtures/quiet-app/app.ts`;
    const run = await promisify(execFile)(
      process.execPath,
      [cdk, 'synth', '--quiet', '--no-notices', '--app', app, '--output', out],
      { cwd: ROOT, env: { ...process.env, CDK_DISABLE_CLI_TELEMETRY: 'true' } },
    );
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe('');
  }, 120_000);
});
