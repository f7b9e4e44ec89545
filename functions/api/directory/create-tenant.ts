import * as z from 'zod';
import { createTenant } from '../../admin/tenants.ts';
import type { TenantPolicy } from '../../core/model.ts';
import { idempotentControl } from '../control.ts';
import { bodyOf, json } from '../http.ts';
import type { KeyedRoute } from '../operation.ts';
import { parseBody } from '../parse.ts';
import { checkPolicy, policyFields, requirePlatformKey, tenantView, timezone } from './settings.ts';

/** POST /v1/tenants (openapi.yaml TenantCreateRequest). */
export const createTenantSchema = z.strictObject({
  slug: z.string().regex(/^[a-z0-9](?:[a-z0-9-]{0,30}[a-z0-9])?$/),
  name: z.string().min(1).max(200),
  mode: z.enum(['test', 'live']),
  timezone: timezone.optional(),
  policy: z.strictObject(policyFields).optional(),
});

/** POST /v1/tenants: a new tenant (functions/admin/tenants.ts); platform keys only. */
export const createTenantRoute: KeyedRoute = {
  permission: 'tenants:manage',
  handle: async (deps, { event, route, key, requestId }) => {
    requirePlatformKey(key);
    const body = parseBody(bodyOf(event), createTenantSchema);
    if (body.policy) checkPolicy(body.policy as TenantPolicy);
    return idempotentControl(deps, key, event, route.operation, body, requestId, async (finish) => {
      const t = await createTenant(deps, { key: key.scope }, body as Parameters<typeof createTenant>[2], {
        requestId,
        finish: finish && ((t) => finish(201, tenantView(t))),
      });
      return json(201, tenantView(t), requestId);
    });
  },
};
