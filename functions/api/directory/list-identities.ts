import * as z from 'zod';
import { toIdentityView } from '../../core/identity-view.ts';
import { listIdentities } from '../../store/identities.store.ts';
import { decodeCursor, encodeCursor, pageQueryFields } from '../cursor.ts';
import { json } from '../http.ts';
import type { KeyedRoute } from '../operation.ts';
import { parseQuery } from '../parse.ts';
import { requireLevel, tenantInReach } from '../scope.ts';

/** GET /v1/tenants/{tenant_id}/identities query. */
export const listIdentitiesQuerySchema = z.strictObject({
  ...pageQueryFields,
  status: z.enum(['active', 'paused', 'deleted']).optional(),
  client_id: z.string().min(1).max(128).optional(),
});

/** GET /v1/tenants/{tenant_id}/identities: the tenant's identities, filtered by status and client_id. */
export const listIdentitiesRoute: KeyedRoute = {
  permission: 'identities:read',
  handle: async (deps, { event, key, params, requestId }) => {
    requireLevel(key, ['platform', 'tenant'], 'Listing identities');
    const q = parseQuery(event, listIdentitiesQuerySchema);
    const tenant = await tenantInReach(deps.db, key, params.tenant_id);
    const out = await listIdentities(deps.db, tenant.id, {
      limit: q.limit,
      after: q.cursor === undefined ? undefined : decodeCursor(q.cursor),
    });
    const data = out.data.filter(
      (i) => (!q.status || i.status === q.status) && (!q.client_id || i.client_id === q.client_id),
    );
    return json(200, { data: data.map(toIdentityView), next_cursor: encodeCursor(out.next) }, requestId);
  },
};
