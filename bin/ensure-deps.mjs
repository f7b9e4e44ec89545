#!/usr/bin/env node
// Runs before `npm start` and `npm test`: installs exactly the lockfile (npm ci) when node_modules
// is missing or older than package-lock.json, so a fresh clone needs no separate install step.
// Plain Node, no dependencies: it must work before anything is installed.
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';

const marker = 'node_modules/.package-lock.json';
const stale = !existsSync(marker) || statSync('package-lock.json').mtimeMs > statSync(marker).mtimeMs + 1000;
if (stale) {
  process.stderr.write('pmail: installing dependencies (npm ci)…\n');
  const run = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], {
    stdio: 'inherit',
    shell: process.platform === 'win32',
  });
  if (run.status !== 0) process.exit(run.status ?? 1);
}
