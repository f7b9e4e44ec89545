import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { allCommands, commandTree, pathOf } from '../../bin/cli/program.ts';
import { buildCli, runBuilt, runInProcess } from '../support/cli.ts';

/**
 * The CLI's parser without a server: `--help` on every command, unknown commands and usage errors
 * (exit 2), a missing profile (exit 3), AWS errors that say what to do, and the built CLI
 * (dist/cli/pmail.mjs, what `npm ci` builds) answering as the source does.
 */
const EMPTY_STATE = mkdtempSync(join(tmpdir(), 'pmail-cli-unit-'));
/** No profile at all: no .pmail/local.json, no PMAIL_* variables. */
const bare = { PATH: process.env.PATH, PMAIL_STATE_DIR: EMPTY_STATE };
const pmail = (args: string[]) => runInProcess(args, bare);

/** Every command and subcommand pmail has: one missing from the tree fails here. */
const COMMANDS = [
  'send',
  'reply',
  'reply-all',
  'forward',
  'status',
  'list',
  'cancel',
  'retry',
  'resolve',
  'inbox',
  'watch',
  'approve',
  'reject',
  'threads',
  'thread',
  'label',
  'read',
  'search',
  'events',
  'held',
  'held list',
  'held release',
  'held delete',
  'doctor',
  'tenants',
  'tenants create',
  'tenants list',
  'tenants get',
  'identities',
  'identities create',
  'identities list',
  'identities get',
  'identities pause',
  'identities resume',
  'keys',
  'keys create',
  'keys list',
  'keys get',
  'keys revoke',
  'domains',
  'domains add',
  'domains list',
  'domains get',
  'domains verify',
  'domains dns',
  'domains delete',
  'webhooks',
  'webhooks add',
  'webhooks list',
  'webhooks get',
  'webhooks test',
  'webhooks delete',
  'suppressions',
  'suppressions add',
  'suppressions list',
  'suppressions remove',
  'templates',
  'templates list',
  'templates get',
  'templates put',
  'templates delete',
  'start',
  'admin',
  'admin bootstrap',
];

describe('pmail --help', () => {
  const tree = allCommands(commandTree())
    .map(pathOf)
    .map((p) => p.replace(/^pmail ?/, ''))
    .filter((p) => p !== '' && !/(^| )help$/.test(p));

  it('the tree has every command of the list, and nothing the list lacks', () => {
    expect([...tree].sort()).toEqual([...COMMANDS].sort());
  });

  it.each(['', ...COMMANDS])('pmail %s --help: its usage on stdout, exit 0', async (command) => {
    const words = command ? command.split(' ') : [];
    const r = await pmail([...words, '--help']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^Usage: pmail${command ? ` ${command}` : ''} `));
    expect(r.stderr).toBe('');
  });

  it('pmail help <command> says the same as pmail <command> --help', async () => {
    const a = await pmail(['help', 'send']);
    expect(a.code).toBe(0);
    expect(a.stdout).toBe((await pmail(['send', '--help'])).stdout);
  });
});

describe('usage errors (exit 2)', () => {
  it.each([
    [['sned'], "error: unknown command 'sned' (did you mean 'send'?)", 'usage: pmail [options] [command]'],
    [['tenants', 'lsit'], "error: unknown command 'lsit' (did you mean 'list'?)", 'usage: pmail tenants'],
    [
      ['status'],
      "error: missing required argument 'message-id'",
      'usage: pmail status [options] <message-id>',
    ],
    [['status', 'a', 'b'], "error: too many arguments for 'status'", 'usage: pmail status'],
    [
      ['tenants', 'create', '--mode', 'live'],
      "error: required option '--slug <slug>' not specified",
      'usage: pmail tenants create',
    ],
    [['resolve', 'msg_x'], "error: required option '--outcome <o>' not specified", 'usage: pmail resolve'],
    [
      ['resolve', 'msg_x', '--outcome', 'maybe'],
      "argument 'maybe' is invalid. Allowed choices are sent, not_sent",
      'usage: pmail resolve',
    ],
    [['list', '--limit', 'ten'], "argument 'ten' is invalid. a positive whole number", 'usage: pmail list'],
    [['send', '--bogus'], "error: unknown option '--bogus'", 'usage: pmail send'],
    [
      ['send', '--cc', 'a@example.com', '--txt', 'x'],
      "error: unknown option '--txt' (did you mean '--text'?)",
      'usage: pmail send',
    ],
  ])('pmail %j', async (args, message, usage) => {
    const r = await pmail(args);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
    expect(r.stderr).toContain(usage);
    expect(r.stdout).toBe('');
  });

  it('a rule of the command, checked before any call: what is missing, then the usage line', async () => {
    const r = await runInProcess(['send', '--to', 'a@example.com', '--subject', 'Hi'], {
      ...bare,
      PMAIL_API: 'http://127.0.0.1:9',
      PMAIL_KEY: 'pmk_test_x',
      PMAIL_IDENTITY: 'idn_x',
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('error: give --text or --html (or --template)');
    expect(r.stderr).toContain('usage: pmail send [options]');
  });

  it('pmail alone and a group alone print their help on stderr', async () => {
    for (const args of [[], ['tenants']]) {
      const r = await pmail(args);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/^Usage: pmail/);
    }
  });
});

describe('configuration (exit 3)', () => {
  it('no API URL anywhere: says where one comes from', async () => {
    const r = await pmail(['tenants', 'list']);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('error: no API URL: pass --api, set PMAIL_API, or run npm start');
  });

  it('an unknown PMAIL_PROFILE', async () => {
    const r = await runInProcess(['keys', 'list', '--api', 'http://127.0.0.1:9'], {
      ...bare,
      PMAIL_PROFILE: 'prod',
    });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('unknown profile prod');
  });
});

describe('the built CLI (dist/cli/pmail.mjs)', () => {
  beforeAll(() => {
    buildCli();
  });
  const env = { ...bare, HOME: EMPTY_STATE } as Record<string, string>;

  it('answers --help and an unknown command as the source does', async () => {
    const help = await runBuilt(['--help'], env);
    expect(help.code).toBe(0);
    expect(help.stdout).toBe((await pmail(['--help'])).stdout);
    const typo = await runBuilt(['sned'], env);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain("error: unknown command 'sned' (did you mean 'send'?)");
  });

  /** No AWS config or credentials files, no instance metadata: nothing reaches AWS. */
  const aws = {
    ...env,
    AWS_CONFIG_FILE: join(EMPTY_STATE, 'none'),
    AWS_SHARED_CREDENTIALS_FILE: join(EMPTY_STATE, 'none'),
    AWS_EC2_METADATA_DISABLED: 'true',
  };

  it('admin bootstrap without a Region: exit 3, "set AWS_REGION or pass --region"', async () => {
    const r = await runBuilt(['admin', 'bootstrap', '--table', 'pmail-none'], {
      ...aws,
      AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE',
      AWS_SECRET_ACCESS_KEY: 'example',
    });
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toContain('error: Region is missing: set AWS_REGION or pass --region');
  });

  it('admin bootstrap without AWS credentials: exit 3, where credentials come from', async () => {
    const r = await runBuilt(['admin', 'bootstrap', '--table', 'pmail-none', '--region', 'eu-west-1'], aws);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toContain('set AWS_PROFILE');
  });
});
