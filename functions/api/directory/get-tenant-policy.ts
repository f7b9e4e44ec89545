import { tenantNotFound } from '../../core/errors.ts';
import { getTenantConsistent } from '../../store/tenants.store.ts';
import { json } from '../http.ts';
import type { KeyedRoute } from '../operation.ts';
import { tenantInReach } from '../scope.ts';
import { policyView, requirePolicyLevel } from './settings.ts';

/** GET /v1/tenants/{tenant_id}/policy: the effective policy and its version, read consistently. */
export const getTenantPolicyRoute: KeyedRoute = {
  permission: 'policy:write',
  handle: async (deps, { key, params, requestId }) => {
    requirePolicyLevel(key);
    await tenantInReach(deps.db, key, params.tenant_id);
    const t = await getTenantConsistent(deps.db, params.tenant_id);
    if (!t) throw tenantNotFound();
    return json(200, policyView(t), requestId);
  },
};
