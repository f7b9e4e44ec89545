import { toDomainView } from '../../core/domains.ts';
import { domainRemoved } from '../../core/errors.ts';
import { checkDomain } from '../../domains/lifecycle.ts';
import { json } from '../http.ts';
import { domainOf } from './get-domain.ts';
import type { DomainsRoute } from './operation.ts';

/** POST …/domains/{domain_id}/verify: the domain checked now (functions/domains/lifecycle.ts). */
export const verifyDomainRoute: DomainsRoute = {
  permission: 'domains:write',
  handle: async (deps, { tenantId, ports, params, requestId }) => {
    const d = await domainOf(deps.db, tenantId, params.domain_id);
    if (d.state === 'removing' || d.state === 'removed') throw domainRemoved();
    return json(200, toDomainView(await checkDomain(deps, ports, d)), requestId);
  },
};
