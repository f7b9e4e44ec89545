#!/usr/bin/env node
// Builds the CLI into dist/cli/pmail.mjs (esbuild: one ESM file, the node_modules packages left as
// imports), so `pmail` starts without transpiling TypeScript. Runs at `npm ci` / `npm install`
// (the `prepare` script) and by `npm run build:cli`. `start` and `admin bootstrap` stay outside
// the bundle: the built CLI loads bin/cli/local.ts or admin.ts through tsx when one of them runs.
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outfile = join(root, 'dist/cli/pmail.mjs');
mkdirSync(dirname(outfile), { recursive: true });

/**
 * `import('./local.ts')`, `import('./admin.ts')` and `import('./doctor-stack.ts')` of bin/cli/program.ts:
 * kept as imports of the source (the doctor's AWS clients load only when `doctor --stack` runs).
 */
const localOutside = {
  name: 'local-outside',
  setup(b) {
    b.onResolve({ filter: /^\.\/(local|admin|doctor-stack)\.ts$/ }, (a) => ({
      path: `../../bin/cli/${a.path.slice(2)}`,
      external: true,
    }));
  },
};

await build({
  entryPoints: [join(root, 'bin/pmail-cli.ts')],
  outfile,
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node22',
  external: ['@aws-sdk/*', 'tsx', 'tsx/*'],
  plugins: [localOutside],
  logLevel: 'warning',
  legalComments: 'none',
});
