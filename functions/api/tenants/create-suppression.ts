import * as z from 'zod';
import { suppressionExpiryPast } from '../../core/errors.ts';
import { normaliseAddress } from '../../core/recipients.ts';
import {
  API_SUPPRESSION_REASONS,
  addressHash,
  addressHint,
  toSuppressionView,
} from '../../core/suppressions.ts';
import { putSuppressionIfAbsent } from '../../store/suppressions.store.ts';
import { bodyOf, json } from '../http.ts';
import type { TenantRoute } from '../operation.ts';
import { parseBody } from '../parse.ts';

/** POST …/suppressions (openapi.yaml SuppressionCreateRequest). Only manual and unsubscribe via the API. */
export const createSuppressionSchema = z
  .strictObject({
    address: z.string().min(3).max(320),
    reason: z.enum(API_SUPPRESSION_REASONS),
    expires_at: z.iso.datetime({ offset: true }).optional(),
    elective: z.boolean().optional(),
  })
  .refine((b) => !(b.reason === 'unsubscribe' && b.elective === false), {
    message: 'an unsubscribe always blocks elective mail only',
    path: ['elective'],
  });

/**
 * POST /v1/tenants/{tenant_id}/suppressions: the address suppressed, stored as its hash and a hint
 * only; 201 when new, 200 with the suppression already there.
 */
export const createSuppressionRoute: TenantRoute = {
  handle: async (deps, { event, tenantId, requestId }) => {
    const now = deps.clock();
    const body = parseBody(bodyOf(event), createSuppressionSchema);
    const address = normaliseAddress(body.address, 'address');
    const expiresAt = body.expires_at === undefined ? undefined : Date.parse(body.expires_at);
    if (expiresAt !== undefined && expiresAt <= now) {
      throw suppressionExpiryPast();
    }
    const out = await putSuppressionIfAbsent(
      deps.db,
      tenantId,
      {
        address_hash: addressHash(deps.config.hashKey, address),
        address_hint: addressHint(address),
        reason: body.reason,
        created_at: now,
        ...(expiresAt !== undefined ? { expires_at: expiresAt } : {}),
        ...(body.elective ? { elective: true } : {}),
      },
      now,
    );
    if (out.created) deps.metrics.add('suppressions_created', { reason: body.reason });
    return json(out.created ? 201 : 200, toSuppressionView(out.suppression), requestId);
  },
};
