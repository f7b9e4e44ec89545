#!/usr/bin/env node
// Runs before `npm start` and `npm test`: installs exactly the lockfile (npm ci) when node_modules
// is missing or older than package-lock.json, so a fresh clone needs no separate install step.
// Plain Node, no dependencies: it must work before anything is installed.
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';

const major = Number(process.versions.node.split('.')[0]);
if (major < 22) {
  process.stderr.write(
    `pmail: supports Node 22 or newer and this is Node ${process.versions.node}; ` +
      'to run on Node 22 without installing it: npx -y -p node@22 -- npm start (or npm test)\n',
  );
}

const marker = 'node_modules/.package-lock.json';
const missing = !existsSync(marker);
const stale = missing || statSync('package-lock.json').mtimeMs > statSync(marker).mtimeMs + 1000;
if (stale) {
  process.stderr.write(
    missing
      ? 'pmail: installing dependencies (first run only)… npm ci, about two minutes\n'
      : 'pmail: package-lock.json changed, installing dependencies… npm ci\n',
  );
  // npm's progress: its spinner on a terminal; elsewhere (CI, a log) each download as it happens.
  const progress = process.stderr.isTTY ? ['--progress=true'] : ['--loglevel=http'];
  const run = spawnSync('npm', ['ci', '--no-audit', '--no-fund', ...progress], {
    stdio: 'inherit',
    shell: process.platform === 'win32',
  });
  if (run.status !== 0) process.exit(run.status ?? 1);
}
