import * as z from 'zod';
import { PmailError } from '../../core/errors.ts';
import type { Tenant } from '../../core/model.ts';
import type { Caller } from '../auth.ts';
import { POLICY_DEFAULTS } from '../directory/settings.ts';

/** The identity fields its create (`directory` group) and its change (`identities` group) share. */

const owner = z.strictObject({
  name: z.string().min(1).max(100),
  email: z
    .string()
    .max(320)
    .regex(/^[^\s@]+@[^\s@]+\.[^\s@]+$/),
});
const sendPolicy = z.strictObject({
  require_known_recipient: z.boolean().optional(),
  daily_cap: z.number().int().min(1).max(10_000_000).optional(),
  require_approval: z.boolean().optional(),
});
const metadata = z
  .record(z.string().min(1).max(40), z.string().max(500))
  .refine((m) => Object.keys(m).length <= 20, { message: 'at most 20 entries' });

export const identityFieldSchemas = { owner, sendPolicy, metadata };

/**
 * An identity's own `send_policy.daily_cap` above the tenant's `identity_daily_send_cap` needs a
 * platform key (public design › Identities): a tenant cannot raise its own ceiling this way.
 */
export function checkIdentityCap(key: Caller, tenant: Tenant, dailyCap: number | undefined): void {
  if (dailyCap === undefined || key.scope.level === 'platform') return;
  const ceiling = tenant.policy?.identity_daily_send_cap ?? POLICY_DEFAULTS.identity_daily_send_cap;
  if (dailyCap > ceiling)
    throw new PmailError('scope_denied', 'Only a platform key can set a daily cap above the tenant’s.', {
      details: { field: 'send_policy.daily_cap', ceiling, required_level: 'platform' },
    });
}
