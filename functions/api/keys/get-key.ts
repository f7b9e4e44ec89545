import { keyInReach } from '../../admin/keys.ts';
import { toKeyView } from '../../core/admin-views.ts';
import { json } from '../http.ts';
import type { KeyedRoute } from '../operation.ts';

/** GET /v1/keys/{key_id}: a key in the caller's reach; 404 key_not_found otherwise. */
export const getKeyRoute: KeyedRoute = {
  permission: 'keys:manage',
  handle: async (deps, { key, params, requestId }) => {
    const now = deps.clock();
    const d = await keyInReach(deps, key.scope, params.key_id);
    return json(200, toKeyView(d, now), requestId);
  },
};
