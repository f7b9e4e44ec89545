import { EXIT } from './client.ts';
import { apiFor, type Ctx, call, identityOf, profileOf } from './context.ts';
import { printTable } from './control.ts';
import { out, printJson, terminalSafe } from './io.ts';

/**
 * Mail held back from an identity's agent (docs/guides/receiving.md › Held mail): `pmail held list`
 * (newest first, with why each is held and what the identity holds against its caps),
 * `pmail held release <id>` (the agent reads it from then on) and `pmail held delete <id>`. They
 * need a key holding `messages:hold`. Senders and subjects are mail from outside: untrusted, shown
 * only through terminalSafe.
 */
type Row = Record<string, any>;
const safe = (v: unknown) => terminalSafe(String(v ?? ''));
const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

function heldOf(ctx: Ctx) {
  const profile = profileOf(ctx);
  return { api: apiFor(ctx, profile), identity: identityOf(profile) };
}

export async function heldListCommand(ctx: Ctx): Promise<number> {
  const { api, identity } = heldOf(ctx);
  const page = await call(
    api.http.GET('/v1/identities/{identity_id}/held', {
      params: { path: { identity_id: identity }, query: { limit: ctx.opts.limit, cursor: ctx.opts.cursor } },
    }),
  );
  if (ctx.opts.json) {
    printJson(page);
    return EXIT.ok;
  }
  printTable(page.data as Row[], [
    ['id', (m) => m.id],
    ['received', (m) => m.received_at],
    ['reason', (m) => m.held?.reason ?? ''],
    ['authenticated', (m) => (m.inbound?.trust?.authenticated ? 'yes' : 'no')],
    ['from', (m) => clip(safe(m.from?.address), 40)],
    ['subject', (m) => clip(safe(m.subject), 50)],
  ]);
  const h = page.held;
  out(
    `held: ${h.count} of ${h.caps.count}, ${h.bytes} of ${h.caps.bytes} bytes; dropped past the caps: ${h.dropped}`,
  );
  if (page.next_cursor) out(`more: --cursor ${page.next_cursor}`);
  return EXIT.ok;
}

/** `pmail held release <id>` and `pmail held delete <id>`. */
export function heldAction(action: 'release' | 'delete') {
  return async (ctx: Ctx): Promise<number> => {
    const { api, identity } = heldOf(ctx);
    const params = { path: { identity_id: identity, message_id: ctx.args[0] } };
    if (action === 'delete') {
      await call(api.http.DELETE('/v1/identities/{identity_id}/messages/{message_id}', { params }));
      if (ctx.opts.json) printJson({ id: ctx.args[0], deleted: true });
      else out(`deleted: ${ctx.args[0]}`);
      return EXIT.ok;
    }
    const m = await call(
      api.http.POST('/v1/identities/{identity_id}/messages/{message_id}/release', { params }),
    );
    if (ctx.opts.json) printJson(m);
    else out(`released: ${m.id} (${clip(safe(m.subject), 60)})`);
    return EXIT.ok;
  };
}
