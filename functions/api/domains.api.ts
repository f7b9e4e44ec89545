import { z } from 'zod';
import {
  DOMAIN_ID_PATTERN,
  DOMAIN_NAME_PATTERN,
  nextDomainState,
  sesDnsRecords,
  toDomainView,
} from '../core/domains.ts';
import { PmailError } from '../core/errors.ts';
import type { ApiKeyRecord, DomainRecord } from '../core/model.ts';
import type { Deps } from '../deps.ts';
import { busy, checkDomain, removeDomain } from '../domains/lifecycle.ts';
import type { SesIdentities } from '../domains/ses-identities.ts';
import { createDomain, getTenantDomain, listTenantDomains, saveDomain } from '../store/domains.store.ts';
import { authenticate, type Permission, requirePermission } from './auth.ts';
import { bodyOf, header, json, routeGroup } from './http.ts';
import { parseBody } from './parse.ts';

const SES_REGION = /^[a-z]{2}(-[a-z]+)+-\d$/;
const CONFIGURATION_SET = /^[A-Za-z0-9_-]{1,64}$/;

/** POST /v1/tenants/{tenant_id}/domains (openapi.yaml DomainCreateRequest). */
export const createDomainSchema = z
  .strictObject({
    name: z
      .string()
      .min(4)
      .max(253)
      .transform((s) => s.toLowerCase())
      .pipe(z.string().regex(DOMAIN_NAME_PATTERN)),
    /** `ses` now; `smtp` and `cloudflare` come with their adapters. */
    transport: z.enum(['ses']),
    reply_token: z.enum(['subaddress', 'none']).default('subaddress'),
    /** The custom MAIL FROM domain, a subdomain of `name` (e.g. `pm-bounce.example.com`). */
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
  })
  .refine((b) => !b.mail_from || b.mail_from.endsWith(`.${b.name}`), {
    path: ['mail_from'],
    message: 'must be a subdomain of name',
  });

/** PATCH /v1/tenants/{tenant_id}/domains/{domain_id} (openapi.yaml DomainUpdateRequest). */
export const updateDomainSchema = z.strictObject({
  reply_token: z.enum(['subaddress', 'none']).optional(),
  ses: z
    .strictObject({ configuration_set: z.string().regex(CONFIGURATION_SET).nullable().optional() })
    .optional(),
});

export interface DomainsApiPorts {
  identities: SesIdentities;
  /** The configuration set new SES identities join (the stack's; PMAIL_SES_CONFIGURATION_SET). */
  configurationSet?: string;
  /** Local only: the SES endpoint live domains created here send through (`npm start`'s local SES). */
  sesEndpoint?: string;
}

/**
 * The `domains` route group: a tenant's sending domains (seed 000 › Identities, addresses and
 * domains; Amazon SES › Identities). Creating one creates its SES identity (Easy DKIM, the
 * configuration set) and answers the DNS records to publish; `…/verify` and the scheduled check
 * (functions/domains/check.ts) read it back and move the state; DELETE removes the SES identity,
 * after which nothing is sent from the domain. `domains:read` / `domains:write`; identity keys may
 * read only.
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
        const now = deps.clock();
        const id = `dom_${deps.newId()}`;
        const onboarded = await ports.identities.create({
          domain: body.name,
          region: body.ses?.region,
          configurationSet: body.ses?.configuration_set ?? ports.configurationSet,
          mailFrom: body.mail_from,
        });
        const domain: DomainRecord & { id: string } = {
          id,
          domain: body.name,
          tenant_id: tenantId,
          state: 'verifying',
          state_reason: 'dkim_pending',
          transport: body.transport,
          reply_token: body.reply_token,
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
          }),
          created_at: now,
          updated_at: now,
        };
        if ((await createDomain(deps.db, domain)) === 'exists') {
          throw new PmailError('domain_exists', 'This domain is already a sending domain of a tenant.', {
            details: { name: body.name },
          });
        }
        // The first check at once: a domain whose records are already published starts healthy.
        const checked = await checkDomain(deps, ports.identities, domain);
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
        const ses = { ...d.ses };
        if (body.ses?.configuration_set === null) delete ses.configuration_set;
        else if (body.ses?.configuration_set) ses.configuration_set = body.ses.configuration_set;
        const next: DomainRecord = {
          ...d,
          ...(body.reply_token ? { reply_token: body.reply_token } : {}),
          ses,
          updated_at: Math.max(deps.clock(), (d.updated_at ?? 0) + 1),
        };
        if (!(await saveDomain(deps.db, next, d.updated_at))) throw busy();
        return json(200, toDomainView(next), requestId);
      }
      case 'verifyDomain': {
        const d = await load();
        if (d.state === 'removing' || d.state === 'removed') throw notFoundRemoved();
        return json(200, toDomainView(await checkDomain(deps, ports.identities, d)), requestId);
      }
      case 'deleteDomain': {
        const d = await load();
        return json(200, toDomainView(await removeDomain(deps, ports.identities, d)), requestId);
      }
      default:
        throw new PmailError('route_not_found', 'No such route.');
    }
  });
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
  if (tenantId !== key.tenant_id)
    throw new PmailError('tenant_not_found', 'No tenant with this id is visible to this key.');
  return tenantId;
}
