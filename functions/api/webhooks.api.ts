import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { PmailError, routeNotFound } from '../core/errors.ts';
import {
  formatSecret,
  RECENT_DELIVERIES_LIMIT,
  sealSecret,
  secretAad,
  testEventData,
  toDeliveryAttemptView,
  toWebhookView,
  WEBHOOK_ID_PATTERN,
  WEBHOOK_LIMIT,
  WEBHOOK_TEST_EVENT,
  type WebhookEndpoint,
  webhookUrlProblem,
} from '../core/webhooks.ts';
import type { Deps } from '../deps.ts';
import { listAttempts, putTestEvent } from '../store/webhook-deliveries.store.ts';
import { createWebhook, deleteWebhook, getWebhook, listWebhooks } from '../store/webhooks.store.ts';
import { authenticate, type Caller, type Permission, requirePermission } from './auth.ts';
import { type ApiResult, bodyOf, header, json, routeGroup } from './http.ts';
import { parseBody } from './parse.ts';
import { ownTenant } from './scope.ts';

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

/**
 * The `webhooks` route group: the tenant's webhook endpoints. A tenant-level key only;
 * reads need `webhooks:read` or `webhooks:manage`, changes `webhooks:manage`. The secret is in the
 * 201 of the create and nowhere else.
 */
export function webhooksApi(deps: Deps) {
  const bodySchema = createWebhookSchema(deps.config.webhookAllowLocalHttp === true);
  return routeGroup(deps, async ({ event, route, params, requestId }) => {
    const key = await authenticate(deps, header(event, 'authorization'));
    const reads = ['listWebhooks', 'getWebhook', 'listWebhookDeliveries'].includes(route.operation);
    const tenantId = tenantKey(key, reads ? 'webhooks:read' : 'webhooks:manage');
    switch (route.operation) {
      case 'createWebhook': {
        const body = parseBody(bodyOf(event), bodySchema);
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
          throw new PmailError(
            'webhook_limit_reached',
            `A tenant has at most ${WEBHOOK_LIMIT} webhook endpoints.`,
            {
              details: { limit: WEBHOOK_LIMIT },
            },
          );
        }
        return json(201, { ...toWebhookView(endpoint), secret }, requestId);
      }
      case 'listWebhooks': {
        const all = await listWebhooks(deps.db, tenantId);
        return json(200, { data: all.reverse().map(toWebhookView), next_cursor: null }, requestId);
      }
      case 'getWebhook':
        return json(200, toWebhookView(await endpointOf(deps, tenantId, params.webhook_id)), requestId);
      case 'listWebhookDeliveries': {
        const endpoint = await endpointOf(deps, tenantId, params.webhook_id);
        const attempts = await listAttempts(
          deps.db,
          tenantId,
          endpoint.id,
          RECENT_DELIVERIES_LIMIT,
          deps.clock(),
        );
        return json(200, { data: attempts.map(toDeliveryAttemptView), next_cursor: null }, requestId);
      }
      case 'testWebhook':
        return json(202, await sendTest(deps, key, tenantId, params.webhook_id), requestId);
      case 'deleteWebhook': {
        const deleted =
          WEBHOOK_ID_PATTERN.test(params.webhook_id) &&
          (await deleteWebhook(deps.db, tenantId, params.webhook_id));
        if (!deleted) throw notFound();
        return { statusCode: 204, headers: { 'request-id': requestId } } satisfies ApiResult;
      }
      default:
        throw routeNotFound();
    }
  });
}

async function endpointOf(deps: Deps, tenantId: string, webhookId: string) {
  const found = WEBHOOK_ID_PATTERN.test(webhookId)
    ? await getWebhook(deps.db, tenantId, webhookId)
    : undefined;
  if (!found) throw notFound();
  return found;
}

/**
 * POST /v1/webhooks/{webhook_id}/test: a `webhook.test` event for this endpoint only, delivered by
 * the fan-out and the deliverer as any event is (signed, retried on the schedule, kept in the
 * endpoint's recent deliveries). The answer names the event: its id is the delivery's `webhook-id`.
 */
async function sendTest(deps: Deps, key: Caller, tenantId: string, webhookId: string) {
  const endpoint = await endpointOf(deps, tenantId, webhookId);
  if (endpoint.status !== 'active') {
    throw new PmailError('webhook_disabled', 'This webhook endpoint is disabled; it receives no events.', {
      details: { disabled_reason: endpoint.disabled_reason ?? null },
    });
  }
  const event = {
    id: `evt_${deps.newId()}`,
    type: WEBHOOK_TEST_EVENT,
    tenant_id: tenantId,
    created_at: deps.clock(),
    data: testEventData(endpoint.id, key.key_id),
  };
  await putTestEvent(deps.db, event, endpoint.id);
  return { delivery_id: event.id, webhook_id: endpoint.id, event_type: event.type, status: 'queued' };
}

const notFound = () => new PmailError('webhook_not_found', 'No webhook endpoint with this id.');

/** The key's tenant, for a tenant-level key holding `permission` (manage includes read). */
function tenantKey(key: Caller, permission: Permission): string {
  if (!(permission === 'webhooks:read' && key.scopes.includes('webhooks:manage')))
    requirePermission(key, permission);
  if (key.identity_ids) {
    throw new PmailError('permission_denied', 'Webhook endpoints need a tenant-level key.', {
      details: { required: permission, reason: 'tenant_key_required' },
    });
  }
  return ownTenant(key, 'Webhook endpoints');
}
