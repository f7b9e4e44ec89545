import { EXIT } from './client.ts';
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
 * `pmail watch`: the identity's inbound messages as they are committed, over the event stream
 * (its `message.received` events, docs/guides/stream.md), until Ctrl-C (exit 130). `--after`: a
 * message id (the messages after it are read first, then the stream's) or an event id (the stream
 * resumes after it); default: what comes from now on. `--json`: one message per line.
 */
export async function watchCommand(ctx: Ctx): Promise<number> {
  const profile = profileOf(ctx);
  const { api, identity } = mailOf(ctx);
  const stop = new AbortController();
  process.once('SIGINT', () => stop.abort());
  const after: string | undefined = ctx.opts.after;
  const printed = new Set<string>();
  const print = async (id: string, m?: Row) => {
    if (printed.has(id)) return;
    printed.add(id);
    if (ctx.opts.json) out(JSON.stringify(await api.messages.get(identity, id)));
    else out(inboundLine(m ?? (await api.messages.get(identity, id))));
  };
  let opened!: () => void;
  const open = new Promise<void>((r) => {
    opened = r;
  });
  const local = profile.local?.stream && profile.local.api === profile.api ? profile.local.stream : undefined;
  const held: Row[] = [];
  let caughtUp = !after?.startsWith('msg_');
  const events = api.stream({
    identityId: identity,
    types: ['message.received'],
    ...(after?.startsWith('evt_') ? { after } : {}),
    ...(local ? { url: local } : {}),
    signal: stop.signal,
    onOpen: opened,
  });
  const live = (async () => {
    for await (const e of events) {
      const m = { ...e.data, id: e.data.message_id } as Row;
      if (caughtUp) await print(m.id, m);
      else held.push(m);
    }
  })();
  await Promise.race([open, live]);
  if (!caughtUp) await catchUp(api, identity, after!, print);
  caughtUp = true;
  for (const m of held.splice(0)) await print(m.id, m);
  await live.catch((err) => {
    if (!stop.signal.aborted) throw err;
  });
  return EXIT.interrupted;
}

/** The inbound messages committed after `after` (a message id), oldest first, until none is left. */
async function catchUp(
  api: ReturnType<typeof mailOf>['api'],
  identity: string,
  after: string,
  print: (id: string, m: Row) => Promise<void>,
) {
  for (let cursor: string | undefined = after; cursor; ) {
    const page: { data: Row[]; after?: string } = await api.messages.list(identity, {
      direction: 'inbound',
      after: cursor,
    } as never);
    for (const m of page.data) await print(m.id, m);
    cursor = page.data.length > 0 ? page.after : undefined;
  }
}
