import { requirePermission } from '../auth.ts';
import { json } from '../http.ts';
import type { KeyedRoute } from '../operation.ts';
import { requireLevel, tenantInReach } from '../scope.ts';
import { tenantView } from './settings.ts';

/**
 * GET /v1/tenants/{tenant_id}: a tenant in reach, with its effective policy. A platform key needs
 * `tenants:manage`; a tenant key reads its own tenant.
 */
export const getTenantRoute: KeyedRoute = {
  handle: async (deps, { key, params, requestId }) => {
    if (key.scope.level === 'platform') requirePermission(key, 'tenants:manage');
    requireLevel(key, ['platform', 'tenant'], 'Reading a tenant');
    const t = await tenantInReach(deps.db, key, params.tenant_id);
    return json(200, tenantView(t), requestId);
  },
};
