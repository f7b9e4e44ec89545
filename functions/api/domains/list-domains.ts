import { toDomainView } from '../../core/domains.ts';
import { listTenantDomains } from '../../store/domains.store.ts';
import { json } from '../http.ts';
import type { DomainsRoute } from './operation.ts';

/** GET /v1/tenants/{tenant_id}/domains: all the tenant's domains, on one page. */
export const listDomainsRoute: DomainsRoute = {
  permission: 'domains:read',
  handle: async (deps, { tenantId, requestId }) => {
    const all = await listTenantDomains(deps.db, tenantId);
    return json(200, { data: all.map(toDomainView), next_cursor: null }, requestId);
  },
};
