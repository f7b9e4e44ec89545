import * as z from 'zod';
import { createIdentity } from '../../admin/identities.ts';
import { authorizeChanges } from '../../core/guardrails.ts';
import { toIdentityView } from '../../core/identity-view.ts';
import { idempotentControl } from '../control.ts';
import { bodyOf, json } from '../http.ts';
import { checkIdentityCap, identityFieldSchemas } from '../identities/fields.ts';
import type { KeyedRoute } from '../operation.ts';
import { parseBody } from '../parse.ts';
import { tenantInReach } from '../scope.ts';
import { oneLine } from '../send.schema.ts';

/** POST /v1/tenants/{tenant_id}/identities (openapi.yaml IdentityCreateRequest). */
export const createIdentitySchema = z.strictObject({
  username: z.string().min(1).max(64),
  display_name: oneLine(100).optional(),
  owner: identityFieldSchemas.owner.optional(),
  domain: z.string().min(1).max(253).optional(),
  send_policy: identityFieldSchemas.sendPolicy.optional(),
  receive_policy: identityFieldSchemas.receivePolicy.optional(),
  metadata: identityFieldSchemas.metadata.optional(),
  client_id: z.string().min(1).max(128).optional(),
});

/**
 * POST /v1/tenants/{tenant_id}/identities: a new identity of the tenant (functions/admin/identities.ts);
 * 201, or 200 with the identity a `client_id` made before.
 */
export const createIdentityRoute: KeyedRoute = {
  handle: async (deps, { event, route, key, params, requestId }) => {
    authorizeChanges(key.scope, ['identity.create']);
    const body = parseBody(bodyOf(event), createIdentitySchema);
    const tenant = await tenantInReach(deps.db, key, params.tenant_id);
    checkIdentityCap(key, tenant, body.send_policy?.daily_cap);
    return idempotentControl(deps, key, event, route.operation, body, requestId, async (finish) => {
      const out = await createIdentity(deps, { key: key.scope }, tenant, body, {
        requestId,
        finish: finish && ((i) => finish(201, toIdentityView(i))),
      });
      return json(out.created ? 201 : 200, toIdentityView(out.identity), requestId);
    });
  },
};
