import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { ulid } from 'ulid';
import { IDEMPOTENCY_KEY_PATTERN } from '../../functions/core/limits.ts';
import type { MessageStatus } from '../../functions/core/model.ts';
import {
  attemptStateOf,
  type SendOperationName,
  seedRefusalOf,
  uncertainCodeOf,
} from '../../functions/core/reply-attempt.ts';
import {
  type ApiAnswer,
  CliError,
  EXIT,
  type Profile,
  type ProfileFlags,
  request,
  resolveProfile,
  sleep,
} from './client.ts';

/**
 * The mail and control-plane commands of `pmail`, each a thin use of the HTTP API
 * (bin/cli/client.ts). Human output by default, `--json` prints the API's document unchanged (one
 * per invocation; `events --follow` prints one per line). Exit codes: client.ts › EXIT.
 */

export interface Command {
  usage: string;
  run(args: string[]): Promise<number>;
}

const PROFILE_OPTIONS = {
  api: { type: 'string' },
  key: { type: 'string' },
  profile: { type: 'string' },
  identity: { type: 'string' },
  json: { type: 'boolean' },
} as const;

const SEND_OPTIONS = {
  ...PROFILE_OPTIONS,
  to: { type: 'string', multiple: true },
  cc: { type: 'string', multiple: true },
  bcc: { type: 'string', multiple: true },
  subject: { type: 'string' },
  text: { type: 'string' },
  html: { type: 'string' },
  template: { type: 'string' },
  variables: { type: 'string' },
  'idempotency-key': { type: 'string' },
  'send-at': { type: 'string' },
  wait: { type: 'boolean' },
  timeout: { type: 'string' },
} as const;

const COMMON = '[--api <url>] [--key <key>] [--profile local|platform|live] [--json]';
const SEND_FLAGS =
  '[--text <t>] [--html <h> | --template <name> --variables <json>] [--send-at <iso time>] [--idempotency-key <k>] [--wait [--timeout <s>]]';

/** Message statuses after which nothing changes by itself (`--wait` stops there). */
const FINAL: ReadonlySet<MessageStatus> = new Set([
  'delivered',
  'bounced',
  'complained',
  'rejected',
  'failed',
  'uncertain',
  'suppressed',
  'canceled',
  'received',
]);
/** Final statuses in which the message went out (`--wait` exits 0). */
const SENT: ReadonlySet<MessageStatus> = new Set(['delivered', 'bounced', 'complained']);

export const MAIL_COMMANDS: Record<string, Command> = {
  send: {
    usage: `pmail send --to <addr>… [--cc <addr>…] [--bcc <addr>…] [--subject <s>] ${SEND_FLAGS} [--identity <id>] ${COMMON}`,
    run: (a) => sendCommand('send', a),
  },
  reply: {
    usage: `pmail reply <message-id> ${SEND_FLAGS} [--identity <id>] ${COMMON}`,
    run: (a) => sendCommand('reply', a),
  },
  'reply-all': {
    usage: `pmail reply-all <message-id> ${SEND_FLAGS} [--identity <id>] ${COMMON}`,
    run: (a) => sendCommand('reply_all', a),
  },
  forward: {
    usage: `pmail forward <message-id> --to <addr>… ${SEND_FLAGS} [--identity <id>] ${COMMON}`,
    run: (a) => sendCommand('forward', a),
  },
  status: { usage: `pmail status <message-id> [--identity <id>] ${COMMON}`, run: statusCommand },
  list: {
    usage: `pmail list [--direction inbound|outbound] [--limit <n>] [--cursor <c>] [--identity <id>] ${COMMON}`,
    run: listCommand,
  },
  cancel: {
    usage: `pmail cancel <message-id> [--identity <id>] ${COMMON}`,
    run: (a) => messageAction('cancel', a),
  },
  retry: {
    usage: `pmail retry <message-id> [--identity <id>] ${COMMON}`,
    run: (a) => messageAction('retry', a),
  },
  resolve: {
    usage: `pmail resolve <message-id> --outcome sent|not_sent [--idempotency-key <k>] [--identity <id>] ${COMMON}`,
    run: resolveCommand,
  },
  events: {
    usage: `pmail events [--follow] [--after <evt_id>] [--limit <n>] ${COMMON}`,
    run: eventsCommand,
  },
  keys: {
    usage: `pmail keys list | get <key_id> | revoke <key_id> ${COMMON}`,
    run: (a) => platformScoped('keys', a),
  },
  tenants: {
    usage: `pmail tenants list | get <tenant_id> ${COMMON}`,
    run: (a) => platformScoped('tenants', a),
  },
  identities: {
    usage: `pmail identities list [--tenant <id>] | get <identity_id> ${COMMON}`,
    run: (a) => tenantScoped('identities', a),
  },
  domains: {
    usage: `pmail domains list [--tenant <id>] | get <domain_id> [--tenant <id>] ${COMMON}`,
    run: (a) => tenantScoped('domains', a),
  },
  templates: {
    usage: `pmail templates list | get <name> | put <name> --file <template.json> | delete <name> [--tenant <id>] ${COMMON}`,
    run: (a) => tenantScoped('templates', a),
  },
  doctor: { usage: 'pmail doctor [--aws [--region <r>]] [--json]', run: doctorCommand },
};

const out = (s: string) => process.stdout.write(s.endsWith('\n') ? s : `${s}\n`);
const err = (s: string) => process.stderr.write(s.endsWith('\n') ? s : `${s}\n`);
const printJson = (doc: unknown) => out(JSON.stringify(doc));

function profileOf(values: ProfileFlags): Profile {
  return resolveProfile(values);
}

function identityOf(profile: Profile): string {
  if (!profile.identity)
    throw new CliError(EXIT.usage, 'no identity: pass --identity <idn_…> or set PMAIL_IDENTITY');
  return profile.identity;
}

/** `pmail send|reply|reply-all|forward`: one send under one Idempotency-Key, printed before it is used. */
/** `--variables '{"name":"Ada"}'`: one JSON object (absent: none). */
function variablesOf(json: string | undefined): Record<string, unknown> {
  if (json === undefined) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    throw new CliError(EXIT.usage, '--variables must be a JSON object');
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new CliError(EXIT.usage, '--variables must be a JSON object');
  return parsed as Record<string, unknown>;
}

async function sendCommand(operation: SendOperationName, argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, options: SEND_OPTIONS, allowPositionals: true });
  const profile = profileOf(values);
  const identity = identityOf(profile);
  const target = positionals[0];
  if (operation !== 'send' && !target) throw new CliError(EXIT.usage, 'give the message id to answer');
  if (positionals.length > (operation === 'send' ? 0 : 1))
    throw new CliError(EXIT.usage, `unexpected argument ${positionals.at(-1)}`);
  const body: Record<string, unknown> = {};
  for (const f of ['to', 'cc', 'bcc'] as const) if (values[f]) body[f] = values[f];
  if (values.subject !== undefined) body.subject = values.subject;
  if (values.text !== undefined) body.text = values.text;
  if (values.html !== undefined) body.html = values.html;
  if (values['send-at'] !== undefined) body.send_at = values['send-at'];
  if (operation === 'send' && !values.to && !values.cc && !values.bcc)
    throw new CliError(EXIT.usage, 'give at least one --to, --cc or --bcc');
  if (operation === 'forward' && !values.to) throw new CliError(EXIT.usage, 'give at least one --to');
  if (values.template !== undefined) {
    // A send by template (docs/guides/templates.md): the template's own subject and bodies.
    if (body.subject !== undefined || body.text !== undefined || body.html !== undefined)
      throw new CliError(EXIT.usage, '--template takes the place of --subject, --text and --html');
    body.template = values.template;
    body.variables = variablesOf(values.variables);
  } else if (values.variables !== undefined) throw new CliError(EXIT.usage, '--variables needs --template');
  else if (body.text === undefined && body.html === undefined)
    throw new CliError(EXIT.usage, 'give --text or --html (or --template)');
  // The reply-attempt model refuses an empty reply body (pmail's API accepts an empty text part).
  if (
    (operation === 'reply' || operation === 'reply_all') &&
    !String(body.text ?? '').trim() &&
    !String(body.html ?? '').trim()
  )
    return refuse(values.json, 'invalid_request', 'REPLY_BODY_INVALID', 'A reply body must not be empty.');

  let key = values['idempotency-key'];
  if (key !== undefined && (!IDEMPOTENCY_KEY_PATTERN.test(key) || /\s/.test(key)))
    return refuse(
      values.json,
      'invalid_idempotency_key',
      'IDEMPOTENCY_KEY_INVALID',
      'An idempotency key is 1–255 printable ASCII characters without whitespace.',
    );
  if (key === undefined) {
    key = `pmail-${ulid()}`;
    // Printed before the request, so a person whose command died can rerun it with this key.
    err(`Idempotency-Key: ${key}`);
    err(`  to retry safely, rerun this command with --idempotency-key ${key} (it can never send twice)`);
  }
  const path =
    operation === 'send'
      ? `/v1/identities/${identity}/messages`
      : `/v1/identities/${identity}/messages/${encodeURIComponent(target)}/${operation === 'reply_all' ? 'reply-all' : operation}`;
  let answer: ApiAnswer;
  try {
    answer = await request(profile, 'POST', path, {
      body,
      idempotencyKey: key,
      onRetry: (why, n) => values.json || err(`retry ${n} with the same key after ${why}`),
    });
  } catch (e) {
    if (e instanceof CliError && e.envelope) {
      const first = (e.envelope.error.details?.errors as { path?: string }[] | undefined)?.[0]?.path;
      const seed = seedRefusalOf(e.envelope.error.code, operation, first);
      if (seed) e.envelope.error.details = { ...e.envelope.error.details, seed_code: seed };
    }
    if (e instanceof CliError) err(`  Idempotency-Key was ${key}`);
    throw e;
  }
  let message = answer.body;
  if (values.wait) {
    message = await waitFinal(
      profile,
      identity,
      message,
      values.json === true,
      Number(values.timeout ?? 120),
    );
  }
  if (values.json) printJson({ ...message, idempotency_key: key });
  else {
    out(
      `${message.deduplicated ? 'replayed (same key: nothing new was sent)' : 'accepted'}: ${message.id} (${operation.replace('_', '-')})`,
    );
    printMessage(message, operation);
  }
  if (values.wait) {
    if (!FINAL.has(message.status)) return EXIT.timeout;
    return SENT.has(message.status) ? EXIT.ok : EXIT.not_sent;
  }
  return EXIT.ok;
}

/** A refusal decided by the CLI before any request, in the API's envelope shape. */
function refuse(json: boolean | undefined, code: string, seed: string, message: string): number {
  if (json)
    printJson({ error: { code, message, retryable: false, request_id: null, details: { seed_code: seed } } });
  else err(`error: ${code} [${seed}]: ${message}`);
  return EXIT.invalid;
}

/** Poll the message until a final status; a progress line on stderr when it is a terminal. */
async function waitFinal(
  profile: Profile,
  identity: string,
  first: any,
  json: boolean,
  timeoutSeconds: number,
): Promise<any> {
  const tty = process.stderr.isTTY === true && !json;
  const frames = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
  const started = Date.now();
  let message = first;
  let n = 0;
  while (!FINAL.has(message.status)) {
    if (Date.now() - started > timeoutSeconds * 1000) break;
    if (tty) {
      const secs = Math.floor((Date.now() - started) / 1000);
      process.stderr.write(
        `\r\x1b[K${frames[n++ % frames.length]} waiting for ${message.id}: ${message.status} (${attemptStateOf(message.status, true)}) ${secs}s`,
      );
    }
    await sleep(400);
    message = (await request(profile, 'GET', `/v1/identities/${identity}/messages/${message.id}`)).body;
  }
  if (tty) process.stderr.write('\r\x1b[K');
  return { ...message, deduplicated: first.deduplicated };
}

function printMessage(m: any, operation?: SendOperationName): void {
  const state = attemptStateOf(m.status);
  const seed = state === 'uncertain' ? ` ${uncertainCodeOf(operation, m.in_reply_to)}` : '';
  out(`  status:  ${m.status}${m.status_reason ? ` (${m.status_reason})` : ''}`);
  out(`  attempt: ${state}${seed}`);
  if (state === 'uncertain')
    out(
      '  uncertain: the provider may or may not have sent it; pmail never resends it. Check the recipient, then `pmail resolve <id> --outcome sent|not_sent`; do not send it again.',
    );
  out(`  subject: ${terminalSafe(m.subject ?? '')}`);
  if (m.to?.length) out(`  to:      ${m.to.map((a: { address: string }) => a.address).join(', ')}`);
  if (m.deliveries?.length)
    for (const d of m.deliveries) out(`  - ${d.address}: ${d.status}${d.smtp_code ? ` ${d.smtp_code}` : ''}`);
}

/** Email text is untrusted: control characters (escape sequences) never reach the terminal. */
function terminalSafe(s: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing them is the point
  return s.replace(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/g, '\uFFFD');
}

async function statusCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, options: PROFILE_OPTIONS, allowPositionals: true });
  if (positionals.length !== 1) throw new CliError(EXIT.usage, 'give one message id');
  const profile = profileOf(values);
  const m = (
    await request(
      profile,
      'GET',
      `/v1/identities/${identityOf(profile)}/messages/${encodeURIComponent(positionals[0])}`,
    )
  ).body;
  if (values.json) {
    const state = attemptStateOf(m.status);
    printJson({
      ...m,
      attempt: {
        status: state,
        error_code: state === 'uncertain' ? uncertainCodeOf(undefined, m.in_reply_to) : null,
      },
    });
  } else {
    out(`${m.id} (${m.direction}${m.in_reply_to ? ', a reply' : ''})`);
    printMessage(m);
  }
  return EXIT.ok;
}

async function listCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      ...PROFILE_OPTIONS,
      direction: { type: 'string' },
      limit: { type: 'string' },
      cursor: { type: 'string' },
    },
  });
  const profile = profileOf(values);
  const page = (
    await request(profile, 'GET', `/v1/identities/${identityOf(profile)}/messages`, {
      query: { direction: values.direction, limit: values.limit, cursor: values.cursor },
    })
  ).body;
  if (values.json) printJson(page);
  else {
    for (const m of page.data)
      out(
        `${m.id}  ${m.direction.padEnd(8)}  ${m.status.padEnd(11)}  ${attemptStateOf(m.status).padEnd(9)}  ${terminalSafe(m.subject).slice(0, 60)}`,
      );
    if (page.next_cursor) out(`more: --cursor ${page.next_cursor}`);
  }
  return EXIT.ok;
}

/**
 * `cancel` and `retry` (an operator's retry of a `failed` message whose failure was not a refusal,
 * docs/guides/sending.md): one POST on the message, the message back.
 */
async function messageAction(action: 'cancel' | 'retry', argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, options: PROFILE_OPTIONS, allowPositionals: true });
  if (positionals.length !== 1) throw new CliError(EXIT.usage, 'give one message id');
  const profile = profileOf(values);
  const m = (
    await request(
      profile,
      'POST',
      `/v1/identities/${identityOf(profile)}/messages/${encodeURIComponent(positionals[0])}/${action}`,
    )
  ).body;
  if (values.json) printJson(m);
  else {
    out(`${action === 'cancel' ? 'canceled' : 'retried'}: ${m.id}`);
    printMessage(m);
  }
  return EXIT.ok;
}

async function resolveCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { ...PROFILE_OPTIONS, outcome: { type: 'string' }, 'idempotency-key': { type: 'string' } },
    allowPositionals: true,
  });
  if (positionals.length !== 1) throw new CliError(EXIT.usage, 'give one message id');
  if (values.outcome !== 'sent' && values.outcome !== 'not_sent')
    throw new CliError(EXIT.usage, 'give --outcome sent or --outcome not_sent');
  const profile = profileOf(values);
  const answer = await request(
    profile,
    'POST',
    `/v1/identities/${identityOf(profile)}/messages/${encodeURIComponent(positionals[0])}/resolve`,
    { body: { outcome: values.outcome }, idempotencyKey: values['idempotency-key'] ?? `pmail-${ulid()}` },
  );
  if (values.json) printJson(answer.body);
  else out(`resolved ${positionals[0]} as ${values.outcome}`);
  return EXIT.ok;
}

/** `pmail events [--follow]`: the tenant's event feed; `--follow` polls until Ctrl-C (exit 130). */
async function eventsCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      ...PROFILE_OPTIONS,
      follow: { type: 'boolean' },
      after: { type: 'string' },
      limit: { type: 'string' },
      interval: { type: 'string' },
    },
  });
  const profile = profileOf(values);
  let after = values.after;
  let interrupted = false;
  process.once('SIGINT', () => {
    interrupted = true;
  });
  for (;;) {
    const page = (
      await request(profile, 'GET', '/v1/events', { query: { after, limit: values.limit ?? 100 } })
    ).body as {
      data: { id: string; type: string; created_at: string; data: any }[];
      next_cursor: string | null;
    };
    if (!values.follow) {
      if (values.json) printJson(page);
      else for (const e of page.data) out(eventLine(e));
      return EXIT.ok;
    }
    for (const e of page.data) out(values.json ? JSON.stringify(e) : eventLine(e));
    if (page.data.length) after = page.data[page.data.length - 1].id;
    if (page.next_cursor) continue;
    const until = Date.now() + Number(values.interval ?? 1) * 1000;
    while (Date.now() < until && !interrupted) await sleep(100);
    if (interrupted) return EXIT.interrupted;
  }
}

const eventLine = (e: { id: string; type: string; created_at: string; data: any }) =>
  `${e.created_at}  ${e.type.padEnd(22)}  ${e.data?.message_id ?? ''}  ${e.id}`;

/** `keys` and `tenants`: `list`, `get <id>` and, for keys, `revoke <id>`, on `/v1/{kind}`. */
async function platformScoped(kind: 'keys' | 'tenants', argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, options: PROFILE_OPTIONS, allowPositionals: true });
  const profile = profileOf(values);
  const [verb, id] = positionals;
  const one = () => `/v1/${kind}/${encodeURIComponent(id!)}`;
  const answer =
    verb === 'list'
      ? await request(profile, 'GET', `/v1/${kind}`)
      : verb === 'get' && id
        ? await request(profile, 'GET', one())
        : kind === 'keys' && verb === 'revoke' && id
          ? await request(profile, 'DELETE', one())
          : undefined;
  if (!answer) throw new CliError(EXIT.usage, MAIL_COMMANDS[kind].usage);
  return printDoc(answer.body, values.json, (x) =>
    kind === 'keys'
      ? `${x.id}  ${x.level ?? ''}  ${x.status ?? ''}  ${x.name ?? ''}`
      : `${x.id}  ${x.slug ?? ''}  ${x.mode ?? ''}  ${x.status ?? ''}`,
  );
}

/**
 * `identities`, `domains` and `templates`: per tenant (`--tenant`, else the key's own, from GET
 * /v1/me). A template is written from a JSON file (`put <name> --file t.json`: the body of PUT
 * …/templates/{name}, or of the POST that creates it, docs/guides/templates.md) and deleted by name.
 */
async function tenantScoped(kind: 'identities' | 'domains' | 'templates', argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { ...PROFILE_OPTIONS, tenant: { type: 'string' }, file: { type: 'string' } },
    allowPositionals: true,
  });
  const profile = profileOf(values);
  const [verb, id] = positionals;
  const tenant = async () =>
    values.tenant ??
    ((await request(profile, 'GET', '/v1/me')).body.tenant_id as string | undefined) ??
    (() => {
      throw new CliError(EXIT.usage, 'pass --tenant <ten_…>');
    })();
  const one = async () => `/v1/tenants/${await tenant()}/${kind}/${encodeURIComponent(id!)}`;
  let answer: { body: any } | undefined;
  if (verb === 'list') answer = await request(profile, 'GET', `/v1/tenants/${await tenant()}/${kind}`);
  else if (verb === 'get' && id)
    answer =
      kind === 'identities'
        ? await request(profile, 'GET', `/v1/identities/${encodeURIComponent(id)}`)
        : await request(profile, 'GET', await one());
  else if (kind === 'templates' && verb === 'put' && id && values.file) {
    // PUT makes a new version of a template that exists; the first version is a POST with its name.
    const body = templateFile(values.file);
    try {
      answer = await request(profile, 'PUT', await one(), { body });
    } catch (e) {
      if (!(e instanceof CliError) || e.envelope?.error.code !== 'template_not_found') throw e;
      answer = await request(profile, 'POST', `/v1/tenants/${await tenant()}/templates`, {
        body: { ...(body as object), name: id },
      });
    }
  } else if (kind === 'templates' && verb === 'delete' && id)
    answer = await request(profile, 'DELETE', await one());
  if (!answer) throw new CliError(EXIT.usage, MAIL_COMMANDS[kind].usage);
  return printDoc(answer.body, values.json, (x) =>
    kind === 'identities'
      ? `${x.id}  ${x.primary_address ?? ''}  ${x.status ?? ''}`
      : kind === 'domains'
        ? `${x.id}  ${x.name ?? ''}  ${x.state ?? ''}  ${x.transport ?? ''}`
        : `${x.name}  v${x.version ?? ''}  ${x.category ?? ''}  ${x.kind ?? ''}`,
  );
}

/** A template's JSON file (`--file`), read and parsed here so a bad file never reaches the API. */
function templateFile(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new CliError(EXIT.usage, `--file ${path}: ${e instanceof SyntaxError ? 'not JSON' : 'unreadable'}`);
  }
}

/** A list (`{ data }`) as one line per item, a single object as indented JSON; `--json` as is. */
function printDoc(doc: any, json: boolean | undefined, line: (x: any) => string): number {
  if (json) printJson(doc ?? {});
  else if (doc && Array.isArray(doc.data)) for (const x of doc.data) out(line(x));
  else out(JSON.stringify(doc ?? { ok: true }, null, 2));
  return EXIT.ok;
}

interface Check {
  name: string;
  result: 'pass' | 'warn' | 'fail' | 'skip';
  detail: string;
}

/**
 * `pmail doctor`: Java (DynamoDB Local needs 17+), DynamoDB Local and the table of
 * `.pmail/local.json`, the API's /health (the table and the state machines as the API sees them),
 * the local SES; with `--aws` the SES account of the current AWS credentials: sending enabled,
 * production access and the 24-hour quota (SESv2 GetAccount,
 * https://docs.aws.amazon.com/ses/latest/APIReference-V2/API_GetAccount.html). Exit 12 on any fail.
 */
async function doctorCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: { ...PROFILE_OPTIONS, aws: { type: 'boolean' }, region: { type: 'string' } },
  });
  const checks: Check[] = [];
  const java = spawnSync('java', ['-version'], { encoding: 'utf8' });
  const version = /version "(\d+)/.exec(`${java.stderr}${java.stdout}`)?.[1];
  checks.push(
    java.error || !version
      ? {
          name: 'java',
          result: 'fail',
          detail: 'java not found: DynamoDB Local needs Java 17+ (apt-get install openjdk-17-jre-headless)',
        }
      : { name: 'java', result: Number(version) >= 17 ? 'pass' : 'fail', detail: `Java ${version}` },
  );
  let profile: Profile | undefined;
  try {
    profile = profileOf(values);
  } catch (e) {
    checks.push({ name: 'profile', result: 'fail', detail: (e as Error).message });
  }
  const local = profile?.local;
  if (local?.dynamoEndpoint && local.table) {
    const { DescribeTableCommand, DynamoDBClient } = await import('@aws-sdk/client-dynamodb');
    const ddb = new DynamoDBClient({
      endpoint: local.dynamoEndpoint,
      region: 'local',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      maxAttempts: 1,
    });
    try {
      const t = await ddb.send(new DescribeTableCommand({ TableName: local.table }));
      checks.push({ name: 'dynamodb', result: 'pass', detail: `DynamoDB Local at ${local.dynamoEndpoint}` });
      checks.push({
        name: 'table',
        result: t.Table?.TableStatus === 'ACTIVE' ? 'pass' : 'warn',
        detail: `${local.table}: ${t.Table?.TableStatus}`,
      });
    } catch (e) {
      checks.push({
        name: 'dynamodb',
        result: 'fail',
        detail: `${local.dynamoEndpoint}: ${(e as Error).message} (is npm start running?)`,
      });
    } finally {
      ddb.destroy();
    }
  } else checks.push({ name: 'dynamodb', result: 'skip', detail: 'no local stack in .pmail/local.json' });
  if (profile) {
    try {
      const res = await fetch(`${profile.api}/health`, { signal: AbortSignal.timeout(10_000) });
      const h = (await res.json()) as { status: string; version?: string; checks: Record<string, string> };
      checks.push({
        name: 'api',
        result: res.ok ? 'pass' : 'fail',
        detail: `${profile.api} ${h.status} (version ${h.version})`,
      });
      checks.push({
        name: 'state machines',
        result:
          h.checks.state_machines === 'unreachable'
            ? 'fail'
            : h.checks.state_machines === 'ok'
              ? 'pass'
              : 'warn',
        detail: h.checks.state_machines,
      });
      checks.push({
        name: 'table (API)',
        result: h.checks.table === 'ok' ? 'pass' : 'fail',
        detail: h.checks.table,
      });
    } catch (e) {
      checks.push({ name: 'api', result: 'fail', detail: `${profile.api}: ${(e as Error).message}` });
    }
  }
  if (local?.live?.apiKey) {
    const ses = (local.live as { ses?: string }).ses;
    try {
      const res = ses ? await fetch(`${ses}/store`, { signal: AbortSignal.timeout(5000) }) : undefined;
      checks.push({
        name: 'transport ses (local)',
        result: res?.ok ? 'pass' : 'fail',
        detail: ses ?? 'not configured',
      });
    } catch (e) {
      checks.push({
        name: 'transport ses (local)',
        result: 'fail',
        detail: `${ses}: ${(e as Error).message}`,
      });
    }
  }
  if (values.aws) {
    const { GetAccountCommand, SESv2Client } = await import('@aws-sdk/client-sesv2');
    const sesClient = new SESv2Client(values.region ? { region: values.region } : {});
    try {
      const a = await sesClient.send(new GetAccountCommand({}));
      const q = a.SendQuota;
      checks.push({
        name: 'ses account',
        result: a.SendingEnabled ? (a.ProductionAccessEnabled ? 'pass' : 'warn') : 'fail',
        detail: `sending ${a.SendingEnabled ? 'enabled' : 'DISABLED'}, ${a.ProductionAccessEnabled ? 'production access' : 'sandbox (verified recipients only)'}, ${a.EnforcementStatus ?? ''}; quota ${q?.SentLast24Hours ?? 0}/${q?.Max24HourSend ?? 0} per 24 h, ${q?.MaxSendRate ?? 0}/s`,
      });
    } catch (e) {
      checks.push({ name: 'ses account', result: 'fail', detail: (e as Error).message });
    } finally {
      sesClient.destroy();
    }
  }
  if (values.json) printJson({ checks });
  else for (const c of checks) out(`${c.result.padEnd(4)}  ${c.name.padEnd(22)}  ${c.detail}`);
  return checks.some((c) => c.result === 'fail') ? EXIT.doctor_failed : EXIT.ok;
}

/** Print an API error as a human block (or the envelope with `--json`), with the reply-attempt code. */
export function printCliError(e: CliError, json: boolean): void {
  if (e.envelope) {
    const x = e.envelope.error;
    if (json) {
      out(JSON.stringify(e.envelope));
      return;
    }
    const seed = x.details?.seed_code ? ` [${x.details.seed_code}]` : '';
    err(`error: ${x.code}${seed}: ${x.message}`);
    if (x.fix) err(`  fix: ${x.fix}`);
    if (x.request_id) err(`  request_id: ${x.request_id}`);
    return;
  }
  if (json)
    out(
      JSON.stringify({
        error: {
          code: 'cli_error',
          message: e.message,
          retryable: e.exit === EXIT.unavailable,
          request_id: null,
        },
      }),
    );
  else err(`error: ${e.message}`);
}
