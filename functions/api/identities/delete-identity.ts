import { deleteIdentity } from '../../admin/identities.ts';
import { identityNotFound } from '../../core/errors.ts';
import { authorizeChanges } from '../../core/guardrails.ts';
import { toIdentityView } from '../../core/identity-view.ts';
import { identityInScope } from '../auth.ts';
import { json } from '../http.ts';
import type { KeyedRoute } from '../operation.ts';

/**
 * DELETE /v1/identities/{identity_id}: the identity deleted (functions/admin/identities.ts); platform
 * and tenant keys only (core/guardrails.ts).
 */
export const deleteIdentityRoute: KeyedRoute = {
  handle: async (deps, { key, params, requestId }) => {
    authorizeChanges(key.scope, ['identity.delete']);
    const { identity } = await identityInScope(deps.db, key, params.identity_id);
    if (identity.status === 'deleting') throw identityNotFound();
    const deleted = await deleteIdentity(deps, { key: key.scope }, identity, requestId);
    return json(200, toIdentityView(deleted), requestId);
  },
};
