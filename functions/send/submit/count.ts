import { alwaysNeedsApproval } from '../../core/approval.ts';
import { dailyCapReached, rateLimited } from '../../core/errors.ts';
import type { Tenant } from '../../core/model.ts';
import { counterDay } from '../../core/quota.ts';
import { capsFor } from '../../core/submit-pipeline.ts';
import type { Deps } from '../../deps.ts';
import {
  type EarlyLease,
  leaseAhead,
  rateRetryAfter,
  reserveSend,
  type SendCounters,
} from '../../store/quota.store.ts';
import type { Decided } from './decide.ts';
import { keyFlags, type SubmitInput } from './input.ts';

/**
 * The identity's lease was used up when the first read found it (`lease ≤ sends` on the tenant's
 * local day): lease the next block now that the tenant is read (its time zone and caps decide the
 * day and the block), beside the pipeline's decision and the composition, so the count that starts
 * a block is one write like any other (store/quota.store.ts `leaseAhead`).
 */
export function leaseEarly(
  deps: Pick<Deps, 'db' | 'clock'>,
  input: SubmitInput,
  tenant: Tenant,
): EarlyLease | undefined {
  if (input.dryRun || alwaysNeedsApproval(input.identity, keyFlags(input))) return undefined;
  const { day, expiresAt } = counterDay(deps.clock(), tenant.timezone);
  const c = input.first.counters[day] ?? { sends: 0, lease: 0 };
  if (c.lease > c.sends) return undefined;
  return leaseAhead(deps.db, {
    tenantId: tenant.id,
    day,
    expiresAt,
    caps: capsFor(tenant, input.identity),
    seen: c.lease,
  });
}

/** The day's counts before and after a send's reservation (quota.warning). */
export type QuotaCounts = {
  before: { tenant: number; identity: number };
  after: { tenant: number; identity: number };
};

/** What a send's count took: the counters (to give back), the day on the message, the warnings' counts. */
export interface Counted {
  /** The rate window, and the daily caps when `daily`. */
  counters: SendCounters & { daily: boolean };
  /** The day counted, stored on the message: cancel gives the count back to exactly that day. */
  quotaDay?: string;
  quota?: QuotaCounts;
}

/**
 * Count (docs/architecture.md › The submit path): the rate window and both daily caps, or nothing,
 * as one reservation of the tenant's quota, in the tenant's time zone; a fully suppressed send
 * counts in the rate window only. A send waiting for a person's approval counts nothing (approval
 * takes the count, send/approval.ts, on the day it approves).
 */
export async function count(
  deps: Pick<Deps, 'db'>,
  d: Decided,
  early: EarlyLease | undefined,
): Promise<Counted | undefined> {
  if (d.pending) return undefined;
  const { day, resetsAt, expiresAt } = counterDay(d.started, d.tenant.timezone);
  const { caps } = d.prepared;
  const counters = { tenantId: d.tenant.id, identityId: d.identity.id, day, now: d.started, expiresAt };
  const reserved = await reserveSend(deps.db, { ...counters, ...(d.suppressedAll ? {} : { caps, early }) });
  if (!reserved.ok) {
    if (reserved.refused === 'rate') throw rateLimited(rateRetryAfter(d.started));
    throw dailyCapReached(reserved.refused, caps[reserved.refused], resetsAt, d.started);
  }
  if (d.suppressedAll) return { counters: { ...counters, daily: false } };
  return {
    counters: { ...counters, daily: true },
    quotaDay: day,
    quota: { before: reserved.before, after: reserved.after },
  };
}
