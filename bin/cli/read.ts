import { attemptStateOf } from '../../functions/core/reply-attempt.ts';
import { FOLLOW_UP_NOTES, followUpState } from '../../functions/core/unless-reply.ts';
import { EXIT } from './client.ts';
import { apiFor, type Ctx, call, identityOf, profileOf } from './context.ts';
import { out, printJson, terminalSafe } from './io.ts';

/**
 * Reading mail's text in the terminal (docs/guides/cli.md › Reading mail): `pmail read <message>`
 * prints one message's headers and its text — a received message's new text (its extracted text),
 * `--full` the whole of it; a sent message's text as it went out — and `pmail thread <id>` the
 * conversation's text in order, sent beside received, under the API's text budget. Everything from
 * a message (names, addresses, subjects, text) is email content: untrusted, printed only through
 * terminalSafe. A received message shows no send attempt: it was never sent.
 */

type Message = Record<string, any>;
const safe = (v: unknown) => terminalSafe(String(v ?? ''));
const mailbox = (m: { address: string; name: string | null }) =>
  m.name ? `${safe(m.name)} <${safe(m.address)}>` : safe(m.address);
const mailboxes = (list: Message[] | undefined) => (list ?? []).map((m) => mailbox(m as never)).join(', ');

function mailOf(ctx: Ctx) {
  const profile = profileOf(ctx);
  return { api: apiFor(ctx, profile), identity: identityOf(profile) };
}

/** The lines above a message's text: who, when, what, and for a sent message where it stands. */
function headerLines(m: Message): string[] {
  const sent = m.direction === 'outbound';
  const follow = followUpState(m as never);
  return [
    `From:    ${mailbox(m.from)}`,
    `To:      ${mailboxes(m.to)}`,
    ...(m.cc?.length ? [`Cc:      ${mailboxes(m.cc)}`] : []),
    `Date:    ${sent ? (m.sent_at ?? m.received_at) : m.received_at}`,
    `Subject: ${safe(m.subject)}`,
    ...(sent
      ? [
          `Status:  ${m.status}${m.status_reason ? ` (${m.status_reason})` : ''}, attempt ${attemptStateOf(m.status)}`,
        ]
      : [`Received: ${m.status}${m.flags?.length ? ` [${m.flags.join(', ')}]` : ''}`]),
    ...(m.send_at && m.status === 'queued' ? [`Send at: ${m.send_at}`] : []),
    ...(follow ? [FOLLOW_UP_NOTES[follow]] : []),
    ...(m.attachments ?? []).map(
      (a: Message) =>
        `Attached: ${a.id} ${safe(a.filename ?? '(no name)')} ${a.content_type} ${a.size} B${a.risky ? ` (risky: ${a.risk})` : ''}`,
    ),
  ];
}

/** The text a view gives, or why there is none. */
function bodyLines(m: Message, text: string | null): string[] {
  if (m.body_withheld)
    return [`(no body shown: ${m.body_withheld} — a transactional template's message once final)`];
  if (text === null || text === undefined) return ['(no text)'];
  return terminalSafe(text).split('\n');
}

/** `pmail read <message>`: a received message's new text (`--full`: all of it), a sent one's text. */
export async function readCommand(ctx: Ctx): Promise<number> {
  const { api, identity } = mailOf(ctx);
  const m: Message = await api.messages.get(identity, ctx.args[0]);
  if (ctx.opts.json) {
    printJson(m);
    return EXIT.ok;
  }
  const received = m.direction === 'inbound';
  const text = received && !ctx.opts.full ? (m.extracted_text ?? m.text) : m.text;
  for (const line of headerLines(m)) out(line);
  out('');
  for (const line of bodyLines(m, text)) out(line);
  if (received && !ctx.opts.full && m.text !== null && m.text !== text)
    out(`\n(quoted history and signature left out: pmail read ${m.id} --full)`);
  return EXIT.ok;
}

/**
 * `pmail thread <id>`: the conversation's text, oldest first, each message under a line saying who
 * wrote it and when; received messages as their new text (`--full`: whole, while the budget allows),
 * under `--max-chars` (the API's default without it). A budget that left messages out says so.
 */
export async function threadTextCommand(ctx: Ctx): Promise<number> {
  const { api, identity } = mailOf(ctx);
  const query = {
    text: ctx.opts.full ? 'whole' : 'extracted',
    ...(ctx.opts.maxChars ? { max_chars: ctx.opts.maxChars } : {}),
  } as const;
  const thread = await call(
    api.http.GET('/v1/identities/{identity_id}/threads/{thread_id}', {
      params: { path: { identity_id: identity, thread_id: ctx.args[0] }, query },
    }),
  );
  if (ctx.opts.json) {
    printJson(thread);
    return EXIT.ok;
  }
  out(`${thread.id}: ${safe(thread.subject)} (${thread.message_count} messages)`);
  const b = thread.text_budget;
  if (b.messages_omitted > 0)
    out(
      `(${b.messages_omitted} older message${b.messages_omitted === 1 ? '' : 's'} left out to fit ${b.max_chars} characters: --max-chars for more)`,
    );
  for (const m of thread.messages as Message[]) {
    const arrow = m.direction === 'outbound' ? 'sent' : 'received';
    const state =
      m.direction === 'outbound' ? `  ${m.status}${m.status_reason ? ` (${m.status_reason})` : ''}` : '';
    out('');
    out(
      `── ${arrow} ${m.direction === 'outbound' ? m.sent_at : m.received_at}  ${mailbox(m.from)} → ${mailboxes(m.to)}${state}  ${m.id}`,
    );
    const follow = followUpState(m as never);
    if (follow) out(FOLLOW_UP_NOTES[follow]);
    for (const line of bodyLines(m, m.text)) out(`   ${line}`);
    if (m.text_form === 'cut') out('   (cut to fit: pmail read for the whole message)');
  }
  if (thread.messages_truncated) out('\n(older messages left out: pmail list has them all)');
  return EXIT.ok;
}
