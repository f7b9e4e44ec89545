import * as z from 'zod';
import { DEFAULT_BOUNCE_RATE_PAUSE, DEFAULT_COMPLAINT_RATE_PAUSE } from '../../core/abuse.ts';
import { effectivePolicy, toTenantView } from '../../core/admin-views.ts';
import { identityCapAboveTenantCap } from '../../core/errors.ts';
import type { Tenant, TenantPolicy } from '../../core/model.ts';
import { DEFAULT_IDENTITY_DAILY_CAP, DEFAULT_TENANT_DAILY_CAP } from '../../core/quota.ts';
import { DEFAULT_MAX_RECIPIENTS, HARD_MAX_RECIPIENTS } from '../../core/recipients.ts';
import { DEFAULT_MAX_AUTOMATIC_EXCHANGES } from '../../core/reply.ts';
import type { Caller } from '../auth.ts';
import { requireLevel } from '../scope.ts';

/**
 * The tenant settings the `directory` operations share: the policy (its defaults, the fields a
 * create or a PATCH may send, the check across them), the time zone, the tenant and policy views,
 * and the key levels the tenant and policy operations need.
 */

/** The policy defaults, from the constants the send path enforces. */
export const POLICY_DEFAULTS: Required<Omit<TenantPolicy, 'ai_disclosure' | 'domain_fallback'>> = {
  max_recipients: DEFAULT_MAX_RECIPIENTS,
  daily_send_cap: DEFAULT_TENANT_DAILY_CAP,
  identity_daily_send_cap: DEFAULT_IDENTITY_DAILY_CAP,
  send_allowlist_only: false,
  large_attachments: 'reject',
  unconfigured_transport: 'refuse',
  abuse: { complaint_rate_pause: DEFAULT_COMPLAINT_RATE_PAUSE, bounce_rate_pause: DEFAULT_BOUNCE_RATE_PAUSE },
  auto_reply: { enabled: true, max_automatic_exchanges: DEFAULT_MAX_AUTOMATIC_EXCHANGES },
};

const cap = z.number().int().min(1).max(10_000_000);
const rate = z.number().min(0).max(1);
/** The policy fields a create or a PATCH may send; in a PATCH `null` resets a field to its default. */
export const policyFields = {
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

/** A tenant's time zone: an IANA name. */
export const timezone = z
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

/** The identity cap of a policy is at most its tenant cap (each field or its default). */
export function checkPolicy(p: TenantPolicy): void {
  const tenantCap = p.daily_send_cap ?? POLICY_DEFAULTS.daily_send_cap;
  const identityCap = p.identity_daily_send_cap ?? POLICY_DEFAULTS.identity_daily_send_cap;
  if (identityCap > tenantCap) throw identityCapAboveTenantCap(tenantCap);
}

export const tenantView = (t: Tenant) => toTenantView(t, effectivePolicy(t.policy ?? {}, POLICY_DEFAULTS));

export const policyView = (t: Tenant) => ({
  tenant_id: t.id,
  policy_version: t.policy_version ?? 0,
  policy: effectivePolicy(t.policy ?? {}, POLICY_DEFAULTS),
});

/** Managing tenants: `tenants:manage`, which only platform keys can hold, on a platform key. */
export const requirePlatformKey = (key: Caller) => requireLevel(key, ['platform'], 'Managing tenants');

/** The tenant policy: a platform key or the tenant's own tenant key. */
export const requirePolicyLevel = (key: Caller) =>
  requireLevel(key, ['platform', 'tenant'], 'The tenant policy');
