import { relayRefusalAtSend } from '../core/domains.ts';
import type { DomainRecord } from '../core/model.ts';
import type { TransportResult } from '../core/transport-result.ts';
import type { Deps } from '../deps.ts';
import { errorFields } from '../log.ts';
import { saveDomain } from '../store/domains.store.ts';

/**
 * A send whose relay refused the login (`smtp_auth_failed`) or hid STARTTLS (`smtp_tls_required`)
 * moves its sending domain to `failing` with that reason at once (core/domains.ts ›
 * relayRefusalAtSend), so the sends after it fail at the claim (`domain_failing_no_fallback`)
 * instead of trying the same login until the next probe; a PATCH of the relay settings or a passing
 * `…/verify` makes it healthy again. `domain` is the record the send used: the write is conditioned
 * on its `updated_at`, so a PATCH or a check that wrote the domain since (newer settings, a newer
 * probe) wins and this one is dropped. Best effort, never thrown: the send's own result is what the
 * attempt records, and the next domain check finds the same refusal.
 */
export async function failDomainOnRelayRefusal(
  deps: Pick<Deps, 'db' | 'clock' | 'log'>,
  domain: DomainRecord,
  result: TransportResult,
): Promise<void> {
  const moved = relayRefusalAtSend(domain, result);
  if (!moved) return;
  const now = deps.clock();
  const next: DomainRecord = {
    ...domain,
    ...moved,
    checked_at: now,
    updated_at: Math.max(now, (domain.updated_at ?? 0) + 1),
  };
  try {
    const written = await saveDomain(deps.db, next, domain.updated_at);
    deps.log.info(written ? 'domain state moved' : 'domain changed since the send read it; left as is', {
      domain_id: domain.id,
      from: domain.state,
      to: written ? next.state : domain.state,
      reason: moved.state_reason,
      by: 'send',
    });
  } catch (err) {
    deps.log.warn('domain not moved after a relay refusal; the next check will', {
      domain_id: domain.id,
      reason: moved.state_reason,
      ...errorFields(err),
    });
  }
}
