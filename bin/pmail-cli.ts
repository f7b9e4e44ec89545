#!/usr/bin/env node
import { CliError, EXIT } from './cli/client.ts';
import { type Command, MAIL_COMMANDS, printCliError } from './cli/commands.ts';

/**
 * `pmail`: the command-line entry. A table of commands, each returning its exit code: `start` and
 * `admin bootstrap` here (the only two that touch the table directly), the mail and control-plane
 * commands over the HTTP API in bin/cli/commands.ts. Exit codes: bin/cli/client.ts › EXIT
 * (docs/guides/cli.md).
 */
const COMMANDS: Record<string, Command> = {
  ...MAIL_COMMANDS,
  start: { usage: 'pmail start', run: async () => (await import('./cli/local.ts')).start() },
  'admin bootstrap': {
    usage:
      'pmail admin bootstrap (--stack <name> | --table <name> [--endpoint <url>] | --local [<state dir>]) [--region <r>] [--name <n>] [--json]',
    run: async (argv) => (await import('./cli/local.ts')).adminBootstrap(argv),
  },
};

async function main(argv: string[]): Promise<number> {
  const name = ['admin'].includes(argv[0]) ? `${argv[0]} ${argv[1] ?? ''}`.trim() : (argv[0] ?? '');
  const command = COMMANDS[name];
  if (!command) {
    process.stderr.write(
      `usage:\n${Object.values(COMMANDS)
        .map((c) => `  ${c.usage}`)
        .join('\n')}\n`,
    );
    return EXIT.usage;
  }
  try {
    return await command.run(argv.slice(name.split(' ').length));
  } catch (err) {
    if (err instanceof CliError) {
      printCliError(err, argv.includes('--json'));
      return err.exit;
    }
    if (err instanceof TypeError && (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`error: ${err.message}\nusage: ${command.usage}\n`);
      return EXIT.usage;
    }
    const e = err as Error & { $metadata?: unknown };
    const remote =
      e.$metadata !== undefined || /ECONNREFUSED|ENOTFOUND|Could not load credentials/.test(String(e));
    process.stderr.write(`error: ${e.name}: ${e.message}\n`);
    return remote ? EXIT.unavailable : EXIT.internal;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== EXIT.ok || process.argv[2] !== 'start') process.exit(code);
  },
  (err) => {
    process.stderr.write(`pmail failed: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(EXIT.internal);
  },
);
