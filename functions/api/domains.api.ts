import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { z } from 'zod';
import {
  CLOUDFLARE_UNCHECKED,
  DOMAIN_ID_PATTERN,
  DOMAIN_NAME_PATTERN,
  SMTP_PROBE_PENDING,
  sesDnsRecords,
  toDomainView,
} from '../core/domains.ts';
import {
  invalidRequest,
  PmailError,
  relayCredentialsUnavailable,
  routeNotFound,
  tenantNotFound,
} from '../core/errors.ts';
import type { ApiKeyRecord, DomainRecord, SmtpDomainSettings } from '../core/model.ts';
import { RELAY_HOST_PATTERN, relayPortAllowed, relayTargetAllowed } from '../core/relay-address.ts';
import type { Deps } from '../deps.ts';
import { busy, checkDomain, type DomainCheckPorts, removeDomain } from '../domains/lifecycle.ts';
import { createDomain, getTenantDomain, listTenantDomains, saveDomain } from '../store/domains.store.ts';
import { smtpSecretName, writeSmtpSecret } from '../store/relay-secrets.store.ts';
import { authenticate, type Permission, requirePermission } from './auth.ts';
import { bodyOf, header, json, routeGroup } from './http.ts';
import { parseBody } from './parse.ts';

const SES_REGION = /^[a-z]{2}(-[a-z]+)+-\d$/;
const CONFIGURATION_SET = /^[A-Za-z0-9_-]{1,64}$/;
const CLOUDFLARE_ACCOUNT = /^[0-9a-f]{32}$/;

/**
 * The `smtp` settings of a domain (docs/guides/domains.md). `password` / `access_token` are
 * write-only: stored in the domain's secret (functions/store/relay-secrets.store.ts), never kept on
 * the domain, never answered, never logged.
 */
const smtpSettingsSchema = z.strictObject({
  host: z
    .string()
    .min(1)
    .max(253)
    .transform((s) => s.toLowerCase())
    .pipe(z.string().regex(RELAY_HOST_PATTERN)),
  /** 25, 465, 587 or 2525: checked with the SSRF rules (checkRelayHost), lifted only locally. */
  port: z.number().int().min(1).max(65535),
  tls: z.enum(['implicit', 'starttls']).optional(),
  username: z.string().min(1).max(256).optional(),
  auth: z.enum(['password', 'xoauth2']).optional(),
  password: z.string().min(1).max(1024).optional(),
  access_token: z.string().min(1).max(4096).optional(),
});
type SmtpSettingsBody = z.output<typeof smtpSettingsSchema>;

/** The secret fields fit the auth mode; `requireSecret`: a username needs its secret (create). */
function checkSmtpSecret(smtp: SmtpSettingsBody, ctx: z.RefinementCtx, requireSecret: boolean): void {
  const xoauth2 = smtp.auth === 'xoauth2';
  if (xoauth2 && smtp.password !== undefined)
    ctx.addIssue({ code: 'custom', path: ['smtp', 'password'], message: 'auth xoauth2 takes access_token' });
  if (!xoauth2 && smtp.access_token !== undefined)
    ctx.addIssue({ code: 'custom', path: ['smtp', 'access_token'], message: 'needs auth xoauth2' });
  const secret = xoauth2 ? smtp.access_token : smtp.password;
  if (secret !== undefined && smtp.username === undefined)
    ctx.addIssue({ code: 'custom', path: ['smtp', 'username'], message: 'required with credentials' });
  if (requireSecret && smtp.username !== undefined && secret === undefined)
    ctx.addIssue({
      code: 'custom',
      path: ['smtp', xoauth2 ? 'access_token' : 'password'],
      message: 'required with a username',
    });
}

/** POST /v1/tenants/{tenant_id}/domains (openapi.yaml DomainCreateRequest). */
export const createDomainSchema = z
  .strictObject({
    name: z
      .string()
      .min(4)
      .max(253)
      .transform((s) => s.toLowerCase())
      .pipe(z.string().regex(DOMAIN_NAME_PATTERN)),
    transport: z.enum(['ses', 'smtp', 'cloudflare']),
    reply_token: z.enum(['subaddress', 'none']).default('subaddress'),
    /** The custom MAIL FROM domain, a subdomain of `name` (e.g. `pm-bounce.example.com`); SES only. */
    mail_from: z
      .string()
      .max(253)
      .transform((s) => s.toLowerCase())
      .pipe(z.string().regex(DOMAIN_NAME_PATTERN))
      .optional(),
    ses: z
      .strictObject({
        region: z.string().regex(SES_REGION).optional(),
        configuration_set: z.string().regex(CONFIGURATION_SET).optional(),
      })
      .optional(),
    smtp: smtpSettingsSchema.optional(),
    cloudflare: z.strictObject({ account_id: z.string().regex(CLOUDFLARE_ACCOUNT).optional() }).optional(),
  })
  .superRefine((b, ctx) => {
    if (b.mail_from && !b.mail_from.endsWith(`.${b.name}`))
      ctx.addIssue({ code: 'custom', path: ['mail_from'], message: 'must be a subdomain of name' });
    // Each transport takes its own settings only.
    for (const t of ['ses', 'smtp', 'cloudflare'] as const) {
      if (b[t] !== undefined && b.transport !== t)
        ctx.addIssue({ code: 'custom', path: [t], message: `only with transport ${t}` });
    }
    if (b.mail_from !== undefined && b.transport !== 'ses')
      ctx.addIssue({ code: 'custom', path: ['mail_from'], message: 'only with transport ses' });
    if (b.transport === 'smtp') {
      if (!b.smtp) ctx.addIssue({ code: 'custom', path: ['smtp'], message: 'required with transport smtp' });
      else checkSmtpSecret(b.smtp, ctx, true);
    }
  });

/**
 * PATCH /v1/tenants/{tenant_id}/domains/{domain_id} (openapi.yaml DomainUpdateRequest). `smtp`
 * replaces the relay settings as a whole; a secret field replaces the stored secret, and without
 * one the stored secret is kept.
 */
export const updateDomainSchema = z
  .strictObject({
    reply_token: z.enum(['subaddress', 'none']).optional(),
    ses: z
      .strictObject({ configuration_set: z.string().regex(CONFIGURATION_SET).nullable().optional() })
      .optional(),
    smtp: smtpSettingsSchema.optional(),
    cloudflare: z
      .strictObject({ account_id: z.string().regex(CLOUDFLARE_ACCOUNT).nullable().optional() })
      .optional(),
  })
  .superRefine((b, ctx) => {
    if (b.smtp) checkSmtpSecret(b.smtp, ctx, false);
  });

export interface DomainsApiPorts extends DomainCheckPorts {
  /** The configuration set new SES identities join (the stack's; PMAIL_SES_CONFIGURATION_SET). */
  configurationSet?: string;
  /** Local only: the SES endpoint live domains created here send through (`npm start`'s local SES). */
  sesEndpoint?: string;
  /** The relay secrets' prefix (the stack name; PMAIL_SMTP_SECRET_PREFIX). */
  secretPrefix?: string;
  /**
   * Local runtime and tests only: accept relay hosts the SSRF rules refuse (the same opt-out as the
   * SMTP adapter's `allowLocalRelays`). @default false
   */
  allowLocalRelays?: boolean;
  /** Resolves a relay host to its addresses (default: the system resolver, all families). */
  resolve?: (host: string) => Promise<string[]>;
}

/**
 * The `domains` route group: a tenant's sending domains (docs/guides/domains.md:
 * SES, SMTP relay, Cloudflare). An `ses` domain gets its SES identity
 * (Easy DKIM, the configuration set) and the DNS records to publish; an `smtp` domain stores its
 * relay credentials write-only and stays `verifying` until the relay probe passes; a `cloudflare`
 * domain is `healthy` at once, unchecked (core/domains.ts › CLOUDFLARE_UNCHECKED). `…/verify` and
 * the scheduled check (functions/domains/lifecycle.ts) move the state; DELETE removes the SES
 * identity or the relay secret, after which nothing is sent from the domain. `domains:read` /
 * `domains:write`; identity keys may read only.
 */
export function domainsApi(deps: Deps, ports: DomainsApiPorts) {
  return routeGroup(deps, async ({ event, route, params, requestId }) => {
    const key = await authenticate(deps, header(event, 'authorization'));
    const reads = route.operation === 'listDomains' || route.operation === 'getDomain';
    const tenantId = tenantInScope(key, params.tenant_id, reads ? 'domains:read' : 'domains:write');
    const load = async () => {
      const d = DOMAIN_ID_PATTERN.test(params.domain_id ?? '')
        ? await getTenantDomain(deps.db, tenantId, params.domain_id)
        : undefined;
      if (!d) throw new PmailError('domain_not_found', 'No domain with this id in this tenant.');
      return d;
    };
    switch (route.operation) {
      case 'createDomain': {
        const body = parseBody(bodyOf(event), createDomainSchema);
        if (body.smtp) await checkRelayHost(ports, body.smtp);
        const now = deps.clock();
        const id = `dom_${deps.newId()}`;
        const common = {
          id,
          domain: body.name,
          tenant_id: tenantId,
          reply_token: body.reply_token,
          created_at: now,
          updated_at: now,
        };
        let domain: DomainRecord & { id: string };
        if (body.transport === 'smtp' && body.smtp) {
          // Verifying until the probe passes (POST …/verify, or the scheduled check).
          domain = {
            ...common,
            state: 'verifying',
            state_reason: SMTP_PROBE_PENDING,
            transport: 'smtp',
            smtp: relaySettings(body.smtp, hasSecret(body.smtp) ? secretName(ports, body.name) : undefined),
            dns_records: [],
          };
        } else if (body.transport === 'cloudflare') {
          domain = {
            ...common,
            state: 'healthy',
            state_reason: CLOUDFLARE_UNCHECKED,
            transport: 'cloudflare',
            cloudflare: body.cloudflare?.account_id ? { account_id: body.cloudflare.account_id } : {},
            dns_records: [],
          };
        } else {
          const onboarded = await ports.identities.create({
            domain: body.name,
            region: body.ses?.region,
            configurationSet: body.ses?.configuration_set ?? ports.configurationSet,
            mailFrom: body.mail_from,
          });
          domain = {
            ...common,
            state: 'verifying',
            state_reason: 'dkim_pending',
            transport: 'ses',
            ...(body.mail_from ? { mail_from: body.mail_from } : {}),
            ses: {
              region: onboarded.region,
              ...(body.ses?.configuration_set ? { configuration_set: body.ses.configuration_set } : {}),
              ...(ports.sesEndpoint ? { endpoint: ports.sesEndpoint } : {}),
            },
            dns_records: sesDnsRecords({
              domain: body.name,
              tokens: onboarded.tokens,
              signingHostedZone: onboarded.signingHostedZone,
              region: onboarded.region,
              mailFrom: body.mail_from,
              ...(ports.inboundRegion ? { inboundRegion: ports.inboundRegion } : {}),
            }),
          };
        }
        if ((await createDomain(deps.db, domain)) === 'exists') {
          throw new PmailError('domain_exists', 'This domain is already a sending domain of a tenant.', {
            details: { name: body.name },
          });
        }
        if (body.transport === 'smtp') {
          // The secret is written only once the name is this tenant's (never over another's).
          if (body.smtp && hasSecret(body.smtp)) await storeSecret(deps, ports, domain, body.smtp);
          return json(201, toDomainView(domain), requestId);
        }
        if (body.transport === 'cloudflare') return json(201, toDomainView(domain), requestId);
        // The first check at once: a domain whose records are already published starts healthy.
        const checked = await checkDomain(deps, ports, domain);
        return json(201, toDomainView(checked), requestId);
      }
      case 'listDomains': {
        const all = await listTenantDomains(deps.db, tenantId);
        return json(200, { data: all.map(toDomainView), next_cursor: null }, requestId);
      }
      case 'getDomain':
        return json(200, toDomainView(await load()), requestId);
      case 'updateDomain': {
        const body = parseBody(bodyOf(event), updateDomainSchema);
        const d = await load();
        if (d.state === 'removing' || d.state === 'removed') throw notFoundRemoved();
        for (const t of ['ses', 'smtp', 'cloudflare'] as const) {
          if (body[t] !== undefined && d.transport !== t) {
            throw invalidRequest([{ path: t, message: `only for a domain with transport ${t}` }]);
          }
        }
        if (body.smtp) await checkRelayHost(ports, body.smtp);
        const next: DomainRecord = {
          ...d,
          ...(body.reply_token ? { reply_token: body.reply_token } : {}),
          updated_at: Math.max(deps.clock(), (d.updated_at ?? 0) + 1),
        };
        if (d.transport === 'ses') {
          const ses = { ...d.ses };
          if (body.ses?.configuration_set === null) delete ses.configuration_set;
          else if (body.ses?.configuration_set) ses.configuration_set = body.ses.configuration_set;
          next.ses = ses;
        }
        if (body.cloudflare) {
          next.cloudflare =
            body.cloudflare.account_id === null || body.cloudflare.account_id === undefined
              ? {}
              : { account_id: body.cloudflare.account_id };
        }
        if (body.smtp) {
          // New relay settings must pass the probe again before anything is sent through them.
          const secretRef = hasSecret(body.smtp) ? secretName(ports, d.domain) : d.smtp?.secret_ref;
          next.smtp = relaySettings(body.smtp, secretRef);
          next.state = 'verifying';
          next.state_reason = SMTP_PROBE_PENDING;
          if (hasSecret(body.smtp)) await storeSecret(deps, ports, d, body.smtp);
        }
        if (!(await saveDomain(deps.db, next, d.updated_at))) throw busy();
        return json(200, toDomainView(next), requestId);
      }
      case 'verifyDomain': {
        const d = await load();
        if (d.state === 'removing' || d.state === 'removed') throw notFoundRemoved();
        return json(200, toDomainView(await checkDomain(deps, ports, d)), requestId);
      }
      case 'deleteDomain': {
        const d = await load();
        return json(200, toDomainView(await removeDomain(deps, ports, d)), requestId);
      }
      default:
        throw routeNotFound();
    }
  });
}

const hasSecret = (smtp: SmtpSettingsBody) =>
  (smtp.auth === 'xoauth2' ? smtp.access_token : smtp.password) !== undefined;

function secretName(ports: DomainsApiPorts, domain: string): string {
  if (!ports.secretPrefix || !ports.secrets) throw relayCredentialsUnavailable();
  return smtpSecretName(ports.secretPrefix, domain);
}

/** The settings kept on the domain: everything but the secret, which is only referenced. */
function relaySettings(smtp: SmtpSettingsBody, secretRef: string | undefined): SmtpDomainSettings {
  return {
    host: smtp.host,
    port: smtp.port,
    ...(smtp.tls ? { tls: smtp.tls } : {}),
    ...(smtp.username ? { username: smtp.username } : {}),
    ...(smtp.auth ? { auth: smtp.auth } : {}),
    ...(secretRef ? { secret_ref: secretRef } : {}),
  };
}

/** Write the domain's relay secret (write-only; the domain keeps `secret_ref`). */
async function storeSecret(
  deps: Pick<Deps, 'log'>,
  ports: DomainsApiPorts,
  d: DomainRecord,
  smtp: SmtpSettingsBody,
): Promise<void> {
  if (!ports.secrets || !ports.secretPrefix) throw relayCredentialsUnavailable();
  const secret = smtp.auth === 'xoauth2' ? { access_token: smtp.access_token } : { password: smtp.password };
  try {
    await writeSmtpSecret(ports.secrets, ports.secretPrefix, d.domain, secret);
  } catch (err) {
    deps.log.warn('relay secret not stored', { domain_id: d.id, error: String((err as Error)?.name) });
    throw new PmailError('unavailable', 'The relay credentials could not be stored; retry with PATCH.', {
      details: { reason: 'secret_store_unavailable' },
    });
  }
}

const defaultResolve = async (host: string): Promise<string[]> =>
  (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

/**
 * The SSRF rules at create and change time (core/relay-address.ts), so a refused relay fails early
 * with 400 and a path; the adapter checks again at every connection (DNS can change). A host that
 * does not resolve (ENOTFOUND) is refused too; a resolver failure is left to the probe.
 */
async function checkRelayHost(ports: DomainsApiPorts, smtp: SmtpSettingsBody): Promise<void> {
  if (ports.allowLocalRelays) return;
  const refuse = (message: string, path = 'smtp.host') =>
    new PmailError('invalid_request', 'The relay is not allowed.', {
      details: { errors: [{ path, message }] },
    });
  const port = relayPortAllowed(smtp.port);
  if (!port.ok) throw refuse(port.detail, 'smtp.port');
  let addresses: string[];
  if (isIP(smtp.host)) addresses = [smtp.host];
  else {
    try {
      addresses = await (ports.resolve ?? defaultResolve)(smtp.host);
    } catch (err) {
      if ((err as NodeJS.ErrnoException)?.code === 'ENOTFOUND')
        throw refuse('the relay host does not resolve');
      return;
    }
  }
  const check = relayTargetAllowed(smtp.port, addresses);
  if (!check.ok) throw refuse(check.detail);
}

const notFoundRemoved = () => new PmailError('domain_not_found', 'This domain was removed.');

/**
 * The key's tenant: reads need `domains:read` (an identity key may read its tenant's domains),
 * changes `domains:write` on a tenant-level key. Another tenant's id answers as a missing tenant.
 */
function tenantInScope(key: ApiKeyRecord, tenantId: string, permission: Permission): string {
  if (!(permission === 'domains:read' && key.scopes.includes('domains:write')))
    requirePermission(key, permission);
  if (permission === 'domains:write' && key.identity_ids) {
    throw new PmailError('permission_denied', 'Changing domains needs a tenant-level key.', {
      details: { required: permission, reason: 'tenant_key_required' },
    });
  }
  if (tenantId !== key.tenant_id) throw tenantNotFound();
  return tenantId;
}
