import { toIdentityView } from '../../core/identity-view.ts';
import { identityInScope } from '../auth.ts';
import { json } from '../http.ts';
import type { KeyedRoute } from '../operation.ts';

/** GET /v1/identities/{identity_id}: an identity in the key's scope. */
export const getIdentityRoute: KeyedRoute = {
  permission: 'identities:read',
  handle: async (deps, { key, params, requestId }) => {
    const { identity } = await identityInScope(deps.db, key, params.identity_id);
    return json(200, toIdentityView(identity), requestId);
  },
};
