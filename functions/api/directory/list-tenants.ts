import * as z from 'zod';
import { listTenants } from '../../store/tenants.store.ts';
import { decodeCursor, encodeCursor, pageQueryFields } from '../cursor.ts';
import { json } from '../http.ts';
import type { KeyedRoute } from '../operation.ts';
import { parseQuery } from '../parse.ts';
import { requirePlatformKey, tenantView } from './settings.ts';

/** GET /v1/tenants query. */
export const listTenantsQuerySchema = z.strictObject({
  ...pageQueryFields,
  status: z.enum(['active', 'suspended']).optional(),
  mode: z.enum(['test', 'live']).optional(),
});

/** GET /v1/tenants: the tenants, filtered by status and mode; platform keys only. */
export const listTenantsRoute: KeyedRoute = {
  permission: 'tenants:manage',
  handle: async (deps, { event, key, requestId }) => {
    requirePlatformKey(key);
    const q = parseQuery(event, listTenantsQuerySchema);
    const out = await listTenants(deps.db, {
      limit: q.limit,
      after: q.cursor === undefined ? undefined : decodeCursor(q.cursor),
    });
    const data = out.data.filter(
      (t) => (!q.status || t.status === q.status) && (!q.mode || t.mode === q.mode),
    );
    return json(200, { data: data.map(tenantView), next_cursor: encodeCursor(out.next) }, requestId);
  },
};
