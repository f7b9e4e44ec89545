import { ulid } from 'ulid';
import { IDEMPOTENCY_KEY_PATTERN } from '../../functions/core/limits.ts';
import type { MessageStatus } from '../../functions/core/model.ts';
import {
  attemptStateOf,
  type SendOperationName,
  seedRefusalOf,
  uncertainCodeOf,
} from '../../functions/core/reply-attempt.ts';
import { FOLLOW_UP_NOTES, followUpState } from '../../functions/core/unless-reply.ts';
import type { Pmail } from '../../packages/client/src/index.ts';
import { CliError, cliErrorOf, EXIT, type Profile, sleep } from './client.ts';
import { apiFor, type Ctx, call, filterQueryOf, identityOf, profileOf } from './context.ts';
import { printTable } from './control.ts';
import { err, io, out, printJson, terminalSafe } from './io.ts';

/**
 * The mail commands of `pmail`, each a thin use of the HTTP API through @pmail/client
 * (bin/cli/client.ts › apiOf). Human output by default, `--json` prints the API's document
 * unchanged (one per invocation; `events --follow` prints one per line). Exit codes: client.ts › EXIT.
 */

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

/** The request body of a send, a reply or a forward, from its flags; usage errors before any call. */
function sendBodyOf(operation: SendOperationName, o: Ctx['opts']): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const f of ['to', 'cc', 'bcc'] as const) if (o[f]) body[f] = o[f];
  if (o.subject !== undefined) body.subject = o.subject;
  if (o.text !== undefined) body.text = o.text;
  if (o.html !== undefined) body.html = o.html;
  if (o.sendAt !== undefined) body.send_at = o.sendAt;
  if (o.threadId !== undefined && operation === 'send') body.thread_id = o.threadId;
  if (o.unlessReply) body.unless_reply = true;
  if (operation === 'send' && !o.to && !o.cc && !o.bcc)
    throw new CliError(EXIT.usage, 'give at least one --to, --cc or --bcc');
  if (operation === 'forward' && !o.to) throw new CliError(EXIT.usage, 'give at least one --to');
  if (o.template !== undefined) {
    // A send by template (docs/guides/templates.md): the template's own subject and bodies.
    if (body.subject !== undefined || body.text !== undefined || body.html !== undefined)
      throw new CliError(EXIT.usage, '--template takes the place of --subject, --text and --html');
    body.template = o.template;
    body.variables = variablesOf(o.variables);
  } else if (o.variables !== undefined) throw new CliError(EXIT.usage, '--variables needs --template');
  else if (body.text === undefined && body.html === undefined)
    throw new CliError(EXIT.usage, 'give --text or --html (or --template)');
  return body;
}

/** The CLI's own refusals of a send (before any request), or undefined when it may go. */
function refusalOf(operation: SendOperationName, body: Record<string, unknown>, key?: string) {
  // The reply-attempt model refuses an empty reply body (pmail's API accepts an empty text part).
  if (
    (operation === 'reply' || operation === 'reply_all') &&
    !String(body.text ?? '').trim() &&
    !String(body.html ?? '').trim()
  )
    return ['invalid_request', 'REPLY_BODY_INVALID', 'A reply body must not be empty.'] as const;
  if (key !== undefined && (!IDEMPOTENCY_KEY_PATTERN.test(key) || /\s/.test(key)))
    return [
      'invalid_idempotency_key',
      'IDEMPOTENCY_KEY_INVALID',
      'An idempotency key is 1–255 printable ASCII characters without whitespace.',
    ] as const;
  return undefined;
}

/** One send, reply, reply-all or forward through the client, under `key`. */
function dispatch(
  api: Pmail,
  operation: SendOperationName,
  identity: string,
  target: string,
  body: any,
  key: string,
) {
  const opts = { idempotencyKey: key };
  if (operation === 'send') return api.messages.send(identity, body, opts);
  if (operation === 'reply') return api.messages.reply(identity, target, body, opts);
  if (operation === 'reply_all') return api.messages.replyAll(identity, target, body, opts);
  return api.messages.forward(identity, target, body, opts);
}

/** `pmail send|reply|reply-all|forward`: one send under one Idempotency-Key, printed before it is used. */
export function sendCommand(operation: SendOperationName) {
  return async (ctx: Ctx): Promise<number> => {
    const o = ctx.opts;
    const profile = profileOf(ctx);
    const identity = identityOf(profile);
    const target = ctx.args[0];
    const body = sendBodyOf(operation, o);
    let key: string | undefined = o.idempotencyKey;
    const refusal = refusalOf(operation, body, key);
    if (refusal) return refuse(o.json, refusal[0], refusal[1], refusal[2]);
    const api = apiFor(ctx, profile);
    if (key === undefined) {
      key = `pmail-${ulid()}`;
      // Printed before the request, so a person whose command died can rerun it with this key.
      err(`Idempotency-Key: ${key}`);
      err(`  to retry safely, rerun this command with --idempotency-key ${key} (it can never send twice)`);
    }
    let message: any;
    try {
      const answer = await dispatch(api, operation, identity, target, body, key);
      message = { ...answer.data, deduplicated: answer.data.deduplicated || answer.replayed };
    } catch (e) {
      throw seeded(e, operation, profile, key);
    }
    // The local SES takes a send and never reports its delivery: a wait there ends at submitted.
    const localSes =
      profile.local?.live?.ses && profile.api === profile.local.api ? profile.local.live.ses : undefined;
    if (o.wait)
      message = await waitFinal(api, identity, message, o.json === true, Number(o.timeout ?? 120), localSes);
    const parked = o.wait && localSes !== undefined && endsAtLocalSes(message);
    if (parked)
      err(
        `submitted: the local SES (${localSes}) accepted it and, unlike SES, sends no delivery events, so it stays submitted here; open ${localSes} to see the mail`,
      );
    if (o.json) printJson({ ...message, idempotency_key: key });
    else {
      const how = message.deduplicated ? 'replayed (same key: nothing new was sent)' : 'accepted';
      out(`${how}: ${message.id} (${operation.replace('_', '-')})`);
      printMessage(message, operation);
    }
    if (!o.wait || parked) return EXIT.ok;
    if (!FINAL.has(message.status)) return EXIT.timeout;
    return SENT.has(message.status) ? EXIT.ok : EXIT.not_sent;
  };
}

/** A send's API error with the reply-attempt code beside pmail's, and the key it was sent under. */
function seeded(e: unknown, operation: SendOperationName, profile: Profile, key: string): unknown {
  const cli = cliErrorOf(e, profile.api);
  if (!cli) return e;
  if (cli.envelope) {
    const first = (cli.envelope.error.details?.errors as { path?: string }[] | undefined)?.[0]?.path;
    const seed = seedRefusalOf(cli.envelope.error.code, operation, first);
    if (seed) cli.envelope.error.details = { ...cli.envelope.error.details, seed_code: seed };
  }
  err(`  Idempotency-Key was ${key}`);
  return cli;
}

/** A refusal decided by the CLI before any request, in the API's envelope shape. */
function refuse(json: boolean | undefined, code: string, seed: string, message: string): number {
  if (json)
    printJson({ error: { code, message, retryable: false, request_id: null, details: { seed_code: seed } } });
  else err(`error: ${code} [${seed}]: ${message}`);
  return EXIT.invalid;
}

/** A message the local SES took: submitted through SES, which there reports nothing further. */
const endsAtLocalSes = (m: { status: string; provider?: string | null }) =>
  m.status === 'submitted' && m.provider === 'ses';

/**
 * Poll the message until a final status (or, with `localSes`, until the local SES took it); a
 * progress line on stderr when it is a terminal.
 */
async function waitFinal(
  api: Pmail,
  identity: string,
  first: any,
  json: boolean,
  timeoutSeconds: number,
  localSes?: string,
) {
  const tty = io.stderrTty && !json;
  const frames = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
  const started = Date.now();
  let message = first;
  let n = 0;
  while (!FINAL.has(message.status) && !(localSes && endsAtLocalSes(message))) {
    if (Date.now() - started > timeoutSeconds * 1000) break;
    if (tty) {
      const secs = Math.floor((Date.now() - started) / 1000);
      io.err(
        `\r\x1b[K${frames[n++ % frames.length]} waiting for ${message.id}: ${message.status} (${attemptStateOf(message.status, true)}) ${secs}s`,
      );
    }
    await sleep(400);
    message = await api.messages.get(identity, message.id);
  }
  if (tty) io.err('\r\x1b[K');
  return { ...message, deduplicated: first.deduplicated };
}

function printMessage(m: any, operation?: SendOperationName): void {
  const state = attemptStateOf(m.status);
  const seed = state === 'uncertain' ? ` ${uncertainCodeOf(operation, m.in_reply_to)}` : '';
  out(`  status:  ${m.status}${m.status_reason ? ` (${m.status_reason})` : ''}`);
  // A received message was never sent: it has no attempt.
  if (m.direction !== 'outbound') {
    printReceived(m);
    return;
  }
  out(`  attempt: ${state}${seed}`);
  const follow = followUpState(m);
  if (follow) out(`  ${FOLLOW_UP_NOTES[follow]}`);
  if (state === 'uncertain')
    out(
      '  uncertain: the provider may or may not have sent it; pmail never resends it. Check the recipient, then `pmail resolve <id> --outcome sent|not_sent`; do not send it again.',
    );
  out(`  subject: ${terminalSafe(m.subject ?? '')}`);
  if (m.to?.length) out(`  to:      ${m.to.map((a: { address: string }) => a.address).join(', ')}`);
  if (m.deliveries?.length)
    for (const d of m.deliveries) out(`  - ${d.address}: ${d.status}${d.smtp_code ? ` ${d.smtp_code}` : ''}`);
}

function printReceived(m: any): void {
  out(`  subject: ${terminalSafe(m.subject ?? '')}`);
  out(`  from:    ${terminalSafe(m.from?.address ?? '')}`);
  out(`  read it: pmail read ${m.id}`);
}

/** The profile, its client and its identity: what every message command starts from. */
function mailOf(ctx: Ctx) {
  const profile = profileOf(ctx);
  return { api: apiFor(ctx, profile), identity: identityOf(profile) };
}

export async function statusCommand(ctx: Ctx): Promise<number> {
  const { api, identity } = mailOf(ctx);
  const m = await api.messages.get(identity, ctx.args[0]);
  if (ctx.opts.json) {
    const state = attemptStateOf(m.status);
    printJson(
      m.direction === 'outbound'
        ? {
            ...m,
            attempt: {
              status: state,
              error_code: state === 'uncertain' ? uncertainCodeOf(undefined, m.in_reply_to) : null,
            },
          }
        : m,
    );
  } else {
    out(`${m.id} (${m.direction}${m.in_reply_to ? ', a reply' : ''})`);
    printMessage(m);
  }
  return EXIT.ok;
}

export async function listCommand(ctx: Ctx): Promise<number> {
  const { api, identity } = mailOf(ctx);
  const o = ctx.opts;
  const page = await api.messages.list(identity, { ...filterQueryOf(o), status: o.status } as never);
  if (o.json) printJson(page);
  else {
    printTable(page.data as never, [
      ['id', (m) => m.id],
      ['direction', (m) => m.direction],
      ['status', (m) => m.status],
      ['attempt', (m) => (m.direction === 'outbound' ? attemptStateOf(m.status) : '')],
      ['subject', (m) => terminalSafe(m.subject).slice(0, 60)],
    ]);
    if (page.next_cursor) out(`more: --cursor ${page.next_cursor}`);
  }
  return EXIT.ok;
}

/**
 * `cancel`, `retry` (an operator's retry of a `failed` message whose failure was not a refusal,
 * docs/guides/sending.md), `approve` and `reject` (a person's decision on a `pending_approval`
 * send, docs/guides/sending.md › Approval before a send): one POST on the message, the message back.
 */
export function messageAction(action: 'cancel' | 'retry' | 'approve' | 'reject') {
  const done = { cancel: 'canceled', retry: 'retried', approve: 'approved', reject: 'rejected' }[action];
  return async (ctx: Ctx): Promise<number> => {
    const { api, identity } = mailOf(ctx);
    const params = { path: { identity_id: identity, message_id: ctx.args[0] } };
    const m =
      action === 'cancel'
        ? await api.messages.cancel(identity, ctx.args[0])
        : await call(
            api.http.POST(`/v1/identities/{identity_id}/messages/{message_id}/${action}`, { params }),
          );
    if (ctx.opts.json) printJson(m);
    else {
      out(`${done}: ${m.id}`);
      printMessage(m);
    }
    return EXIT.ok;
  };
}

export async function resolveCommand(ctx: Ctx): Promise<number> {
  const { api, identity } = mailOf(ctx);
  const o = ctx.opts;
  const answer = await api.messages.resolve(
    identity,
    ctx.args[0],
    { outcome: o.outcome },
    { idempotencyKey: o.idempotencyKey ?? `pmail-${ulid()}` },
  );
  if (o.json) printJson(answer.data);
  else out(`resolved ${ctx.args[0]} as ${o.outcome}`);
  return EXIT.ok;
}

type FeedEvent = { id: string; type: string; created_at: string; data: any };

/** `pmail events [--follow]`: the tenant's event feed; `--follow` polls until Ctrl-C (exit 130). */
export async function eventsCommand(ctx: Ctx): Promise<number> {
  const o = ctx.opts;
  const api = apiFor(ctx);
  let after: string | undefined = o.after;
  let interrupted = false;
  let headed = false;
  process.once('SIGINT', () => {
    interrupted = true;
  });
  for (;;) {
    const page = (await call(
      api.http.GET('/v1/events', { params: { query: { after, limit: o.limit ?? 100 } } }),
    )) as {
      data: FeedEvent[];
      next_cursor: string | null;
    };
    if (!o.follow) {
      if (o.json) printJson(page);
      else printTable(page.data, EVENT);
      return EXIT.ok;
    }
    // Followed, the rows come as they happen: the heading once, the columns at fixed widths.
    if (!o.json && !headed) out(eventLine(EVENT_HEADING));
    headed = true;
    for (const e of page.data) out(o.json ? JSON.stringify(e) : eventLine(e));
    if (page.data.length) after = page.data[page.data.length - 1].id;
    if (page.next_cursor) continue;
    const until = Date.now() + Number(o.interval ?? 1) * 1000;
    while (Date.now() < until && !interrupted) await sleep(100);
    if (interrupted) return EXIT.interrupted;
  }
}

/** The columns of `pmail events`: when, what, its message, the event's id. */
const EVENT: Parameters<typeof printTable>[1] = [
  ['created', (e) => e.created_at],
  ['type', (e) => e.type],
  ['message', (e) => e.data?.message_id ?? ''],
  ['id', (e) => e.id],
];
const EVENT_HEADING = { created_at: 'CREATED', type: 'TYPE', data: { message_id: 'MESSAGE' }, id: 'ID' };
const eventLine = (e: Pick<FeedEvent, 'created_at' | 'type' | 'id'> & { data: { message_id?: string } }) =>
  `${e.created_at.padEnd(24)}  ${e.type.padEnd(22)}  ${String(e.data?.message_id ?? '-').padEnd(30)}  ${e.id}`;

/** Print a CLI error as a human block (or the envelope with `--json`), with the reply-attempt code. */
export function printCliError(e: CliError, json: boolean): void {
  if (e.envelope) {
    const x = e.envelope.error;
    if (json) {
      printJson(e.envelope);
      return;
    }
    const seed = x.details?.seed_code ? ` [${x.details.seed_code}]` : '';
    err(`error: ${x.code}${seed}: ${x.message}`);
    if (x.fix) err(`  fix: ${x.fix}`);
    if (x.request_id) err(`  request_id: ${x.request_id}`);
    return;
  }
  if (json)
    printJson({
      error: {
        code: 'cli_error',
        message: e.message,
        retryable: e.exit === EXIT.unavailable,
        request_id: null,
      },
    });
  else err(`error: ${e.message}`);
}
