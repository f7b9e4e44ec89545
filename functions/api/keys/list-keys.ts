import * as z from 'zod';
import { toKeyView } from '../../core/admin-views.ts';
import { ID_PATTERNS } from '../../core/ids.ts';
import { notWider, reaches, scopeOf } from '../../core/keys.ts';
import { listApiKeyDefinitions } from '../../store/api-keys.store.ts';
import { decodeCursor, encodeCursor, pageQueryFields } from '../cursor.ts';
import { json } from '../http.ts';
import type { KeyedRoute } from '../operation.ts';
import { parseQuery } from '../parse.ts';

/** GET /v1/keys query. */
export const listKeysQuerySchema = z.strictObject({
  ...pageQueryFields,
  tenant_id: z.string().regex(ID_PATTERNS.tenant).optional(),
});

/**
 * GET /v1/keys: newest first, the keys of the caller's tenant (a platform key: all keys, or those of
 * `tenant_id`) that it reaches and that are no wider than itself, and the caller itself.
 */
export const listKeysRoute: KeyedRoute = {
  permission: 'keys:manage',
  handle: async (deps, { event, key, requestId }) => {
    const now = deps.clock();
    const q = parseQuery(event, listKeysQuerySchema);
    if (q.tenant_id !== undefined && key.scope.level !== 'platform' && q.tenant_id !== key.tenant_id)
      return json(200, { data: [], next_cursor: null }, requestId);
    const scope = key.scope.level === 'platform' ? q.tenant_id : key.tenant_id;
    const out = await listApiKeyDefinitions(deps.db, scope, {
      limit: q.limit,
      after: q.cursor === undefined ? undefined : decodeCursor(q.cursor),
    });
    const data = out.data
      .filter(
        (d) => d.key_id === key.key_id || (reaches(key.scope, scopeOf(d)) && notWider(key.scope, scopeOf(d))),
      )
      .map((d) => toKeyView(d, now));
    return json(200, { data, next_cursor: encodeCursor(out.next) }, requestId);
  },
};
