import { EXIT, sleep } from './client.ts';
import { apiFor, type Ctx, call, identityOf, profileOf } from './context.ts';
import { printTable } from './control.ts';
import { out, printJson, terminalSafe } from './io.ts';

/**
 * Reading an identity's mail: `pmail inbox` (its inbound messages, newest first), `pmail watch`
 * (each new one as it comes, until Ctrl-C) and `pmail threads` (its conversations); one message's
 * or one conversation's text is bin/cli/read.ts. Addresses, subjects
 * and snippets are email content: untrusted, shown only through terminalSafe.
 */

type Row = Record<string, any>;
const safe = (v: unknown) => terminalSafe(String(v ?? ''));
const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

function mailOf(ctx: Ctx) {
  const profile = profileOf(ctx);
  return { api: apiFor(ctx, profile), identity: identityOf(profile) };
}

const more = (page: { next_cursor?: string | null }) =>
  page.next_cursor && out(`more: --cursor ${page.next_cursor}`);

export async function inboxCommand(ctx: Ctx): Promise<number> {
  const { api, identity } = mailOf(ctx);
  const page = await api.messages.list(identity, {
    direction: 'inbound',
    limit: ctx.opts.limit,
    cursor: ctx.opts.cursor,
  } as never);
  if (ctx.opts.json) printJson(page);
  else {
    printTable(page.data as Row[], [
      ['id', (m) => m.id],
      ['received', (m) => m.received_at],
      ['from', (m) => clip(safe(m.from?.address), 40)],
      ['subject', (m) => clip(safe(m.subject), 60)],
    ]);
    more(page);
  }
  return EXIT.ok;
}

export async function threadsCommand(ctx: Ctx): Promise<number> {
  const { api, identity } = mailOf(ctx);
  const page = await call(
    api.http.GET('/v1/identities/{identity_id}/threads', {
      params: { path: { identity_id: identity }, query: { limit: ctx.opts.limit, cursor: ctx.opts.cursor } },
    }),
  );
  if (ctx.opts.json) printJson(page);
  else {
    printTable(page.data, [
      ['id', (t) => t.id],
      ['last', (t) => t.last_message_at],
      ['messages', (t) => t.message_count],
      ['subject', (t) => clip(safe(t.subject), 60)],
    ]);
    more(page);
  }
  return EXIT.ok;
}

const inboundLine = (m: Row) =>
  `${m.received_at}  ${clip(safe(m.from?.address), 40)}  ${clip(safe(m.subject), 60)}  ${m.id}`;

/**
 * `pmail watch`: the identity's inbound messages committed after `--after` (default: its newest at
 * start), in commit order, read on with the answer's `after` every `--interval` seconds until Ctrl-C
 * (exit 130). `--json`: one message per line.
 */
export async function watchCommand(ctx: Ctx): Promise<number> {
  const { api, identity } = mailOf(ctx);
  let interrupted = false;
  process.once('SIGINT', () => {
    interrupted = true;
  });
  let after: string | undefined = ctx.opts.after;
  if (after === undefined)
    after = (await api.messages.list(identity, { direction: 'inbound', limit: 1 })).data[0]?.id;
  const print = (m: Row) => out(ctx.opts.json ? JSON.stringify(m) : inboundLine(m));
  for (;;) {
    // No message yet to read on from: the first ones, oldest first, become the starting point.
    const page: { data: unknown[]; after?: string } = after
      ? await api.messages.list(identity, { direction: 'inbound', after } as never)
      : await api.messages.list(identity, { direction: 'inbound', limit: 100 });
    const messages = (after ? page.data : [...page.data].reverse()) as Row[];
    for (const m of messages) print(m);
    after = (after ? page.after : undefined) ?? messages.at(-1)?.id ?? after;
    const until = Date.now() + Number(ctx.opts.interval ?? 1) * 1000;
    while (Date.now() < until && !interrupted) await sleep(100);
    if (interrupted) return EXIT.interrupted;
  }
}
