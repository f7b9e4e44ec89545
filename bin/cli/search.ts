import { decodeTime } from 'ulid';
import type { Highlight, SearchHit } from '../../packages/client/src/index.ts';
import { EXIT } from './client.ts';
import { apiFor, type Ctx, filterQueryOf, identityOf, profileOf, tenantOf } from './context.ts';
import { out, printJson, terminalSafe } from './io.ts';

/**
 * `pmail search <query…>` (docs/guides/cli.md › Searching mail): one page of the hits of a
 * full-text search, newest first, each as a line (date, sender, subject, id) and the passage it
 * matched in, the matches marked «like this». `--tenant` searches every identity of the tenant.
 * Everything printed but the ids and dates is mail text: untrusted, shown through terminalSafe on
 * one line, so a message cannot move the cursor, recolour the terminal or forge a line.
 */

/** Mail text on one line: control characters replaced, every run of whitespace one space. */
const oneLine = (s: string) => terminalSafe(s.replace(/\s+/g, ' '));
const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/** The highlight's passage on one line with each match between « and ». */
export function markedPassage(h: Highlight): string {
  const text = String(h.text ?? '');
  let at = 0;
  let line = '';
  const matches = [...(h.matches ?? [])].sort((a, b) => a.start - b.start);
  for (const m of matches) {
    const start = Math.max(at, Math.min(m.start, text.length));
    const end = Math.max(start, Math.min(m.end, text.length));
    if (end === start) continue;
    line += `${oneLine(text.slice(at, start))}«${oneLine(text.slice(start, end))}»`;
    at = end;
  }
  return (line + oneLine(text.slice(at))).trim();
}

const sender = (m: SearchHit) => {
  const from = m.from ?? {};
  return oneLine(from.name ? `${from.name} <${from.address}>` : String(from.address ?? ''));
};

/** When a message was received or sent; else when it was written (its id is a ULID, time first). */
const dateOf = (m: SearchHit) =>
  m.received_at ??
  m.sent_at ??
  new Date(decodeTime(m.id.slice(m.id.indexOf('_') + 1).toUpperCase())).toISOString();

/** One hit: its date, sender, subject and id (and identity, tenant-wide), then where it matched. */
function printHit(m: SearchHit, tenantWide: boolean): void {
  const head = [
    dateOf(m),
    clip(sender(m), 50),
    clip(oneLine(String(m.subject ?? '')), 70) || '(no subject)',
    m.id,
    tenantWide ? m.identity_id : undefined,
  ];
  out(head.filter((v) => v !== undefined).join('  '));
  if (m.highlight) out(`    ${m.highlight.field}: ${markedPassage(m.highlight)}`);
}

export async function searchCommand(ctx: Ctx): Promise<number> {
  const q = ctx.args.join(' ');
  const profile = profileOf(ctx);
  const api = apiFor(ctx, profile);
  const o = ctx.opts;
  const tenantWide = o.tenant !== undefined;
  const query = filterQueryOf(o) as never;
  const page = tenantWide
    ? await api.tenants.searchMessages(
        typeof o.tenant === 'string'
          ? o.tenant
          : await tenantOf({ ...ctx, opts: { ...o, tenant: undefined } }, api),
        q,
        query,
      )
    : await api.messages.search(identityOf(profile), q, query);
  if (o.json) printJson(page);
  else {
    if (page.data.length === 0) out('no messages found');
    for (const m of page.data) printHit(m, tenantWide);
    if (page.next_cursor) out(`more: --cursor ${page.next_cursor}`);
  }
  return EXIT.ok;
}
