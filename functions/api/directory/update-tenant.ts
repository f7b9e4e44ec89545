import * as z from 'zod';
import { changeTenant } from '../../admin/tenants.ts';
import { bodyOf, json } from '../http.ts';
import type { KeyedRoute } from '../operation.ts';
import { parseBody } from '../parse.ts';
import { tenantInReach } from '../scope.ts';
import { requirePlatformKey, tenantView, timezone } from './settings.ts';

/** PATCH /v1/tenants/{tenant_id} (openapi.yaml TenantUpdateRequest); `mode` never changes. */
export const updateTenantSchema = z
  .strictObject({
    name: z.string().min(1).max(200).optional(),
    timezone: timezone.optional(),
    status: z.enum(['active', 'suspended']).optional(),
  })
  .refine((b) => Object.keys(b).length > 0, { message: 'name, timezone or status is required' });

/** PATCH /v1/tenants/{tenant_id}: the tenant's name, time zone or status (functions/admin/tenants.ts). */
export const updateTenantRoute: KeyedRoute = {
  permission: 'tenants:manage',
  handle: async (deps, { event, key, params, requestId }) => {
    requirePlatformKey(key);
    const body = parseBody(bodyOf(event), updateTenantSchema);
    const t = await tenantInReach(deps.db, key, params.tenant_id);
    const fresh = await changeTenant(deps, { key: key.scope }, t, body, requestId);
    return json(200, tenantView(fresh), requestId);
  },
};
