import type { Command } from 'commander';
import { errorFromResponse } from '../../packages/client/src/errors.ts';
import type { Pmail } from '../../packages/client/src/index.ts';
import { apiOf, CliError, EXIT, type Profile, type ProfileFlags, resolveProfile } from './client.ts';
import { err, io } from './io.ts';

/** The flags every API command takes (bin/cli/program.ts › withProfile). */
export interface CommonFlags extends ProfileFlags {
  json?: boolean;
  tenant?: string;
}

/** What a command's action gets: its positional arguments, its flags, and the commander command. */
export interface Ctx<F = Record<string, any>> {
  args: string[];
  opts: F & CommonFlags;
  command: Command;
}

export type Action = (ctx: Ctx) => Promise<number>;

export const profileOf = (ctx: Ctx): Profile => resolveProfile(ctx.opts, io.env);

/** The client for this invocation; resends are told on stderr in human mode. */
export function apiFor(ctx: Ctx, profile: Profile = profileOf(ctx)): Pmail {
  return apiOf(profile, {
    onRetry: (line) => ctx.opts.json || err(line),
  });
}

export function identityOf(profile: Profile): string {
  if (!profile.identity)
    throw new CliError(EXIT.usage, 'no identity: pass --identity <idn_…> or set PMAIL_IDENTITY');
  return profile.identity;
}

/**
 * The list filters and a page's size and cursor from their flags (bin/cli/program.ts ›
 * withFilters), as the API's query parameters: what `list` and `search` send.
 */
export function filterQueryOf(o: Ctx['opts']): Record<string, string | number | undefined> {
  return {
    direction: o.direction,
    limit: o.limit,
    cursor: o.cursor,
    label: o.label,
    from: o.from,
    to: o.to,
    subject: o.subject,
    since: o.since,
    until: o.until,
    has_attachment: o.hasAttachment === undefined ? undefined : String(o.hasAttachment),
  };
}

/** `--tenant`, else the key's own tenant (GET /v1/me); a platform key has none and must pass it. */
export async function tenantOf(ctx: Ctx, api: Pmail): Promise<string> {
  if (ctx.opts.tenant) return ctx.opts.tenant;
  const me = (await call(api.http.GET('/v1/me'))) as { tenant_id?: string | null };
  if (!me.tenant_id) throw new CliError(EXIT.usage, 'this key belongs to no tenant: pass --tenant <ten_…>');
  return me.tenant_id;
}

/** The body of an openapi-fetch answer, or its PmailError (for routes the client has no method for). */
export async function call<R extends { data?: unknown; error?: unknown; response: Response }>(
  p: Promise<R>,
): Promise<any> {
  const r = await p;
  if (!r.response.ok) throw errorFromResponse(r.response, r.error);
  return r.data ?? null;
}
