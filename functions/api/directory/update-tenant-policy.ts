import * as z from 'zod';
import { patchPolicy } from '../../admin/tenants.ts';
import { authorizeChanges } from '../../core/guardrails.ts';
import { bodyOf, json } from '../http.ts';
import type { KeyedRoute } from '../operation.ts';
import { parseBody } from '../parse.ts';
import { tenantInReach } from '../scope.ts';
import { checkPolicy, policyFields, policyView } from './settings.ts';

/** PATCH /v1/tenants/{tenant_id}/policy (openapi.yaml PolicyPatchRequest). */
export const policyPatchSchema = z.strictObject({
  ...policyFields,
  policy_version: z.number().int().min(0).optional(),
});

/**
 * PATCH /v1/tenants/{tenant_id}/policy: the fields sent, merged into the policy (functions/admin/tenants.ts);
 * with `policy_version`, only if the policy is still at that version.
 */
export const updateTenantPolicyRoute: KeyedRoute = {
  handle: async (deps, { event, key, params, requestId }) => {
    authorizeChanges(key.scope, ['tenant.policy']);
    const { policy_version, ...patch } = parseBody(bodyOf(event), policyPatchSchema);
    await tenantInReach(deps.db, key, params.tenant_id);
    const t = await patchPolicy(deps, { key: key.scope }, params.tenant_id, patch, {
      ifVersion: policy_version,
      requestId,
      validate: checkPolicy,
    });
    return json(200, policyView(t), requestId);
  },
};
