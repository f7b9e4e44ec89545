import { deleteIdentity } from '../../admin/identities.ts';
import { identityNotFound } from '../../core/errors.ts';
import { toIdentityView } from '../../core/identity-view.ts';
import { identityInScope } from '../auth.ts';
import { json } from '../http.ts';
import type { KeyedRoute } from '../operation.ts';
import { requireLevel } from '../scope.ts';

/**
 * DELETE /v1/identities/{identity_id}: the identity deleted (functions/admin/identities.ts); platform
 * and tenant keys only.
 */
export const deleteIdentityRoute: KeyedRoute = {
  permission: 'identities:write',
  handle: async (deps, { key, params, requestId }) => {
    requireLevel(key, ['platform', 'tenant'], 'Deleting an identity');
    const { identity } = await identityInScope(deps.db, key, params.identity_id);
    if (identity.status === 'deleting') throw identityNotFound();
    const deleted = await deleteIdentity(deps, { key: key.scope }, identity, requestId);
    return json(200, toIdentityView(deleted), requestId);
  },
};
