import * as z from 'zod';
import { invalidJson, invalidRequest } from '../../core/errors.ts';
import { checkIdempotencyKey } from '../../core/limits.ts';
import { resolveSend } from '../../send/actions.ts';
import { bodyOf, header, json } from '../http.ts';
import { zodErrors } from '../send.schema.ts';
import type { ScopedRoute } from './operation.ts';

/** POST …/messages/{id}/resolve (docs/guides/sending.md). */
export const resolveBodySchema = z.strictObject({ outcome: z.enum(['sent', 'not_sent']) });

/** POST …/messages/{id}/resolve: a person says what became of an `uncertain` send (send/actions.ts). */
export const resolveMessageRoute: ScopedRoute = {
  permission: 'messages:write',
  handle: async (deps, { event, key, identity, params, requestId }) => {
    const body = resolveBodySchema.safeParse(parseJson(bodyOf(event)));
    if (!body.success) {
      throw invalidRequest(zodErrors(body.error));
    }
    const idempotencyKey = checkIdempotencyKey(header(event, 'idempotency-key'), false);
    const out = await resolveSend(deps, {
      identityId: identity.id,
      messageId: params.message_id,
      outcome: body.data.outcome,
      actor: key.key_id,
      idempotencyKey,
      requestId,
    });
    if (!out.replayed) deps.metrics.add('uncertain_resolved', { outcome: body.data.outcome });
    return json(200, out.body, requestId, out.replayed ? { 'idempotent-replayed': 'true' } : {});
  },
};

/** The body as JSON; an empty body is `{}` (then refused by the schema, outcome named). */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text || '{}');
  } catch {
    throw invalidJson();
  }
}
