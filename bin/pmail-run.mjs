#!/usr/bin/env node
// The CLI behind bin/pmail.mjs (which checks the Node version first): the built CLI
// (dist/cli/pmail.mjs, made by `npm ci` or `npm run build:cli`), or the TypeScript source through
// tsx in a checkout without that build, or whose CLI source is newer.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { enableCompileCache } from 'node:module';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const built = join(root, 'dist/cli/pmail.mjs');
const sources = [
  join(root, 'bin/pmail-cli.ts'),
  ...['bin/cli', 'packages/client/src', 'functions/core'].flatMap(filesOf),
];

function filesOf(dir) {
  const full = join(root, dir);
  return existsSync(full) ? readdirSync(full).map((f) => join(full, f)) : [];
}

const builtAt = existsSync(built) ? statSync(built).mtimeMs : -1;
if (builtAt >= 0 && sources.every((f) => statSync(f).mtimeMs <= builtAt)) {
  // V8's code cache for the bundle (in the OS temp dir): later starts skip compiling it.
  enableCompileCache();
  await import(built);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('./pmail-cli.ts');
}
