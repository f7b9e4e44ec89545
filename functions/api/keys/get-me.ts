import { json } from '../http.ts';
import type { KeyedRoute } from '../operation.ts';

/** GET /v1/me: the calling key itself (any key; no permission needed). */
export const getMeRoute: KeyedRoute = {
  handle: async (_deps, { key, requestId }) =>
    json(
      200,
      {
        key_id: key.key_id,
        name: key.name ?? null,
        level: key.scope.level,
        mode: key.mode ?? null,
        tenant_id: key.tenant_id ?? null,
        identity_id: key.scope.identity_id ?? null,
        permissions: key.scopes,
        sends_need_approval: key.sends_need_approval === true,
        expires_at: key.expires_at === undefined ? null : new Date(key.expires_at).toISOString(),
      },
      requestId,
    ),
};
