import { keptChanging, policyVersionConflict, tenantExists, tenantNotFound } from '../core/errors.ts';
import type { Tenant, TenantPolicy } from '../core/model.ts';
import { DEFAULT_TIMEZONE } from '../core/quota.ts';
import { mergePolicy, type PolicyPatch } from '../core/tenant-policy.ts';
import type { Deps } from '../deps.ts';
import { auditPut } from '../store/audit-log.store.ts';
import {
  getTenantConsistent,
  createTenant as storeTenant,
  tenantIdOfSlug,
  updateTenant,
  updateTenantPolicy,
} from '../store/tenants.store.ts';
import type { Actor } from './keys.ts';

/** Tenants and their policy. Every change writes its audit item in its own transaction. */
type Extra = Parameters<typeof storeTenant>[2];
const actorId = (a: Actor) => ('key' in a ? a.key.key_id : a.system);

export interface TenantInput {
  slug: string;
  name: string;
  mode: 'test' | 'live';
  timezone?: string;
  policy?: TenantPolicy;
}

export async function createTenant(
  deps: Pick<Deps, 'db' | 'clock' | 'newId'>,
  actor: Actor,
  input: TenantInput,
  opts: { requestId?: string; finish?: (t: Tenant) => Extra } = {},
): Promise<Tenant> {
  const now = deps.clock();
  const tenant: Tenant = {
    id: `ten_${deps.newId()}`,
    slug: input.slug,
    name: input.name,
    mode: input.mode,
    status: 'active',
    timezone: input.timezone ?? DEFAULT_TIMEZONE,
    policy: mergePolicy({}, (input.policy ?? {}) as PolicyPatch),
    policy_version: 1,
    created_at: now,
    updated_at: now,
  };
  const out = await storeTenant(deps.db, tenant, [
    auditPut(deps.db, {
      id: deps.newId(),
      tenant_id: tenant.id,
      action: 'tenant.create',
      actor: actorId(actor),
      target_type: 'tenant',
      target_id: tenant.id,
      details: { slug: tenant.slug, mode: tenant.mode },
      request_id: opts.requestId,
      created_at: now,
    }),
    ...(opts.finish?.(tenant) ?? []),
  ]);
  if (out === 'slug_taken') {
    const holder = await tenantIdOfSlug(deps.db, input.slug);
    throw tenantExists(input.slug, holder);
  }
  return tenant;
}

/** PATCH /v1/tenants/{tenant_id}: name, timezone, status (mode never changes). */
export async function changeTenant(
  deps: Pick<Deps, 'db' | 'clock' | 'newId'>,
  actor: Actor,
  tenant: Tenant,
  change: { name?: string; timezone?: string; status?: Tenant['status'] },
  requestId?: string,
): Promise<Tenant> {
  let current = tenant;
  for (let attempt = 0; attempt < 3; attempt++) {
    const now = deps.clock();
    const statusChanged = change.status !== undefined && change.status !== current.status;
    const action = !statusChanged
      ? 'tenant.update'
      : change.status === 'suspended'
        ? 'tenant.suspend'
        : 'tenant.resume';
    const done = await updateTenant(deps.db, current, change, now, [
      auditPut(deps.db, {
        id: deps.newId(),
        tenant_id: current.id,
        action,
        actor: actorId(actor),
        target_type: 'tenant',
        target_id: current.id,
        details: { ...change },
        request_id: requestId,
        created_at: now,
      }),
    ]);
    const fresh = await getTenantConsistent(deps.db, current.id);
    if (!fresh) throw tenantNotFound();
    if (done) return fresh;
    current = fresh;
  }
  throw keptChanging('tenant');
}

/**
 * PATCH /v1/tenants/{tenant_id}/policy: a deep merge (`null` resets a field) written by compare-and-set
 * on `policy_version`. With `ifVersion` the caller's read must still be current (409
 * policy_version_conflict otherwise); without it, a lost race is retried on the new policy, at most
 * three times (then 503).
 */
export async function patchPolicy(
  deps: Pick<Deps, 'db' | 'clock' | 'newId'>,
  actor: Actor,
  tenantId: string,
  patch: PolicyPatch,
  opts: { ifVersion?: number; requestId?: string; validate: (p: TenantPolicy) => void },
): Promise<Tenant> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const tenant = await getTenantConsistent(deps.db, tenantId);
    if (!tenant) throw tenantNotFound();
    const version = tenant.policy_version ?? 0;
    if (opts.ifVersion !== undefined && opts.ifVersion !== version) {
      throw policyVersionConflict(version);
    }
    const policy = mergePolicy(tenant.policy ?? {}, patch);
    opts.validate(policy);
    const now = deps.clock();
    const done = await updateTenantPolicy(deps.db, tenantId, policy, version, now, [
      auditPut(deps.db, {
        id: deps.newId(),
        tenant_id: tenantId,
        action: 'tenant.policy_update',
        actor: actorId(actor),
        target_type: 'tenant',
        target_id: tenantId,
        details: { patch, policy_version: version + 1 },
        request_id: opts.requestId,
        created_at: now,
      }),
    ]);
    if (done) return { ...tenant, policy, policy_version: version + 1, updated_at: now };
    if (opts.ifVersion !== undefined) {
      const fresh = await getTenantConsistent(deps.db, tenantId);
      throw policyVersionConflict(fresh?.policy_version ?? 0);
    }
  }
  throw keptChanging('policy');
}
