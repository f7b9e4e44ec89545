import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WEBHOOK_TOLERANCE_S } from '../../packages/client/src/webhooks.ts';
import { spawnRun } from '../support/cli.ts';
import { ROOT } from '../support/start.ts';

/**
 * The Python client's own tests (packages/python/tests, pytest), run here so `npm test` runs them:
 * against their own `npm start` on this Node (PMAIL_NODE) and a fault proxy that loses answers.
 * `python3` is the machine's (Debian's python3-pytest in CI, .ci/run); pytest's exit code 5 (no
 * test collected) fails here like any other, so tests that vanish cannot pass unnoticed.
 */
const PYTHON = process.env.PMAIL_PYTHON ?? 'python3';
const PACKAGE = join(ROOT, 'packages/python');

const pytest = () =>
  spawnRun(PYTHON, ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', '-rf', 'packages/python'], {
    ...process.env,
    PMAIL_NODE: process.execPath,
    PYTHONDONTWRITEBYTECODE: '1',
  } as Record<string, string>);

describe('the Python client (packages/python)', () => {
  it('passes its pytest suite against its own npm start', async () => {
    const { code, stdout, stderr } = await pytest();
    const output = stdout + stderr;
    if (code === 5) throw new Error(`pytest collected no tests in ${PACKAGE}:\n${output}`);
    expect(code, output.split('\n').slice(-40).join('\n')).toBe(0);
    expect(output).toMatch(/\d+ passed/);
  }, 300_000);

  it('verifies webhooks with the TypeScript client’s tolerance', () => {
    const source = readFileSync(join(PACKAGE, 'pmail/webhooks.py'), 'utf8');
    expect(Number(/^WEBHOOK_TOLERANCE_S = (\d+)$/m.exec(source)?.[1])).toBe(WEBHOOK_TOLERANCE_S);
  });
});
