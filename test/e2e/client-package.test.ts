import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, type StartedStack, startLocalStack } from '../support/start.ts';

/**
 * The packed @pmail/client as a user gets it (packages/client/README.md › Install): `npm pack -w
 * @pmail/client` (which builds dist/ at prepare), installed offline from npm's cache into an empty
 * folder, then a program using it against `npm start`, and the README's example type-checked there.
 */
const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'pmail-client-pack-'));
const project = join(dir, 'project');
let stack: StartedStack;
let tarball: string;

beforeAll(async () => {
  const packed = run('npm', ['pack', '-w', '@pmail/client', '--pack-destination', dir, '--silent'], {
    cwd: ROOT,
  });
  [stack] = await Promise.all([startLocalStack(), packed]);
  tarball = join(dir, readdirSync(dir).find((f) => f.endsWith('.tgz'))!);
  mkdirSync(project);
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({ name: 'uses-pmail', private: true, type: 'module' }),
  );
  const own = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).devDependencies;
  await run(
    'npm',
    [
      'install',
      tarball,
      `typescript@${own.typescript}`,
      `@types/node@${own['@types/node']}`,
      '--offline',
      '--no-audit',
      '--no-fund',
      '--silent',
    ],
    { cwd: project },
  );
}, 180_000);

afterAll(async () => {
  await stack?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const PROGRAM = `
import { Pmail, PmailError } from '@pmail/client';
const [url, key, identity] = process.argv.slice(2);
const pmail = new Pmail({ apiKey: key, baseUrl: url });
const body = { to: ['delivered@simulator.invalid'], subject: 'From the tarball', text: 'Installed from npm pack.' };
const first = await pmail.messages.send(identity, body, { idempotencyKey: 'tarball-1' });
const again = await pmail.messages.send(identity, body, { idempotencyKey: 'tarball-1' });
const batch = await pmail.messages.sendBatch(identity, [
  { ...body, subject: 'A batch from the tarball', idempotency_key: 'tarball-2' },
  { ...body, to: ['not an address'], idempotency_key: 'tarball-3' },
]);
const done = await pmail.messages.wait(identity, first.data.id, { until: 'delivered', intervalMs: 200, timeoutMs: 30000 });
let refused;
try {
  await pmail.messages.get(identity, 'msg_01aaaaaaaaaaaaaaaaaaaaaaaa');
} catch (e) {
  refused = e instanceof PmailError ? e.code : String(e);
}
console.log(JSON.stringify({
  replayed: again.replayed,
  same: again.data.id === first.data.id,
  batch: batch.map((r) => r.status),
  batchError: batch[1].error?.code,
  status: done.status,
  refused,
}));
`;

describe('@pmail/client from its tarball', () => {
  it('holds dist with its types, the README and the Apache-2.0 license, and no source', async () => {
    const files = (await run('tar', ['-tzf', tarball])).stdout.split('\n').filter(Boolean);
    expect(files).toEqual(
      expect.arrayContaining([
        'package/dist/index.js',
        'package/dist/index.d.ts',
        'package/README.md',
        'package/LICENSE',
      ]),
    );
    expect(files.filter((f) => f.includes('/src/'))).toEqual([]);
    const pkg = JSON.parse(readFileSync(join(project, 'node_modules/@pmail/client/package.json'), 'utf8'));
    expect(pkg.license).toBe('Apache-2.0');
    expect(readFileSync(join(project, 'node_modules/@pmail/client/LICENSE'), 'utf8')).toMatch(
      /Apache License\s+Version 2\.0/,
    );
  });

  it('runs a program against npm start: a send, its replay, a batch, a wait, a typed error', async () => {
    writeFileSync(join(project, 'program.mjs'), PROGRAM);
    const identity = stack.local.identities[0].id;
    const out = await run('node', ['program.mjs', stack.url, stack.local.apiKey, identity], { cwd: project });
    expect(JSON.parse(out.stdout)).toEqual({
      replayed: true,
      same: true,
      batch: [202, 400],
      batchError: 'address_invalid',
      status: 'delivered',
      refused: 'message_not_found',
    });
    // CommonJS too (require of an ES module, Node ≥ 20.19).
    const cjs = await run('node', ['-e', "console.log(typeof require('@pmail/client').Pmail)"], {
      cwd: project,
    });
    expect(cjs.stdout.trim()).toBe('function');
  }, 60_000);

  it('type-checks the README example in that project', async () => {
    const readme = readFileSync(join(ROOT, 'packages/client/README.md'), 'utf8');
    const example = readme.match(/```ts\n([\s\S]*?)```/)?.[1] ?? '';
    expect(example).toContain("from '@pmail/client'");
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
      (e: { stdout: string; stderr: string }) => ({ stdout: `${e.stdout}${e.stderr}` }),
    );
    expect(tsc.stdout).toBe('');
  }, 60_000);
});
