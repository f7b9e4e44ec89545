#!/usr/bin/env node
import { EXIT } from './cli/client.ts';
import { runPmail } from './cli/program.ts';

/**
 * `pmail`: the command-line entry (bin/cli/program.ts has the commands). `start` keeps running
 * until Ctrl-C; every other command exits with its code (docs/guides/cli.md › Exit codes).
 */
runPmail(process.argv.slice(2)).then(
  (code) => {
    if (code !== EXIT.ok || process.argv[2] !== 'start') process.exit(code);
  },
  (err) => {
    process.stderr.write(`pmail failed: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(EXIT.internal);
  },
);
