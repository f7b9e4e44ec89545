import * as z from 'zod';
import {
  CLOUDFLARE_ACCOUNT_PATTERN,
  CLOUDFLARE_UNCHECKED,
  CONFIGURATION_SET_PATTERN,
  DOMAIN_NAME_PATTERN,
  SMTP_PROBE_PENDING,
  sesDnsRecords,
  toDomainView,
} from '../../core/domains.ts';
import { domainExists } from '../../core/errors.ts';
import type { DomainRecord } from '../../core/model.ts';
import { checkDomain } from '../../domains/lifecycle.ts';
import { createDomain } from '../../store/domains.store.ts';
import { bodyOf, json } from '../http.ts';
import { parseBody } from '../parse.ts';
import type { DomainsApiPorts, DomainsRoute } from './operation.ts';
import { checkRelayHost, checkSmtpAuth, relaySettings, smtpSettingsSchema, storeSecret } from './settings.ts';

const SES_REGION = /^[a-z]{2}(-[a-z]+)+-\d$/;

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
        configuration_set: z.string().regex(CONFIGURATION_SET_PATTERN).optional(),
      })
      .optional(),
    smtp: smtpSettingsSchema.optional(),
    cloudflare: z
      .strictObject({ account_id: z.string().regex(CLOUDFLARE_ACCOUNT_PATTERN).optional() })
      .optional(),
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
      else checkSmtpAuth(b.smtp, ctx, true);
    }
  });
type CreateDomainBody = z.output<typeof createDomainSchema>;

/** The fields every new domain has, whatever its transport. */
type NewDomainFields = Pick<
  DomainRecord,
  'domain' | 'tenant_id' | 'reply_token' | 'created_at' | 'updated_at'
> & {
  id: string;
};
type NewDomain = DomainRecord & { id: string };

/**
 * POST /v1/tenants/{tenant_id}/domains: an `ses` domain gets its SES identity and the DNS records to
 * publish, and is checked once at once; an `smtp` domain stores its relay secret once the name is
 * the tenant's and waits for the probe; a `cloudflare` domain is `healthy` at once, unchecked.
 * 409 domain_exists when the name is a sending domain of a tenant already.
 */
export const createDomainRoute: DomainsRoute = {
  permission: 'domains:write',
  handle: async (deps, { event, tenantId, ports, requestId }) => {
    const body = parseBody(bodyOf(event), createDomainSchema);
    if (body.smtp) await checkRelayHost(ports, body.smtp);
    const now = deps.clock();
    const domain = await newDomain(ports, body, {
      id: `dom_${deps.newId()}`,
      domain: body.name,
      tenant_id: tenantId,
      reply_token: body.reply_token,
      created_at: now,
      updated_at: now,
    });
    if ((await createDomain(deps.db, domain)) === 'exists') {
      throw domainExists(body.name);
    }
    if (body.transport === 'smtp') {
      // The secret is written only once the name is this tenant's (never over another's).
      if (body.smtp) await storeSecret(deps, ports, domain, body.smtp);
      return json(201, toDomainView(domain), requestId);
    }
    if (body.transport === 'cloudflare') return json(201, toDomainView(domain), requestId);
    // The first check at once: a domain whose records are already published starts healthy.
    const checked = await checkDomain(deps, ports, domain);
    return json(201, toDomainView(checked), requestId);
  },
};

/** The new domain's record, by its transport (an `ses` domain's SES identity is created here). */
async function newDomain(
  ports: DomainsApiPorts,
  body: CreateDomainBody,
  common: NewDomainFields,
): Promise<NewDomain> {
  if (body.transport === 'smtp' && body.smtp) {
    // Verifying until the probe passes (POST …/verify, or the scheduled check).
    return {
      ...common,
      state: 'verifying',
      state_reason: SMTP_PROBE_PENDING,
      transport: 'smtp',
      smtp: relaySettings(ports, body.name, body.smtp),
      dns_records: [],
    };
  }
  if (body.transport === 'cloudflare') {
    return {
      ...common,
      state: 'healthy',
      state_reason: CLOUDFLARE_UNCHECKED,
      transport: 'cloudflare',
      cloudflare: body.cloudflare?.account_id ? { account_id: body.cloudflare.account_id } : {},
      dns_records: [],
    };
  }
  return sesDomain(ports, body, common);
}

/** An `ses` domain: its SES identity (Easy DKIM, the configuration set) and the DNS records to publish. */
async function sesDomain(
  ports: DomainsApiPorts,
  body: CreateDomainBody,
  common: NewDomainFields,
): Promise<NewDomain> {
  const onboarded = await ports.identities.create({
    domain: body.name,
    region: body.ses?.region,
    configurationSet: body.ses?.configuration_set ?? ports.configurationSet,
    mailFrom: body.mail_from,
  });
  return {
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
