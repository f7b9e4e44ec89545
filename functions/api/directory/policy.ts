import { DEFAULT_BOUNCE_RATE_PAUSE, DEFAULT_COMPLAINT_RATE_PAUSE } from '../../core/abuse.ts';
import type { TenantPolicy } from '../../core/model.ts';
import { DEFAULT_IDENTITY_DAILY_CAP, DEFAULT_TENANT_DAILY_CAP } from '../../core/quota.ts';
import { DEFAULT_MAX_RECIPIENTS } from '../../core/recipients.ts';
import { DEFAULT_MAX_AUTOMATIC_EXCHANGES } from '../../core/reply.ts';

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
