import { readFileSync } from 'node:fs';
import { PERMISSIONS, permissionsOf } from '../../functions/core/keys.ts';
import type { KeyLevel } from '../../functions/core/model.ts';
import { CliError, EXIT } from './client.ts';
import { type Action, apiFor, type Ctx, call, tenantOf } from './context.ts';
import { out, printJson, terminalSafe } from './io.ts';

/**
 * The control-plane commands of `pmail` (tenants, identities, keys, domains, webhooks,
 * suppressions, templates), each one call of @pmail/client. A list prints one aligned row per item,
 * a single object its main fields one per line; `--json` prints the API's document as it is.
 */

type Row = Record<string, any>;
/** A column: its heading and how a row shows in it. */
type Column = [heading: string, cell: (x: Row) => unknown];

const col =
  (field: string): Column[1] =>
  (x) =>
    x[field];

const TENANT: Column[] = [
  ['id', col('id')],
  ['slug', col('slug')],
  ['mode', col('mode')],
  ['status', col('status')],
  ['name', col('name')],
];
const IDENTITY: Column[] = [
  ['id', col('id')],
  ['address', col('primary_address')],
  ['status', col('status')],
  ['name', col('display_name')],
];
const KEY: Column[] = [
  ['id', col('id')],
  ['level', col('level')],
  ['status', col('status')],
  ['name', col('name')],
  ['expires', col('expires_at')],
];
const DOMAIN: Column[] = [
  ['id', col('id')],
  ['name', col('name')],
  ['state', col('state')],
  ['transport', col('transport')],
];
const WEBHOOK: Column[] = [
  ['id', col('id')],
  ['url', col('url')],
  ['status', col('status')],
  ['events', (x) => (x.event_types ?? []).join(',') || 'all'],
];
const SUPPRESSION: Column[] = [
  // pmail keeps an HMAC of a suppressed address, never the address: the API shows its hint.
  ['address', (x) => x.address_hint],
  ['reason', col('reason')],
  ['created', col('created_at')],
  ['expires', col('expires_at')],
];
const TEMPLATE: Column[] = [
  ['name', col('name')],
  ['version', (x) => `v${x.version ?? ''}`],
  ['category', col('category')],
  ['kind', col('kind')],
];
const DNS: Column[] = [
  ['type', col('type')],
  ['name', col('name')],
  ['value', col('value')],
  ['', (x) => (x.required ? 'required' : 'suggested')],
];

const cell = (v: unknown) => terminalSafe(v === null || v === undefined ? '-' : String(v));

/** Rows under their headings, each column as wide as its widest cell. */
export function printTable(rows: Row[], columns: Column[]): void {
  const cells = rows.map((r) => columns.map(([, f]) => cell(f(r))));
  const widths = columns.map(([h], i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
  const line = (c: string[]) =>
    c
      .map((s, i) => s.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  out(line(columns.map(([h]) => h.toUpperCase())));
  for (const c of cells) out(line(c));
}

/** One object as `field: value` lines, then any of `extra` it has (a secret shown once). */
function printOne(doc: Row, columns: Column[], extra: string[] = []): void {
  const width = Math.max(...[...columns.map(([h]) => h), ...extra].map((h) => h.length)) + 1;
  for (const [h, f] of columns) if (h) out(`${`${h}:`.padEnd(width)} ${cell(f(doc))}`);
  for (const k of extra) if (doc[k] !== undefined) out(`${`${k}:`.padEnd(width)} ${cell(doc[k])}`);
}

/** Print an answer: `--json` as is; a list as a table (and its next cursor); else one object. */
function show(ctx: Ctx, doc: any, columns: Column[], extra?: string[]): number {
  if (ctx.opts.json) printJson(doc ?? { ok: true });
  else if (doc && Array.isArray(doc.data)) {
    printTable(doc.data, columns);
    if (doc.next_cursor) out(`more: --cursor ${doc.next_cursor}`);
  } else if (doc) printOne(doc, columns, extra);
  else out('done');
  return EXIT.ok;
}

/** An action that calls the API once and shows the answer with these columns. */
function shown(
  columns: Column[],
  run: (ctx: Ctx, api: ReturnType<typeof apiFor>) => Promise<unknown>,
  extra?: string[],
): Action {
  return async (ctx) => show(ctx, await run(ctx, apiFor(ctx)), columns, extra);
}

const keyed = async <T>(p: Promise<{ data: T }>) => (await p).data;
const idem = (ctx: Ctx) => ({ idempotencyKey: ctx.opts.idempotencyKey });
const first = (ctx: Ctx) => ctx.args[0];

export const tenants = {
  create: shown(TENANT, (ctx, api) => {
    const o = ctx.opts;
    const body = {
      slug: o.slug,
      name: o.name ?? o.slug,
      mode: o.mode,
      ...(o.timezone ? { timezone: o.timezone } : {}),
      ...(o.dailyCap || o.identityDailyCap
        ? { policy: { daily_send_cap: o.dailyCap, identity_daily_send_cap: o.identityDailyCap } }
        : {}),
    };
    return keyed(api.tenants.create(body, idem(ctx)));
  }),
  list: shown(TENANT, (_ctx, api) => api.tenants.list()),
  get: shown(TENANT, (ctx, api) => api.tenants.get(first(ctx))),
};

function identityBody(o: Ctx['opts']) {
  if ((o.ownerName === undefined) !== (o.ownerEmail === undefined))
    throw new CliError(EXIT.usage, 'give --owner-name and --owner-email together');
  return {
    username: o.username,
    ...(o.domain ? { domain: o.domain } : {}),
    ...(o.displayName ? { display_name: o.displayName } : {}),
    ...(o.ownerName ? { owner: { name: o.ownerName, email: o.ownerEmail } } : {}),
    ...(o.requireApproval ? { send_policy: { require_approval: true } } : {}),
  };
}

export const identities = {
  create: shown(IDENTITY, async (ctx, api) =>
    keyed(api.identities.create(await tenantOf(ctx, api), identityBody(ctx.opts), idem(ctx))),
  ),
  list: shown(IDENTITY, async (ctx, api) => api.identities.list(await tenantOf(ctx, api))),
  get: shown(IDENTITY, (ctx, api) => api.identities.get(first(ctx))),
  pause: shown(IDENTITY, (ctx, api) => api.identities.pause(first(ctx))),
  resume: shown(IDENTITY, (ctx, api) => api.identities.resume(first(ctx))),
};

/** `--permissions a,b` (checked here against pmail's list), else every permission of the level. */
function permissionsFor(level: KeyLevel, given: string | undefined) {
  if (given === undefined) return permissionsOf(level);
  const list = given
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  const unknown = list.filter((p) => !(PERMISSIONS as string[]).includes(p));
  if (unknown.length)
    throw new CliError(
      EXIT.usage,
      `unknown permission ${unknown.join(', ')}: one of ${PERMISSIONS.join(', ')}`,
    );
  return list as typeof PERMISSIONS;
}

async function keyBody(ctx: Ctx, api: ReturnType<typeof apiFor>) {
  const o = ctx.opts;
  const level = o.level as KeyLevel;
  if (level === 'identity' && !o.forIdentity)
    throw new CliError(EXIT.usage, 'an identity key needs --for-identity <idn_…>');
  return {
    name: o.name,
    level,
    permissions: permissionsFor(level, o.permissions),
    ...(level !== 'platform' ? { tenant_id: await tenantOf(ctx, api) } : {}),
    ...(level === 'identity' ? { identity_id: o.forIdentity } : {}),
    ...(o.expiresAt ? { expires_at: o.expiresAt } : {}),
    ...(o.sendsNeedApproval ? { sends_need_approval: true } : {}),
  };
}

export const keys = {
  create: shown(KEY, async (ctx, api) => keyed(api.keys.create(await keyBody(ctx, api), idem(ctx))), [
    'secret',
  ]),
  list: shown(KEY, (_ctx, api) => api.keys.list()),
  get: shown(KEY, (ctx, api) => api.keys.get(first(ctx))),
  revoke: async (ctx: Ctx) => {
    await apiFor(ctx).keys.revoke(first(ctx));
    if (ctx.opts.json) printJson({ id: first(ctx), revoked: true });
    else out(`revoked ${first(ctx)}`);
    return EXIT.ok;
  },
};

function domainBody(ctx: Ctx) {
  const o = ctx.opts;
  return {
    name: first(ctx),
    transport: o.transport,
    reply_token: o.replyToken,
    ...(o.mailFrom ? { mail_from: o.mailFrom } : {}),
  };
}

const domainPath = async (ctx: Ctx, api: ReturnType<typeof apiFor>) => ({
  tenant_id: await tenantOf(ctx, api),
  domain_id: first(ctx),
});

export const domains = {
  add: shown(DOMAIN, async (ctx, api) => api.domains.add(await tenantOf(ctx, api), domainBody(ctx) as never)),
  list: shown(DOMAIN, async (ctx, api) => api.domains.list(await tenantOf(ctx, api))),
  get: shown(DOMAIN, async (ctx, api) => api.domains.get(await tenantOf(ctx, api), first(ctx))),
  verify: shown([...DOMAIN, ['reason', col('state_reason')]], async (ctx, api) =>
    api.domains.verify(await tenantOf(ctx, api), first(ctx)),
  ),
  /** The records to publish: a table (`--json`: the records array). */
  dns: async (ctx: Ctx) => {
    const api = apiFor(ctx);
    const records = await api.domains.dns(await tenantOf(ctx, api), first(ctx));
    if (ctx.opts.json) printJson(records);
    else printTable(records as Row[], DNS);
    return EXIT.ok;
  },
  delete: shown(DOMAIN, async (ctx, api) =>
    call(
      api.http.DELETE('/v1/tenants/{tenant_id}/domains/{domain_id}', {
        params: { path: await domainPath(ctx, api) },
      }),
    ),
  ),
};

export const webhooks = {
  add: shown(
    WEBHOOK,
    (ctx, api) =>
      api.webhooks.add({
        url: first(ctx),
        ...(ctx.opts.event ? { event_types: ctx.opts.event } : {}),
        ...(ctx.opts.description ? { description: ctx.opts.description } : {}),
      }),
    ['secret'],
  ),
  list: shown(WEBHOOK, (_ctx, api) => api.webhooks.list()),
  get: shown(WEBHOOK, (ctx, api) => api.webhooks.get(first(ctx))),
  /** A test delivery to the endpoint (POST /v1/webhooks/{id}/test), its outcome back. */
  test: async (ctx: Ctx) => {
    const api = apiFor(ctx);
    const post = api.http.POST as unknown as (path: string, init: unknown) => Promise<any>;
    const doc = await call(
      post('/v1/webhooks/{webhook_id}/test', { params: { path: { webhook_id: first(ctx) } } }),
    );
    if (ctx.opts.json) printJson(doc);
    else
      out(
        `test delivery to ${first(ctx)}: ${Object.entries(doc ?? {})
          .map(([k, v]) => `${k}=${cell(v)}`)
          .join(' ')}`,
      );
    return EXIT.ok;
  },
  delete: async (ctx: Ctx) => {
    await apiFor(ctx).webhooks.delete(first(ctx));
    if (ctx.opts.json) printJson({ id: first(ctx), deleted: true });
    else out(`deleted ${first(ctx)}`);
    return EXIT.ok;
  },
};

export const suppressions = {
  add: shown(SUPPRESSION, async (ctx, api) =>
    api.suppressions.add(await tenantOf(ctx, api), {
      address: first(ctx),
      reason: ctx.opts.reason,
      ...(ctx.opts.expiresAt ? { expires_at: ctx.opts.expiresAt } : {}),
    }),
  ),
  list: shown(SUPPRESSION, async (ctx, api) =>
    api.suppressions.list(await tenantOf(ctx, api), {
      limit: ctx.opts.limit,
      cursor: ctx.opts.cursor,
    } as never),
  ),
  remove: async (ctx: Ctx) => {
    const api = apiFor(ctx);
    await api.suppressions.remove(await tenantOf(ctx, api), first(ctx));
    if (ctx.opts.json) printJson({ address: first(ctx), removed: true });
    else out(`removed ${first(ctx)}`);
    return EXIT.ok;
  },
};

/** A template's JSON file (`--file`), read and parsed here so a bad file never reaches the API. */
function templateFile(path: string): Record<string, unknown> {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new CliError(EXIT.usage, `--file ${path}: ${e instanceof SyntaxError ? 'not JSON' : 'unreadable'}`);
  }
}

const TEMPLATES = '/v1/tenants/{tenant_id}/templates';
const TEMPLATE_ONE = '/v1/tenants/{tenant_id}/templates/{name}';

export const templates = {
  list: shown(TEMPLATE, async (ctx, api) =>
    call(api.http.GET(TEMPLATES, { params: { path: { tenant_id: await tenantOf(ctx, api) } } })),
  ),
  get: shown(TEMPLATE, async (ctx, api) =>
    call(
      api.http.GET(TEMPLATE_ONE, {
        params: { path: { tenant_id: await tenantOf(ctx, api), name: first(ctx) } },
      }),
    ),
  ),
  /** PUT makes a new version of a template that exists; the first version is a POST with its name. */
  put: shown(TEMPLATE, async (ctx, api) => {
    const body = templateFile(ctx.opts.file) as never;
    const path = { tenant_id: await tenantOf(ctx, api), name: first(ctx) };
    const r = await api.http.PUT(TEMPLATE_ONE, { params: { path }, body });
    if (r.response.status !== 404 || (r.error as any)?.error?.code !== 'template_not_found')
      return call(Promise.resolve(r));
    return call(
      api.http.POST(TEMPLATES, {
        params: { path: { tenant_id: path.tenant_id } },
        body: { ...(body as object), name: path.name } as never,
      }),
    );
  }),
  delete: shown(TEMPLATE, async (ctx, api) =>
    call(
      api.http.DELETE(TEMPLATE_ONE, {
        params: { path: { tenant_id: await tenantOf(ctx, api), name: first(ctx) } },
      }),
    ),
  ),
};
