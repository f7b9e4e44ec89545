import { domainOf } from '../core/recipients.ts';
import { senderDomainDecision } from '../core/sender-domain.ts';
import type { Deps } from '../deps.ts';
import { getDomain, getTenant } from '../store/directory.store.ts';
import { DEPLOYED_PROVIDERS } from '../transports/tasks.ts';
import { chooseTransport, noTransport, type TransportChoice } from '../transports/transport.ts';

/**
 * Claim's choice of transport task (the ASL's `ByProvider`), with the sending domain re-read
 * (From address and fallback, core/sender-domain.ts): a test tenant sends through the
 * test transports; a live tenant through its sending domain's transport, which must be deployed.
 * The platform fallback sends through the Cloudflare transport (`fallbackAvailable`: its task is
 * in transports/tasks.ts); without it, or without `domain_fallback`, a failing domain's sends fail
 * (`domain_failing_no_fallback`).
 */
export async function chooseClaimTransport(
  deps: Pick<Deps, 'db' | 'config'>,
  message: {
    tenant_id: string;
    from: { address: string };
    deliveries?: { address: string; status: string }[];
  },
): Promise<TransportChoice> {
  const domainName = domainOf(message.from.address);
  const [tenant, found] = await Promise.all([
    getTenant(deps.db, message.tenant_id),
    getDomain(deps.db, domainName),
  ]);
  const domain = found && found.tenant_id === message.tenant_id ? found : undefined;
  const queued = (message.deliveries ?? []).filter((d) => d.status === 'queued');
  const live = tenant?.mode === 'live';
  // Test tenants need no domain; a domain they have still decides (a removed one sends nothing).
  if (live || domain) {
    const decision = senderDomainDecision({
      state: domain?.state,
      fallbackAllowed: tenant?.policy.domain_fallback === true,
      fallbackAvailable: DEPLOYED_PROVIDERS.includes('cloudflare'),
      isPlatformDomain: domainName === deps.config.platformDomain,
    });
    if (decision.type === 'stop') return { provider: 'none', result: decision.result };
    if (decision.type === 'fallback')
      return chooseTransport({ transport: 'cloudflare' }, queued, DEPLOYED_PROVIDERS);
  }
  if (!live) return chooseTransport({ transport: 'test' }, queued, DEPLOYED_PROVIDERS);
  if (!domain?.transport || domain.transport === 'test')
    return noTransport('the sending domain has no transport configured');
  return chooseTransport(domain, queued, DEPLOYED_PROVIDERS);
}
