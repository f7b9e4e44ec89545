import { z } from 'zod';
import { createIdentity } from '../admin/identities.ts';
import { changeTenant, createTenant, patchPolicy } from '../admin/tenants.ts';
import { effectivePolicy, toTenantView } from '../core/admin-views.ts';
import { PmailError, routeNotFound, tenantNotFound } from '../core/errors.ts';
import { toIdentityView } from '../core/identity-view.ts';
import type { Tenant, TenantPolicy } from '../core/model.ts';
import { HARD_MAX_RECIPIENTS } from '../core/recipients.ts';
import type { Deps } from '../deps.ts';
import { listIdentities } from '../store/identities.store.ts';
import { getTenantConsistent, listTenants } from '../store/tenants.store.ts';
import { authenticate, type Caller, requirePermission } from './auth.ts';
import { idempotentControl } from './control.ts';
import { decodeCursor, encodeCursor } from './cursor.ts';
import { POLICY_DEFAULTS } from './directory/policy.ts';
import { bodyOf, header, json, routeGroup } from './http.ts';
import { checkIdentityCap, identityFieldSchemas } from './identities/fields.ts';
import { parseBody, parseQuery } from './parse.ts';
import { requireLevel, tenantInReach } from './scope.ts';
import { oneLine } from './send.schema.ts';

const cap = z.number().int().min(1).max(10_000_000);
const rate = z.number().min(0).max(1);
/** The policy fields a PATCH may send; `null` resets a field to its default. */
const policyFields = {
  max_recipients: z.number().int().min(1).max(HARD_MAX_RECIPIENTS).nullable().optional(),
  daily_send_cap: cap.nullable().optional(),
  identity_daily_send_cap: cap.nullable().optional(),
  send_allowlist_only: z.boolean().nullable().optional(),
  large_attachments: z.enum(['reject', 'link']).nullable().optional(),
  unconfigured_transport: z.enum(['refuse', 'hold']).nullable().optional(),
  abuse: z
    .strictObject({
      complaint_rate_pause: rate.nullable().optional(),
      bounce_rate_pause: rate.nullable().optional(),
    })
    .nullable()
    .optional(),
  auto_reply: z
    .strictObject({
      enabled: z.boolean().nullable().optional(),
      max_automatic_exchanges: z.number().int().min(0).max(10).nullable().optional(),
    })
    .nullable()
    .optional(),
};

/** PATCH /v1/tenants/{tenant_id}/policy (openapi.yaml PolicyPatchRequest). */
export const policyPatchSchema = z.strictObject({
  ...policyFields,
  policy_version: z.number().int().min(0).optional(),
});

const timezone = z
  .string()
  .min(1)
  .max(64)
  .refine(
    (tz) => {
      try {
        new Intl.DateTimeFormat('en', { timeZone: tz });
        return true;
      } catch {
        return false;
      }
    },
    { message: 'must be an IANA time zone' },
  );

/** POST /v1/tenants (openapi.yaml TenantCreateRequest). */
export const createTenantSchema = z.strictObject({
  slug: z.string().regex(/^[a-z0-9](?:[a-z0-9-]{0,30}[a-z0-9])?$/),
  name: z.string().min(1).max(200),
  mode: z.enum(['test', 'live']),
  timezone: timezone.optional(),
  policy: z.strictObject(policyFields).optional(),
});

/** PATCH /v1/tenants/{tenant_id} (openapi.yaml TenantUpdateRequest); `mode` never changes. */
export const updateTenantSchema = z
  .strictObject({
    name: z.string().min(1).max(200).optional(),
    timezone: timezone.optional(),
    status: z.enum(['active', 'suspended']).optional(),
  })
  .refine((b) => Object.keys(b).length > 0, { message: 'name, timezone or status is required' });

/** POST /v1/tenants/{tenant_id}/identities (openapi.yaml IdentityCreateRequest). */
export const createIdentitySchema = z.strictObject({
  username: z.string().min(1).max(64),
  display_name: oneLine(100).optional(),
  owner: identityFieldSchemas.owner.optional(),
  domain: z.string().min(1).max(253).optional(),
  send_policy: identityFieldSchemas.sendPolicy.optional(),
  metadata: identityFieldSchemas.metadata.optional(),
  client_id: z.string().min(1).max(128).optional(),
});

const page = {
  limit: z.coerce.number().int().min(1).max(100).default(25),
  cursor: z.string().max(400).optional(),
};
/** GET /v1/tenants query. */
export const listTenantsQuerySchema = z.strictObject({
  ...page,
  status: z.enum(['active', 'suspended']).optional(),
  mode: z.enum(['test', 'live']).optional(),
});
/** GET /v1/tenants/{tenant_id}/identities query. */
export const listIdentitiesQuerySchema = z.strictObject({
  ...page,
  status: z.enum(['active', 'paused', 'deleted']).optional(),
  client_id: z.string().min(1).max(128).optional(),
});

const tenantView = (t: Tenant) => toTenantView(t, effectivePolicy(t.policy ?? {}, POLICY_DEFAULTS));
const policyView = (t: Tenant) => ({
  tenant_id: t.id,
  policy_version: t.policy_version ?? 0,
  policy: effectivePolicy(t.policy ?? {}, POLICY_DEFAULTS),
});

function checkPolicy(p: TenantPolicy): void {
  const tenantCap = p.daily_send_cap ?? POLICY_DEFAULTS.daily_send_cap;
  const identityCap = p.identity_daily_send_cap ?? POLICY_DEFAULTS.identity_daily_send_cap;
  if (identityCap > tenantCap)
    throw new PmailError('invalid_request', 'identity_daily_send_cap cannot exceed daily_send_cap.', {
      details: { errors: [{ path: 'identity_daily_send_cap', message: `must be at most ${tenantCap}` }] },
    });
}

/**
 * The `directory` route group: tenants (`tenants:manage`, platform keys), their policy
 * (`policy:write`, platform keys or the tenant's own tenant key) and the creation and listing of
 * identities (`identities:read|write`, platform or tenant keys). A tenant out of reach answers
 * exactly as a missing one.
 */
export function directoryApi(deps: Deps) {
  return routeGroup(deps, async ({ event, route, params, requestId }) => {
    const key = await authenticate(deps, header(event, 'authorization'));
    const actor = { key: key.scope };
    switch (route.operation) {
      case 'createTenant': {
        platformTenants(key);
        const body = parseBody(bodyOf(event), createTenantSchema);
        if (body.policy) checkPolicy(body.policy as TenantPolicy);
        return idempotentControl(deps, key, event, route.operation, body, requestId, async (finish) => {
          const t = await createTenant(deps, actor, body as Parameters<typeof createTenant>[2], {
            requestId,
            finish: finish && ((t) => finish(201, tenantView(t))),
          });
          return json(201, tenantView(t), requestId);
        });
      }
      case 'listTenants': {
        platformTenants(key);
        const q = parseQuery(event, listTenantsQuerySchema);
        const out = await listTenants(deps.db, {
          limit: q.limit,
          after: q.cursor === undefined ? undefined : decodeCursor(q.cursor),
        });
        const data = out.data.filter(
          (t) => (!q.status || t.status === q.status) && (!q.mode || t.mode === q.mode),
        );
        return json(200, { data: data.map(tenantView), next_cursor: encodeCursor(out.next) }, requestId);
      }
      case 'getTenant': {
        if (key.scope.level === 'platform') requirePermission(key, 'tenants:manage');
        requireLevel(key, ['platform', 'tenant'], 'Reading a tenant');
        const t = await tenantInReach(deps.db, key, params.tenant_id);
        return json(200, tenantView(t), requestId);
      }
      case 'updateTenant': {
        platformTenants(key);
        const body = parseBody(bodyOf(event), updateTenantSchema);
        const t = await tenantInReach(deps.db, key, params.tenant_id);
        const fresh = await changeTenant(deps, actor, t, body, requestId);
        return json(200, tenantView(fresh), requestId);
      }
      case 'getTenantPolicy': {
        requirePermission(key, 'policy:write');
        requireLevel(key, ['platform', 'tenant'], 'The tenant policy');
        await tenantInReach(deps.db, key, params.tenant_id);
        const t = await getTenantConsistent(deps.db, params.tenant_id);
        if (!t) throw tenantNotFound();
        return json(200, policyView(t), requestId);
      }
      case 'updateTenantPolicy': {
        requirePermission(key, 'policy:write');
        requireLevel(key, ['platform', 'tenant'], 'The tenant policy');
        const { policy_version, ...patch } = parseBody(bodyOf(event), policyPatchSchema);
        await tenantInReach(deps.db, key, params.tenant_id);
        const t = await patchPolicy(deps, actor, params.tenant_id, patch, {
          ifVersion: policy_version,
          requestId,
          validate: checkPolicy,
        });
        return json(200, policyView(t), requestId);
      }
      case 'createIdentity': {
        requirePermission(key, 'identities:write');
        requireLevel(key, ['platform', 'tenant'], 'Creating an identity');
        const body = parseBody(bodyOf(event), createIdentitySchema);
        const tenant = await tenantInReach(deps.db, key, params.tenant_id);
        checkIdentityCap(key, tenant, body.send_policy?.daily_cap);
        return idempotentControl(deps, key, event, route.operation, body, requestId, async (finish) => {
          const out = await createIdentity(deps, actor, tenant, body, {
            requestId,
            finish: finish && ((i) => finish(201, toIdentityView(i))),
          });
          return json(out.created ? 201 : 200, toIdentityView(out.identity), requestId);
        });
      }
      case 'listIdentities': {
        requirePermission(key, 'identities:read');
        requireLevel(key, ['platform', 'tenant'], 'Listing identities');
        const q = parseQuery(event, listIdentitiesQuerySchema);
        const tenant = await tenantInReach(deps.db, key, params.tenant_id);
        const out = await listIdentities(deps.db, tenant.id, {
          limit: q.limit,
          after: q.cursor === undefined ? undefined : decodeCursor(q.cursor),
        });
        const data = out.data.filter(
          (i) => (!q.status || i.status === q.status) && (!q.client_id || i.client_id === q.client_id),
        );
        return json(200, { data: data.map(toIdentityView), next_cursor: encodeCursor(out.next) }, requestId);
      }
      default:
        throw routeNotFound();
    }
  });
}

/** tenants:manage, which only platform keys can hold. */
function platformTenants(key: Caller): void {
  requirePermission(key, 'tenants:manage');
  requireLevel(key, ['platform'], 'Managing tenants');
}
