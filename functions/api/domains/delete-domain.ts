import { toDomainView } from '../../core/domains.ts';
import { removeDomain } from '../../domains/lifecycle.ts';
import { json } from '../http.ts';
import { domainOf } from './get-domain.ts';
import type { DomainsRoute } from './operation.ts';

/**
 * DELETE …/domains/{domain_id}: removes the SES identity or the relay secret
 * (functions/domains/lifecycle.ts), after which nothing is sent from the domain.
 */
export const deleteDomainRoute: DomainsRoute = {
  permission: 'domains:write',
  handle: async (deps, { tenantId, ports, params, requestId }) => {
    const d = await domainOf(deps.db, tenantId, params.domain_id);
    return json(200, toDomainView(await removeDomain(deps, ports, d)), requestId);
  },
};
