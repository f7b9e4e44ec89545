import * as z from 'zod';
import { rotateKey } from '../../admin/keys.ts';
import { toKeyView } from '../../core/admin-views.ts';
import { authorizeChanges } from '../../core/guardrails.ts';
import { MAX_OVERLAP_HOURS } from '../../core/keys.ts';
import { idempotentControl } from '../control.ts';
import { bodyOf, json } from '../http.ts';
import type { KeyedRoute } from '../operation.ts';
import { parseBody } from '../parse.ts';

/** POST /v1/keys/{key_id}/rotate (openapi.yaml KeyRotateRequest). */
export const rotateKeySchema = z.strictObject({
  overlap_hours: z.number().int().min(0).max(MAX_OVERLAP_HOURS).default(24),
});

/**
 * POST /v1/keys/{key_id}/rotate: a new secret for the key; the previous secrets keep working for
 * `overlap_hours`. The new secret is in this answer only.
 */
export const rotateKeyRoute: KeyedRoute = {
  handle: async (deps, { event, route, key, params, requestId }) => {
    authorizeChanges(key.scope, ['key.rotate']);
    const now = deps.clock();
    const body = parseBody(bodyOf(event), rotateKeySchema, true);
    return idempotentControl(deps, key, event, route.operation, body, requestId, async (finish) => {
      const out = await rotateKey(deps, key.scope, params.key_id, body.overlap_hours, {
        requestId,
        finish: finish && ((d) => finish(200, { ...toKeyView(d, now), secret_replayed: false })),
      });
      return json(
        200,
        {
          ...toKeyView(out.definition, now),
          secret: out.secret,
          previous_secrets_expire_at: new Date(out.oldUntil).toISOString(),
        },
        requestId,
      );
    });
  },
};
