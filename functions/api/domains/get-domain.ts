import { DOMAIN_ID_PATTERN, toDomainView } from '../../core/domains.ts';
import { domainNotFound } from '../../core/errors.ts';
import type { DomainRecord } from '../../core/model.ts';
import type { Db } from '../../store/db.ts';
import { getTenantDomain } from '../../store/domains.store.ts';
import { json } from '../http.ts';
import type { DomainsRoute } from './operation.ts';

/** GET /v1/tenants/{tenant_id}/domains/{domain_id}: one domain of the tenant. */
export const getDomainRoute: DomainsRoute = {
  permission: 'domains:read',
  handle: async (deps, { tenantId, params, requestId }) =>
    json(200, toDomainView(await domainOf(deps.db, tenantId, params.domain_id)), requestId),
};

/**
 * The tenant's domain by its id; 404 domain_not_found for another tenant's, a missing one or a
 * malformed id.
 */
export async function domainOf(db: Db, tenantId: string, domainId: string): Promise<DomainRecord> {
  const d = DOMAIN_ID_PATTERN.test(domainId ?? '')
    ? await getTenantDomain(db, tenantId, domainId)
    : undefined;
  if (!d) throw domainNotFound();
  return d;
}
