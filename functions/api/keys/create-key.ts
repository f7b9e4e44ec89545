import * as z from 'zod';
import { mintKey } from '../../admin/keys.ts';
import { toKeyView } from '../../core/admin-views.ts';
import { authorizeChanges } from '../../core/guardrails.ts';
import { ID_PATTERNS } from '../../core/ids.ts';
import { KEY_LEVELS, PERMISSIONS } from '../../core/keys.ts';
import { idempotentControl } from '../control.ts';
import { bodyOf, json } from '../http.ts';
import type { KeyedRoute } from '../operation.ts';
import { parseBody } from '../parse.ts';

/** POST /v1/keys (openapi.yaml KeyCreateRequest). */
export const createKeySchema = z.strictObject({
  name: z.string().min(1).max(100),
  level: z.enum(KEY_LEVELS),
  tenant_id: z.string().regex(ID_PATTERNS.tenant).optional(),
  identity_id: z.string().regex(ID_PATTERNS.identity).optional(),
  permissions: z
    .array(z.enum(PERMISSIONS as [string, ...string[]]))
    .min(1)
    .max(PERMISSIONS.length),
  expires_at: z.iso.datetime({ offset: true }).optional(),
  sends_need_approval: z.boolean().optional(),
});

/**
 * POST /v1/keys: a new key no wider than the caller (functions/admin/keys.ts); its secret is in this
 * 201 only (a replay of the Idempotency-Key answers `secret_replayed: false`).
 */
export const createKeyRoute: KeyedRoute = {
  handle: async (deps, { event, route, key, requestId }) => {
    authorizeChanges(key.scope, ['key.mint']);
    const now = deps.clock();
    const body = parseBody(bodyOf(event), createKeySchema);
    return idempotentControl(deps, key, event, route.operation, body, requestId, async (finish) => {
      const out = await mintKey(
        deps,
        { key: key.scope },
        {
          name: body.name,
          level: body.level,
          tenant_id: body.tenant_id,
          identity_id: body.identity_id,
          permissions: body.permissions,
          expires_at: body.expires_at === undefined ? undefined : Date.parse(body.expires_at),
          sends_need_approval: body.sends_need_approval,
        },
        {
          requestId,
          finish: finish && ((d) => finish(201, { ...toKeyView(d, now), secret_replayed: false })),
        },
      );
      return json(201, { ...toKeyView(out.definition, now), secret: out.secret }, requestId);
    });
  },
};
