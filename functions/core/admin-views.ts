import { keyStatus } from './keys.ts';
import type { ApiKeyDefinition, Tenant, TenantPolicy } from './model.ts';

/** The API shapes of keys, tenants, policies and audit items (openapi.yaml). Pure. */
const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());

export function toKeyView(d: ApiKeyDefinition, now: number) {
  return {
    id: d.key_id,
    name: d.name,
    level: d.level,
    mode: d.mode,
    tenant_id: d.tenant_id ?? null,
    identity_id: d.identity_id ?? null,
    permissions: d.scopes,
    sends_need_approval: d.sends_need_approval === true,
    status: keyStatus(d, now),
    expires_at: iso(d.expires_at),
    last_used_at: iso(d.last_used_at),
    revoked_at: iso(d.revoked_at),
    created_by: d.created_by,
    created_at: iso(d.created_at)!,
  };
}

/** The defaults of every policy field the send path enforces (their owners' constants). */
export function effectivePolicy(
  stored: TenantPolicy,
  defaults: Required<Omit<TenantPolicy, 'ai_disclosure' | 'domain_fallback'>>,
) {
  return {
    ...defaults,
    ...stored,
    abuse: { ...defaults.abuse, ...stored.abuse },
    auto_reply: { ...defaults.auto_reply, ...stored.auto_reply },
  };
}

export function toTenantView(t: Tenant, policy: ReturnType<typeof effectivePolicy>) {
  return {
    id: t.id,
    slug: t.slug ?? null,
    name: t.name,
    mode: t.mode,
    status: t.status,
    timezone: t.timezone,
    policy,
    policy_version: t.policy_version ?? 0,
    suspended_at: iso(t.suspended_at),
    created_at: iso(t.created_at),
    updated_at: iso(t.updated_at),
  };
}

/**
 * An audit item as the API shows it. Older items name their target by `identity_id` (identity
 * status changes) or `message_id` (resolve, cancel) and their time by `at`.
 */
export function toAuditView(item: Record<string, unknown>) {
  const target =
    item.target_type !== undefined
      ? { type: item.target_type, id: item.target_id }
      : item.message_id !== undefined
        ? { type: 'message', id: item.message_id }
        : { type: 'identity', id: item.identity_id ?? null };
  const tenant = String(item.pk).startsWith('T#') ? String(item.pk).slice(2) : null;
  return {
    id: `aud_${String(item.sk).slice(3)}`,
    tenant_id: tenant,
    actor_key_id: (item.actor as string | undefined) ?? null,
    action: item.action as string,
    target_type: target.type as string,
    target_id: (target.id as string | null) ?? null,
    details: (item.details as Record<string, unknown> | undefined) ?? {},
    request_id: (item.request_id as string | undefined) ?? null,
    created_at: iso((item.created_at ?? item.at) as number | undefined),
  };
}
