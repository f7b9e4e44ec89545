#!/usr/bin/env node
// `npx pmail …`: on Node 22 or newer, the CLI (bin/pmail-run.mjs); on an older Node, one line that
// says how to run it and exit 1. This file and bin/node22.mjs load on any Node with ES modules:
// nothing a newer Node alone has is touched before the version is checked.
import { NODE_MAJOR, nodeMajor, pmailCommand } from './node22.mjs';

if (nodeMajor() < NODE_MAJOR) {
  const script = decodeURIComponent(new URL(import.meta.url).pathname);
  process.stderr.write(
    'pmail needs Node ' +
      NODE_MAJOR +
      ' or newer and this is Node ' +
      process.versions.node +
      '; run it without installing Node ' +
      NODE_MAJOR +
      ': ' +
      pmailCommand(process.argv.slice(2), script, process.cwd()) +
      '\n',
  );
  process.exit(1);
} else {
  import('./pmail-run.mjs');
}
