import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * The packed @pmail/client as a user gets it: `npm pack -w @pmail/client` (which builds dist/ at
 * prepare), installed into an empty TypeScript project next to typescript itself, the README's
 * example type-checked there, and the package imported by plain Node.
 */
const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'pmail-client-pack-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('@pmail/client tarball', () => {
  it('installs and type-checks the README example in an empty TypeScript project', async () => {
    await run('npm', ['pack', '-w', '@pmail/client', '--pack-destination', dir, '--silent'], { cwd: ROOT });
    const tarball = readdirSync(dir).find((f) => f.endsWith('.tgz'));
    expect(tarball).toBeDefined();
    const project = join(dir, 'project');
    await run('mkdir', [project]);
    await run('npm', ['init', '-y'], { cwd: project });
    const pkg = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8'));
    writeFileSync(join(project, 'package.json'), JSON.stringify({ ...pkg, type: 'module' }));
    const own = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).devDependencies;
    await run(
      'npm',
      [
        'install',
        join(dir, tarball!),
        `typescript@${own.typescript}`,
        `@types/node@${own['@types/node']}`,
        '--prefer-offline',
        '--no-audit',
        '--no-fund',
        '--silent',
      ],
      { cwd: project },
    );
    const readme = readFileSync(join(ROOT, 'packages/client/README.md'), 'utf8');
    const example = readme.match(/```ts\n([\s\S]*?)```/)?.[1] ?? '';
    expect(example.split('\n').filter(Boolean)).toHaveLength(10);
    writeFileSync(join(project, 'example.ts'), example);
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noEmit: true,
          types: ['node'],
        },
        files: ['example.ts'],
      }),
    );
    const tsc = await run('node', ['node_modules/typescript/bin/tsc', '-p', '.'], { cwd: project }).catch(
      (e: { stdout: string; stderr: string }) => ({ stdout: `${e.stdout}${e.stderr}`, failed: true }),
    );
    expect(tsc.stdout).toBe('');
    const node = await run(
      'node',
      [
        '--input-type=module',
        '-e',
        "const m = await import('@pmail/client'); console.log(typeof m.Pmail, m.ERROR_CODES.length > 0);",
      ],
      { cwd: project },
    );
    expect(node.stdout.trim()).toBe('function true');
    const files = (await run('tar', ['-tzf', join(dir, tarball!)])).stdout.split('\n');
    expect(files).toContain('package/dist/index.d.ts');
    expect(files.some((f) => f.includes('/src/'))).toBe(false);
  }, 120_000);
});
