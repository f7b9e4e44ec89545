import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { MESSAGE_STATUSES } from '../../functions/core/model.ts';
import { awsHint } from './aws.ts';
import { sendBatchCommand } from './batch.ts';
import { CliError, cliErrorOf, EXIT } from './client.ts';
import {
  eventsCommand,
  listCommand,
  messageAction,
  printCliError,
  resolveCommand,
  sendCommand,
  statusCommand,
} from './commands.ts';
import type { Action } from './context.ts';
import * as control from './control.ts';
import { doctorCommand } from './doctor.ts';
import { heldAction, heldListCommand } from './held.ts';
import { inboxCommand, threadsCommand, watchCommand } from './inbox.ts';
import { err, type Io, io } from './io.ts';
import { labelCommand } from './labels.ts';
import { readCommand, threadTextCommand } from './read.ts';
import { searchCommand } from './search.ts';

/**
 * `pmail`'s commands on commander: every command and subcommand answers `--help` (exit 0); an
 * unknown command or option, a missing argument or a bad value is a usage error (exit 2) that says
 * what is wrong and prints that command's usage line. Exit codes: docs/guides/cli.md › Exit codes.
 */

/** Runs `pmail ARGV` and resolves to its exit code; `over` replaces the output or environment (tests). */
export async function runPmail(argv: string[], over: Partial<Io> = {}): Promise<number> {
  const saved = { ...io };
  Object.assign(io, over);
  try {
    let code: number = EXIT.ok;
    const program = buildProgram((c) => {
      code = c;
    });
    try {
      await program.parseAsync(argv, { from: 'user' });
    } catch (e) {
      if (e instanceof CommanderError) return e.exitCode === 0 ? EXIT.ok : EXIT.usage;
      throw e;
    }
    return code;
  } finally {
    Object.assign(io, saved);
  }
}

/** The full name of a command: `pmail tenants create`. */
export const pathOf = (c: Command): string => (c.parent ? `${pathOf(c.parent)} ${c.name()}` : c.name());

/** The line a usage error ends with: the command's usage and where its help is. */
export const usageLine = (c: Command) => `usage: ${pathOf(c)} ${c.usage()}\n(${pathOf(c)} --help says more)`;

/** Every command under `c` (itself included), depth first: what the help test walks. */
export const allCommands = (c: Command): Command[] => [c, ...c.commands.flatMap(allCommands)];

/** Commander's "(Did you mean send?)" as one line: `unknown command 'sned' (did you mean 'send'?)`. */
function oneLine(message: string): string {
  return message.replace(
    /\n\(Did you mean (?:one of )?(.+)\?\)/,
    (_, s: string) =>
      ` (did you mean ${s
        .split(', ')
        .map((x) => `'${x}'`)
        .join(' or ')}?)`,
  );
}

/** What a failed action prints and exits with: the API's error, a usage error with the usage line, or an internal one. */
function failed(e: unknown, command: Command, json: boolean): number {
  const cli = cliErrorOf(e, (e as { pmailApi?: string })?.pmailApi ?? 'the API');
  const known = cli ?? awsHint(e);
  if (known instanceof CliError) {
    printCliError(known, json);
    if (known.exit === EXIT.usage && !json) err(usageLine(command));
    return known.exit;
  }
  err(`error: ${known.name}: ${known.message}`);
  return EXIT.internal;
}

const positiveInt = (v: string) => {
  if (!/^[1-9]\d*$/.test(v)) throw new InvalidArgumentError('a positive whole number');
  return Number(v);
};
const seconds = (v: string) => {
  if (!/^\d+(\.\d+)?$/.test(v)) throw new InvalidArgumentError('a number of seconds');
  return Number(v);
};
/** A repeatable option: `--to a --to b` gives ['a', 'b']. */
const repeat = (v: string, prev: string[] | undefined) => [...(prev ?? []), v];

function buildProgram(setCode: (code: number) => void): Command {
  const program = new Command('pmail')
    .description('pmail: email with safe retries, from a terminal or a script')
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.out(s),
      writeErr: (s) => io.err(s),
      outputError: (s, write) => write(oneLine(s)),
    })
    .addHelpText('after', '\nExit codes: docs/guides/cli.md › Exit codes.');
  /** A command whose action is `action`: its exit code is set, its failure printed. */
  const act = (cmd: Command, action: Action) =>
    cmd.action(async (...a: unknown[]) => {
      const command = a[a.length - 1] as Command;
      const opts = command.optsWithGlobals();
      const args = a.slice(0, -2).flat() as string[];
      try {
        setCode(await action({ args, opts, command }));
      } catch (e) {
        setCode(failed(e, command, opts.json === true));
      }
    });
  mailCommands(program, act);
  controlCommands(program, act);
  localCommands(program, act);
  for (const c of allCommands(program)) c.showHelpAfterError(usageLine(c));
  return program;
}

type Act = (cmd: Command, action: Action) => Command;

/** `--api`, `--key`, `--profile` and `--json`: how every API command finds the API. */
function api(c: Command): Command {
  return c
    .option('--api <url>', 'API URL (else PMAIL_API, else .pmail/local.json)')
    .option('--key <key>', 'API key (else PMAIL_KEY, else .pmail/local.json)')
    .addOption(
      new Option('--profile <name>', 'which key of .pmail/local.json (else PMAIL_PROFILE)').choices([
        'local',
        'platform',
        'live',
      ]),
    )
    .option('--json', "print the API's JSON document");
}

/** `--identity`: the mailbox of a message command. */
const withIdentity = (c: Command) =>
  api(c).option(
    '--identity <id>',
    'identity: idn_…, or a name or address of .pmail/local.json (else PMAIL_IDENTITY)',
  );
/** The list filters (docs/design/search.md › Filters) with a page's size and cursor: `list` and `search`. */
const withFilters = (c: Command) =>
  c
    .addOption(new Option('--direction <d>', 'only inbound or outbound').choices(['inbound', 'outbound']))
    .option('--limit <n>', 'at most n messages', positiveInt)
    .option('--cursor <c>', 'the next page (from `more: --cursor …`)')
    .option('--label <l>', 'only messages with this label')
    .option('--from <a>', 'only messages from this address or domain')
    .option('--to <a>', 'only messages to (or cc) this address or domain')
    .option('--subject <s>', 'only messages whose subject has this (any case, any accents)')
    .option('--since <t>', 'only messages at or after this RFC 3339 time')
    .option('--until <t>', 'only messages at or before this RFC 3339 time')
    .option('--has-attachment', 'only messages with an attachment');
/** `--tenant`: the tenant of a tenant-scoped command (default: the key's own). */
const withTenant = (c: Command) => api(c).option('--tenant <id>', "tenant ten_… (default: the key's tenant)");

function sendOptions(c: Command): Command {
  c.option('--to <addr>', 'recipient (repeat for more)', repeat)
    .option('--cc <addr>', 'Cc recipient (repeat)', repeat)
    .option('--bcc <addr>', 'Bcc recipient (repeat)', repeat)
    .option('--subject <s>', 'subject')
    .option('--text <t>', 'text body')
    .option('--html <h>', 'HTML body')
    .option('--template <name>', 'send by template (its subject and bodies)')
    .option('--variables <json>', "the template's variables, a JSON object")
    .option('--send-at <iso>', 'send later, at this ISO 8601 time')
    .option(
      '--unless-reply',
      'with --send-at, in a thread: canceled (reply_received) if an answer arrives in the thread first',
    )
    .option('--idempotency-key <k>', 'the key of this send (default: a new one, printed first)')
    .option('--wait', 'follow the message until a final status (exit 0 sent, 15 not sent, 13 timed out)')
    .option('--timeout <s>', 'how long --wait follows, in seconds (default 120)', seconds);
  return withIdentity(c);
}

function mailCommands(program: Command, act: Act): void {
  act(
    sendOptions(program.command('send').description('send an email, or a batch of them (--batch)'))
      .option('--thread-id <thr_id>', 'send into this thread, after its latest message')
      .option(
        '--batch <file.jsonl>',
        'send each line of a JSONL file (- for stdin), a send body with its idempotency_key',
      ),
    (ctx) => (ctx.opts.batch !== undefined ? sendBatchCommand(ctx) : sendCommand('send')(ctx)),
  );
  act(
    sendOptions(program.command('reply').description('reply to a message').argument('<message-id>')),
    sendCommand('reply'),
  );
  act(
    sendOptions(
      program
        .command('reply-all')
        .description('reply to every recipient of a message')
        .argument('<message-id>'),
    ),
    sendCommand('reply_all'),
  );
  act(
    sendOptions(program.command('forward').description('forward a message').argument('<message-id>')),
    sendCommand('forward'),
  );
  act(
    withIdentity(program.command('status').description('a message and its attempt').argument('<message-id>')),
    statusCommand,
  );
  act(
    withFilters(
      withIdentity(program.command('list').description("a page of the identity's messages, newest first")),
    ).addOption(
      new Option('--status <s>', 'only this status, e.g. pending_approval').choices(MESSAGE_STATUSES),
    ),
    listCommand,
  );
  act(
    withIdentity(
      program.command('cancel').description('cancel a scheduled or queued message').argument('<message-id>'),
    ),
    messageAction('cancel'),
  );
  act(
    withIdentity(
      program
        .command('retry')
        .description("an operator's retry of a failed message")
        .argument('<message-id>'),
    ),
    messageAction('retry'),
  );
  act(
    withIdentity(
      program
        .command('resolve')
        .description('say what happened to an uncertain message')
        .argument('<message-id>'),
    )
      .addOption(
        new Option('--outcome <o>', 'what the recipient got')
          .choices(['sent', 'not_sent'])
          .makeOptionMandatory(),
      )
      .option('--idempotency-key <k>', 'the key of this resolve (default: a new one)'),
    resolveCommand,
  );
  const page = (c: Command) =>
    c
      .option('--limit <n>', 'at most n', positiveInt)
      .option('--cursor <c>', 'the next page (from `more: --cursor …`)');
  act(
    page(withIdentity(program.command('inbox').description("the identity's inbound messages, newest first"))),
    inboxCommand,
  );
  act(
    page(withIdentity(program.command('threads').description("the identity's conversations, latest first"))),
    threadsCommand,
  );
  act(
    withIdentity(
      program
        .command('thread')
        .description("one conversation's text, oldest first: what was sent beside what came back")
        .argument('<thread-id>'),
    )
      .option('--full', "received messages' whole text (default: their new text, without quoted history)")
      .option('--max-chars <n>', "the text budget of the whole thread (default: the API's)", positiveInt),
    threadTextCommand,
  );
  act(
    withIdentity(
      program
        .command('label')
        .description("add and remove a message's or a conversation's labels (by the id: msg_… or thr_…)")
        .argument('<message-or-thread-id>'),
    )
      .option('--add <labels>', 'labels to add, comma-separated')
      .option('--remove <labels>', 'labels to remove, comma-separated'),
    labelCommand,
  );
  act(
    withFilters(
      withIdentity(
        program
          .command('search')
          .description('full-text search, newest first: every word and "quoted phrase" must match')
          .argument('<query...>', 'words and "quoted phrases" (in a shell: \'"next tuesday"\')'),
      ),
    ).option('--tenant [ten_id]', "search every identity of the tenant (default: the key's tenant)"),
    searchCommand,
  );
  act(
    withIdentity(
      program
        .command('read')
        .description("one message's headers and text (a received one's new text; --full all of it)")
        .argument('<message-id>'),
    ).option('--full', "a received message's whole text, quoted history and signature included"),
    readCommand,
  );
  act(
    withIdentity(
      program
        .command('watch')
        .description(
          'print each new inbound message as it comes (the event stream), until Ctrl-C (exit 130)',
        ),
    ).option('--after <id>', 'read on after this message (msg_…) or event (evt_…); default: from now on'),
    watchCommand,
  );
  for (const [name, description] of [
    ['approve', 'approve a send waiting for a person (pending_approval): it goes out'],
    ['reject', 'reject a send waiting for a person: nothing is sent'],
  ] as const)
    act(
      withIdentity(program.command(name).description(description).argument('<message-id>')),
      messageAction(name),
    );
  const held = program
    .command('held')
    .description('mail held back from the agent (needs a key holding messages:hold)');
  act(page(withIdentity(held.command('list').description('held messages, newest first'))), heldListCommand);
  for (const [name, description] of [
    ['release', 'release a held message: the agent reads it from now on'],
    ['delete', 'delete a held message and its raw copy'],
  ] as const)
    act(withIdentity(held.command(name).description(description).argument('<message-id>')), heldAction(name));
  act(
    api(program.command('events').description("the tenant's event feed"))
      .option('--follow', 'keep printing new events until Ctrl-C (exit 130)')
      .option('--after <evt_id>', 'only events after this one')
      .option('--limit <n>', 'at most n events per page', positiveInt)
      .option('--interval <s>', 'seconds between polls with --follow (default 1)', seconds),
    eventsCommand,
  );
  act(
    api(program.command('doctor').description('check Java, DynamoDB Local, the API, the local SES and MX'))
      .option('--aws', 'also check the SES account of your AWS credentials')
      .option('--stack <name>', 'check a deployed stack instead, read-only (docs/deploying.md)')
      .option('--region <r>', 'AWS Region for --aws and --stack (else AWS_REGION)'),
    async (ctx) => (ctx.opts.stack ? (await doctorStack()).doctorStackCommand(ctx) : doctorCommand(ctx)),
  );
}

/** A group (`pmail tenants`) with one subcommand per entry of `verbs`. */
function group(
  program: Command,
  act: Act,
  name: string,
  description: string,
  verbs: [Command, Action][],
): void {
  const g = program.command(name).description(description);
  for (const [cmd, action] of verbs) {
    // A command made apart from its parent takes the parent's output and exit settings here.
    g.addCommand(cmd.copyInheritedSettings(g));
    act(cmd, action);
  }
}

const verb = (name: string, description: string, arg?: string) => {
  const c = new Command(name).description(description);
  return arg ? c.argument(arg) : c;
};

function controlCommands(program: Command, act: Act): void {
  const { tenants, identities, keys, domains, webhooks, suppressions, templates } = control;
  const key = (c: Command) =>
    c.option('--idempotency-key <k>', 'the key of this create (default: a new one)');
  group(program, act, 'tenants', 'tenants of the deployment (a platform key)', [
    [
      key(api(verb('create', 'create a tenant')))
        .requiredOption('--slug <slug>', 'short unique name')
        .option('--name <name>', 'display name (default: the slug)')
        .addOption(
          new Option('--mode <mode>', 'test sends only to the simulator; live sends real mail')
            .choices(['test', 'live'])
            .makeOptionMandatory(),
        )
        .option('--timezone <tz>', 'IANA time zone of its daily caps')
        .option('--daily-cap <n>', 'sends per day across the tenant (policy.daily_send_cap)', positiveInt)
        .option('--identity-daily-cap <n>', 'sends per day per identity, at most --daily-cap', positiveInt),
      tenants.create,
    ],
    [api(verb('list', 'list tenants')), tenants.list],
    [api(verb('get', 'one tenant', '<tenant-id>')), tenants.get],
  ]);
  group(program, act, 'identities', 'identities (senders) of a tenant', [
    [
      key(withTenant(verb('create', 'create an identity, {username}@{domain}')))
        .requiredOption('--username <u>', 'the local part of its address')
        .option('--domain <d>', 'one of the tenant’s domains (default: the deployment’s)')
        .option('--display-name <n>', 'the name recipients see')
        .option('--owner-name <n>', 'the person accountable for it')
        .option('--owner-email <e>', 'their email address')
        .option('--require-approval', 'each send waits for a person (pmail approve|reject)'),
      identities.create,
    ],
    [withTenant(verb('list', "list the tenant's identities")), identities.list],
    [api(verb('get', 'one identity', '<identity-id>')), identities.get],
    [api(verb('pause', 'stop its sending (nothing is lost)', '<identity-id>')), identities.pause],
    [api(verb('resume', 'let a paused identity send again', '<identity-id>')), identities.resume],
  ]);
  group(program, act, 'keys', 'API keys', [
    [
      key(withTenant(verb('create', 'create a key; its secret is printed once')))
        .requiredOption('--name <name>', 'what the key is for')
        .addOption(
          new Option('--level <level>', 'what it acts on')
            .choices(['platform', 'tenant', 'identity'])
            .makeOptionMandatory(),
        )
        .option('--for-identity <id>', 'the identity of an identity key')
        .option('--permissions <list>', 'comma-separated (default: every permission of the level)')
        .option('--expires-at <iso>', 'when it stops working')
        .option('--sends-need-approval', 'draft-only: every send through it waits for a person'),
      keys.create,
    ],
    [api(verb('list', 'list keys')), keys.list],
    [api(verb('get', 'one key', '<key-id>')), keys.get],
    [api(verb('revoke', 'revoke a key (at once, for good)', '<key-id>')), keys.revoke],
  ]);
  group(program, act, 'domains', 'sending domains of a tenant', [
    [
      withTenant(verb('add', 'add a domain; its DNS records come back', '<name>'))
        .addOption(
          new Option('--transport <t>', 'how it sends').choices(['ses', 'smtp', 'cloudflare']).default('ses'),
        )
        .addOption(
          new Option('--reply-token <t>', 'thread token in Reply-To')
            .choices(['subaddress', 'none'])
            .default('subaddress'),
        )
        .option('--mail-from <domain>', 'custom MAIL FROM domain (SES)'),
      domains.add,
    ],
    [withTenant(verb('list', "list the tenant's domains")), domains.list],
    [withTenant(verb('get', 'one domain', '<domain-id>')), domains.get],
    [withTenant(verb('verify', 'check its DNS records now', '<domain-id>')), domains.verify],
    [withTenant(verb('dns', 'the DNS records to publish', '<domain-id>')), domains.dns],
    [withTenant(verb('delete', 'remove a domain', '<domain-id>')), domains.delete],
  ]);
  group(program, act, 'webhooks', 'webhook endpoints of a tenant', [
    [
      api(verb('add', 'add an endpoint; its signing secret is printed once', '<url>'))
        .option('--event <type>', 'only this event type (repeat; default: all)', repeat)
        .option('--description <d>', 'what it is for'),
      webhooks.add,
    ],
    [api(verb('list', 'list endpoints')), webhooks.list],
    [api(verb('get', 'one endpoint', '<webhook-id>')), webhooks.get],
    [api(verb('test', 'send a test delivery to an endpoint', '<webhook-id>')), webhooks.test],
    [api(verb('delete', 'delete an endpoint', '<webhook-id>')), webhooks.delete],
  ]);
  group(program, act, 'suppressions', 'addresses a tenant never sends to', [
    [
      withTenant(verb('add', 'suppress an address', '<address>'))
        .addOption(new Option('--reason <r>', 'why').choices(['manual', 'unsubscribe']).default('manual'))
        .option('--expires-at <iso>', 'when it ends (default: never)'),
      suppressions.add,
    ],
    [
      withTenant(verb('list', "list the tenant's suppressions"))
        .option('--limit <n>', 'at most n', positiveInt)
        .option('--cursor <c>', 'the next page'),
      suppressions.list,
    ],
    [withTenant(verb('remove', 'send to an address again', '<address>')), suppressions.remove],
  ]);
  group(program, act, 'templates', 'templates of a tenant (docs/guides/templates.md)', [
    [withTenant(verb('list', "list the tenant's templates")), templates.list],
    [withTenant(verb('get', 'one template, its current version', '<name>')), templates.get],
    [
      withTenant(
        verb('put', 'create a template or add a version, from a JSON file', '<name>'),
      ).requiredOption('--file <template.json>', 'the body of the template'),
      templates.put,
    ],
    [withTenant(verb('delete', 'delete a template', '<name>')), templates.delete],
  ]);
}

/**
 * `start` and `admin bootstrap` run the repository's TypeScript (bin/cli/local.ts, the local
 * runtime; bin/cli/admin.ts, the table): through tsx when this is the built CLI (dist/cli), and
 * loaded only when used.
 */
async function typescript(): Promise<void> {
  if (!import.meta.url.endsWith('.ts')) (await import('tsx/esm/api')).register();
}
const local = async (): Promise<typeof import('./local.ts')> => {
  await typescript();
  return import('./local.ts');
};
const doctorStack = async (): Promise<typeof import('./doctor-stack.ts')> => {
  await typescript();
  return import('./doctor-stack.ts');
};
const admin = async (): Promise<typeof import('./admin.ts')> => {
  await typescript();
  return import('./admin.ts');
};

function localCommands(program: Command, act: Act): void {
  act(
    program.command('start').description('run the whole stack on this machine (what npm start runs)'),
    async () => (await local()).start(),
  );
  const adminGroup = program.command('admin').description("operator commands on a deployment's table");
  act(
    adminGroup
      .command('bootstrap')
      .description("write a deployment's first platform key (valid 24 h, printed once)")
      .argument('[state-dir]', 'with --local: the state directory of npm start (default .pmail)')
      .option('--stack <name>', 'the stack whose TableName output names the table')
      .option('--table <name>', 'the table, by name')
      .option('--endpoint <url>', 'with --table: a DynamoDB endpoint (DynamoDB Local)')
      .option('--local', 'the table npm start runs on')
      .option('--region <r>', 'AWS Region (else AWS_REGION)')
      .option('--name <n>', 'the key’s name (default bootstrap)')
      .option('--json', 'print {key_id, key, expires_at, api} as JSON'),
    async (ctx) => (await admin()).adminBootstrap(ctx.opts, ctx.args[0]),
  );
}

/** The command tree, for listing (the help test walks it). */
export const commandTree = (): Command => buildProgram(() => undefined);
