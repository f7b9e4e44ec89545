import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * docs/architecture.md › Layers: the core is pure. functions/core imports no I/O, no AWS, no Lambda types,
 * no clock, no randomness, so its rules are tested as tables.
 */
const CORE = join(import.meta.dirname, '../../functions/core');
const FORBIDDEN = [
  /^@aws-sdk\//,
  /^aws-lambda$/,
  /^(node:)?(fs|fs\/promises|net|tls|dns|http|https|child_process|dgram|worker_threads)$/,
  /^nodemailer/,
];

function imports(file: string): string[] {
  const src = readFileSync(file, 'utf8');
  return [
    ...src.matchAll(
      /(?:^|\n)\s*(?:import|export)[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g,
    ),
  ].map((m) => m[1] ?? m[2]);
}

describe('functions/core', () => {
  const files = readdirSync(CORE, { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.ts'));

  it('has files to check', () => {
    expect(files.length).toBeGreaterThan(5);
  });

  it.each(files)('%s imports no I/O or AWS SDK', (file) => {
    const bad = imports(join(CORE, file)).filter((spec) => FORBIDDEN.some((re) => re.test(spec)));
    expect(bad).toEqual([]);
  });

  it.each(files)('%s reads no clock and no random source', (file) => {
    const src = readFileSync(join(CORE, file), 'utf8');
    expect(src).not.toMatch(
      /Date\.now\(|new Date\(\)|Math\.random\(|randomBytes|randomUUID|performance\.now/,
    );
  });

  it('the checker catches a forbidden import', () => {
    expect(FORBIDDEN.some((re) => re.test('@aws-sdk/client-dynamodb'))).toBe(true);
    expect(FORBIDDEN.some((re) => re.test('node:fs'))).toBe(true);
  });
});
