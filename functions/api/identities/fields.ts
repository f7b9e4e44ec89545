import * as z from 'zod';
import { dailyCapRefusal } from '../../core/guardrails.ts';
import { HOLD_POLICIES } from '../../core/hold.ts';
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
  require_approval: z.union([z.boolean(), z.literal('first_contact')]).optional(),
});
const receivePolicy = z.strictObject({
  hold: z.enum(HOLD_POLICIES).optional(),
  stranger_rate: z
    .strictObject({
      per_sender: z.number().int().min(1).max(100_000).optional(),
      total: z.number().int().min(1).max(100_000).optional(),
    })
    .optional(),
});
const metadata = z
  .record(z.string().min(1).max(40), z.string().max(500))
  .refine((m) => Object.keys(m).length <= 20, { message: 'at most 20 entries' });

export const identityFieldSchemas = { owner, sendPolicy, receivePolicy, metadata };

/** The tenant's ceiling on an identity's own daily cap, checked by core/guardrails.ts › dailyCapRefusal. */
export function checkIdentityCap(key: Caller, tenant: Tenant, dailyCap: number | undefined): void {
  const ceiling = tenant.policy?.identity_daily_send_cap ?? POLICY_DEFAULTS.identity_daily_send_cap;
  const refusal = dailyCapRefusal(key.scope, dailyCap, ceiling);
  if (refusal) throw refusal;
}
