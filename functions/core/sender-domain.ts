import type { DomainState } from './model.ts';
import type { TransportResult } from './transport-result.ts';

/**
 * From address and fallback: the state of the sending domain, re-read when the
 * message is claimed, decides whether it leaves as composed, through the platform fallback, or not
 * at all.
 *
 * | state | behaviour |
 * |---|---|
 * | healthy, degraded | send as composed |
 * | failing, suspended (and pending, verifying: no longer verified), `domain_fallback` on, a fallback transport deployed, not the platform domain | fallback: platform address, `sent_via_fallback`, thread `fallback_pinned` |
 * | the same without fallback | `failed`, `domain_failing_no_fallback`; nothing is sent |
 * | removing, removed, no domain | `rejected`, `sender_domain_unavailable` |
 */
export type SenderDomainDecision =
  | { type: 'send' }
  | { type: 'fallback' }
  | { type: 'stop'; result: Extract<TransportResult, { type: 'rejected' }> };

export interface SenderDomainInput {
  /** Absent: the address is on no sending domain (test tenants need none). */
  state: DomainState | undefined;
  /** The tenant's `policy.domain_fallback` (default false). */
  fallbackAllowed: boolean;
  /** A fallback transport (the platform domain's) is deployed. */
  fallbackAvailable: boolean;
  /** The domain is the platform domain itself, which has no fallback. */
  isPlatformDomain: boolean;
}

export function senderDomainDecision(input: SenderDomainInput): SenderDomainDecision {
  switch (input.state) {
    case 'healthy':
    case 'degraded':
      return { type: 'send' };
    case 'failing':
    case 'suspended':
    case 'pending':
    case 'verifying':
      if (input.fallbackAllowed && input.fallbackAvailable && !input.isPlatformDomain)
        return { type: 'fallback' };
      return {
        type: 'stop',
        result: {
          type: 'rejected',
          status: 'failed',
          reason: 'domain_failing_no_fallback',
          code: 'E_DOMAIN_FAILING',
          detail: `the sending domain is ${input.state} and no fallback applies`,
        },
      };
    default:
      return {
        type: 'stop',
        result: {
          type: 'rejected',
          reason: 'sender_domain_unavailable',
          code: 'E_DOMAIN_UNAVAILABLE',
          detail: input.state
            ? `the sending domain is ${input.state}`
            : 'the sender address is on no sending domain',
        },
      };
  }
}
