import { randomBytes } from 'node:crypto';
import * as z from 'zod';
import { webhookLimitReached } from '../../core/errors.ts';
import {
  formatSecret,
  sealSecret,
  secretAad,
  toWebhookView,
  WEBHOOK_LIMIT,
  type WebhookEndpoint,
  webhookUrlProblem,
} from '../../core/webhooks.ts';
import { createWebhook } from '../../store/webhooks.store.ts';
import { bodyOf, json } from '../http.ts';
import { parseBody } from '../parse.ts';
import type { WebhooksRoute } from './endpoint.ts';

/**
 * POST /v1/webhooks (openapi.yaml WebhookCreateRequest). The URL rule is core/webhooks'; plain
 * http to this machine only where the deployment allows it (`webhookAllowLocalHttp`: local only).
 */
export function createWebhookSchema(allowLocalHttp: boolean) {
  return z.strictObject({
    url: z
      .string()
      .min(1)
      .max(2048)
      .superRefine((url, ctx) => {
        const problem = webhookUrlProblem(url, allowLocalHttp);
        if (problem) ctx.addIssue({ code: 'custom', message: problem });
      }),
    event_types: z
      .array(
        z
          .string()
          .max(64)
          .regex(/^[a-z]+(\.[a-z_]+)+$/),
      )
      .min(1)
      .max(50)
      .optional(),
    description: z.string().max(200).optional(),
  });
}

/** The body schema with plain http to this machine allowed (the local runtime) and without, built once. */
const BODY_SCHEMAS = { localHttp: createWebhookSchema(true), httpsOnly: createWebhookSchema(false) };

/**
 * POST /v1/webhooks: a new endpoint of the key's tenant, at most WEBHOOK_LIMIT of them. Its signing
 * secret is sealed in the store and answered in this 201 only.
 */
export const createWebhookRoute: WebhooksRoute = {
  permission: 'webhooks:manage',
  handle: async (deps, { event, tenantId, requestId }) => {
    const schema =
      deps.config.webhookAllowLocalHttp === true ? BODY_SCHEMAS.localHttp : BODY_SCHEMAS.httpsOnly;
    const body = parseBody(bodyOf(event), schema);
    const now = deps.clock();
    const id = `whk_${deps.newId()}`;
    const secret = formatSecret(randomBytes(32));
    const endpoint: WebhookEndpoint = {
      id,
      tenant_id: tenantId,
      url: body.url,
      ...(body.event_types ? { event_types: [...new Set(body.event_types)] } : {}),
      ...(body.description !== undefined ? { description: body.description } : {}),
      status: 'active',
      created_at: now,
      updated_at: now,
    };
    const sealed = sealSecret(deps.config.hashKey, secretAad(tenantId, id), secret, randomBytes(12));
    const out = await createWebhook(deps.db, { ...endpoint, secret_sealed: sealed }, WEBHOOK_LIMIT);
    if (!out.created) {
      throw webhookLimitReached(WEBHOOK_LIMIT);
    }
    return json(201, { ...toWebhookView(endpoint), secret }, requestId);
  },
};
