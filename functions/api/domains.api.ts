import { tenantKeyRequired, tenantNotFound } from '../core/errors.ts';
import type { ApiKeyRecord } from '../core/model.ts';
import type { DepsFor } from '../lambda-ports.ts';
import { type Permission, requirePermission } from './auth.ts';
import { createDomainRoute } from './domains/create-domain.ts';
import { deleteDomainRoute } from './domains/delete-domain.ts';
import { getDomainRoute } from './domains/get-domain.ts';
import { listDomainsRoute } from './domains/list-domains.ts';
import type { DomainsApiPorts, DomainsRoute } from './domains/operation.ts';
import { updateDomainRoute } from './domains/update-domain.ts';
import { verifyDomainRoute } from './domains/verify-domain.ts';
import { operationGroup } from './operation.ts';

export type { DomainsApiPorts } from './domains/operation.ts';

/** The operations of the group, each behind the shared step: the key, its permission, its tenant. */
const OPERATIONS: Record<string, DomainsRoute> = {
  createDomain: createDomainRoute,
  listDomains: listDomainsRoute,
  getDomain: getDomainRoute,
  updateDomain: updateDomainRoute,
  verifyDomain: verifyDomainRoute,
  deleteDomain: deleteDomainRoute,
};

/**
 * The `domains` route group: a tenant's sending domains (docs/guides/domains.md:
 * SES, SMTP relay, Cloudflare), one file per operation under functions/api/domains/. An `ses` domain
 * gets its SES identity (Easy DKIM, the configuration set) and the DNS records to publish; an `smtp`
 * domain stores its relay credentials write-only and stays `verifying` until the relay probe passes;
 * a `cloudflare` domain is `healthy` at once, unchecked (core/domains.ts › CLOUDFLARE_UNCHECKED).
 * `…/verify` and the scheduled check (functions/domains/lifecycle.ts) move the state; DELETE removes
 * the SES identity or the relay secret, after which nothing is sent from the domain. `domains:read` /
 * `domains:write`; identity keys may read only.
 */
export function domainsApi(deps: DepsFor<'api-domains'>, ports: DomainsApiPorts) {
  return operationGroup(deps, OPERATIONS, (key, operation, { params }) => ({
    tenantId: tenantInScope(key, params.tenant_id, operation.permission),
    ports,
  }));
}

/**
 * The key's tenant: reads need `domains:read` (an identity key may read its tenant's domains),
 * changes `domains:write` on a tenant-level key. Another tenant's id answers as a missing tenant.
 */
function tenantInScope(key: ApiKeyRecord, tenantId: string, permission: Permission): string {
  if (!(permission === 'domains:read' && key.scopes.includes('domains:write')))
    requirePermission(key, permission);
  if (permission === 'domains:write' && key.identity_ids) {
    throw tenantKeyRequired(permission);
  }
  if (tenantId !== key.tenant_id) throw tenantNotFound();
  return tenantId;
}
