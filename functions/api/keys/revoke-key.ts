import { revokeKey } from '../../admin/keys.ts';
import { keyNotFound } from '../../core/errors.ts';
import { authorizeChanges } from '../../core/guardrails.ts';
import { ID_PATTERNS } from '../../core/ids.ts';
import { noContent } from '../http.ts';
import type { KeyedRoute } from '../operation.ts';

/** DELETE /v1/keys/{key_id}: the key revoked (functions/admin/keys.ts); 204. */
export const revokeKeyRoute: KeyedRoute = {
  handle: async (deps, { key, params, requestId }) => {
    authorizeChanges(key.scope, ['key.revoke']);
    if (!ID_PATTERNS.key.test(params.key_id)) throw keyNotFound();
    await revokeKey(deps, key.scope, params.key_id, requestId);
    return noContent(requestId);
  },
};
