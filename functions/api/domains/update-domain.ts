import * as z from 'zod';
import {
  CLOUDFLARE_ACCOUNT_PATTERN,
  CONFIGURATION_SET_PATTERN,
  SMTP_PROBE_PENDING,
  toDomainView,
} from '../../core/domains.ts';
import { domainBusy, domainRemoved, invalidRequest } from '../../core/errors.ts';
import type { DomainRecord } from '../../core/model.ts';
import { saveDomain } from '../../store/domains.store.ts';
import { bodyOf, json } from '../http.ts';
import { parseBody } from '../parse.ts';
import { domainOf } from './get-domain.ts';
import type { DomainsRoute } from './operation.ts';
import { checkRelayHost, checkSmtpAuth, relaySettings, smtpSettingsSchema, storeSecret } from './settings.ts';

/**
 * PATCH /v1/tenants/{tenant_id}/domains/{domain_id} (openapi.yaml DomainUpdateRequest). `smtp`
 * replaces the relay settings as a whole; a secret field replaces the stored secret, and without
 * one the stored secret is kept.
 */
export const updateDomainSchema = z
  .strictObject({
    reply_token: z.enum(['subaddress', 'none']).optional(),
    ses: z
      .strictObject({ configuration_set: z.string().regex(CONFIGURATION_SET_PATTERN).nullable().optional() })
      .optional(),
    smtp: smtpSettingsSchema.optional(),
    cloudflare: z
      .strictObject({ account_id: z.string().regex(CLOUDFLARE_ACCOUNT_PATTERN).nullable().optional() })
      .optional(),
  })
  .superRefine((b, ctx) => {
    if (b.smtp) checkSmtpAuth(b.smtp, ctx, false);
  });
type UpdateDomainBody = z.output<typeof updateDomainSchema>;

/**
 * PATCH …/domains/{domain_id}: the reply token and the settings of the domain's own transport. New
 * relay settings put the domain back to `verifying` until the probe passes again.
 */
export const updateDomainRoute: DomainsRoute = {
  permission: 'domains:write',
  handle: async (deps, { event, tenantId, ports, params, requestId }) => {
    const body = parseBody(bodyOf(event), updateDomainSchema);
    const d = await domainOf(deps.db, tenantId, params.domain_id);
    if (d.state === 'removing' || d.state === 'removed') throw domainRemoved();
    for (const t of ['ses', 'smtp', 'cloudflare'] as const) {
      if (body[t] !== undefined && d.transport !== t) {
        throw invalidRequest([{ path: t, message: `only for a domain with transport ${t}` }]);
      }
    }
    if (body.smtp) await checkRelayHost(ports, body.smtp);
    const next = changedDomain(d, body, Math.max(deps.clock(), (d.updated_at ?? 0) + 1));
    if (body.smtp) {
      // New relay settings must pass the probe again before anything is sent through them.
      next.smtp = relaySettings(ports, d.domain, body.smtp, d.smtp?.secret_ref);
      next.state = 'verifying';
      next.state_reason = SMTP_PROBE_PENDING;
      await storeSecret(deps, ports, d, body.smtp);
    }
    if (!(await saveDomain(deps.db, next, d.updated_at))) throw domainBusy();
    return json(200, toDomainView(next), requestId);
  },
};

/** The domain with the body's reply token and SES or Cloudflare settings (`null` clears a setting). */
function changedDomain(d: DomainRecord, body: UpdateDomainBody, updatedAt: number): DomainRecord {
  const next: DomainRecord = {
    ...d,
    ...(body.reply_token ? { reply_token: body.reply_token } : {}),
    updated_at: updatedAt,
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
  return next;
}
