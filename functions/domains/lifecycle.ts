import {
  CLOUDFLARE_UNCHECKED,
  inboundMxPublished,
  nextDomainState,
  nextRelayDomainState,
} from '../core/domains.ts';
import { domainBusy, relayProbeUnavailable } from '../core/errors.ts';
import type { DomainRecord } from '../core/model.ts';
import type { Deps } from '../deps.ts';
import { getDomain } from '../store/directory.store.ts';
import { listRegisteredDomains, saveDomain } from '../store/domains.store.ts';
import type { SecretStore } from '../store/relay-secrets.store.ts';
import type { SesIdentities } from './ses-identities.ts';
import { PROBE_TIMEOUT_MS, type SmtpProbe } from './smtp-probe.ts';

/**
 * What a domain check reads per transport: the SES identity (`ses`), the SMTP relay probe (`smtp`;
 * the SMTP transport Lambda in AWS), nothing for `cloudflare` (core/domains.ts ›
 * CLOUDFLARE_UNCHECKED). `secrets`: where DELETE removes an `smtp` domain's credentials (the domains
 * API only; the scheduled check cannot write secrets and leaves them).
 */
export interface DomainCheckPorts {
  identities: SesIdentities;
  probeSmtp?: SmtpProbe;
  secrets?: SecretStore;
  /** How long a probe may take here. @default PROBE_TIMEOUT_MS.api */
  probeTimeoutMs?: number;
  /** The Region where the deployment receives mail (PMAIL_INBOUND_REGION); none: no MX check. */
  inboundRegion?: string;
  /** The MX hosts of a domain ([] when it has none); the check reports whether SES's is among them. */
  resolveMx?: MxLookup;
}

export type MxLookup = (domain: string) => Promise<string[]>;

/**
 * Check the domain with its provider and move its state: the SES identity (core/domains.ts ›
 * nextDomainState), the SMTP relay probe (nextRelayDomainState); a `cloudflare` domain is not
 * checked (CLOUDFLARE_UNCHECKED) and a `test` one is left as it is.
 */
export async function checkDomain(
  deps: Pick<Deps, 'db' | 'clock' | 'log'>,
  ports: DomainCheckPorts,
  d: DomainRecord,
): Promise<DomainRecord> {
  if (d.state === 'removing') return removeDomain(deps, ports, d);
  const moved = await checkWithProvider(ports, d);
  if (!moved) return d;
  const mx = await inboundMx(deps, ports, d);
  const now = deps.clock();
  const next: DomainRecord = {
    ...d,
    ...(mx === undefined ? {} : { inbound_mx_published: mx }),
    state: moved.state,
    ...(moved.state_reason ? { state_reason: moved.state_reason } : { state_reason: undefined }),
    checked_at: now,
    updated_at: Math.max(now, (d.updated_at ?? 0) + 1),
  };
  if (!(await saveDomain(deps.db, next, d.updated_at))) throw domainBusy();
  if (next.state !== d.state) {
    deps.log.info('domain state moved', {
      domain_id: d.id,
      from: d.state,
      to: next.state,
      reason: moved.state_reason,
    });
  }
  return next;
}

/**
 * Whether an `ses` domain's MX names SES receiving of the deployment's Region (reported on the
 * domain, never a reason to move its state); undefined when not checked or DNS did not answer.
 */
async function inboundMx(
  deps: Pick<Deps, 'log'>,
  ports: DomainCheckPorts,
  d: DomainRecord,
): Promise<boolean | undefined> {
  if (d.transport !== 'ses' || !ports.inboundRegion || !ports.resolveMx) return undefined;
  try {
    return inboundMxPublished(await ports.resolveMx(d.domain), ports.inboundRegion);
  } catch (err) {
    deps.log.warn('domain MX lookup failed', { domain_id: d.id, error: String(err).slice(0, 200) });
    return undefined;
  }
}

async function checkWithProvider(
  ports: DomainCheckPorts,
  d: DomainRecord,
): Promise<{ state: DomainRecord['state']; state_reason?: string } | undefined> {
  switch (d.transport) {
    case 'ses':
      return nextDomainState(d, await ports.identities.get(d.domain, d.ses?.region));
    case 'smtp': {
      if (!ports.probeSmtp) throw relayProbeUnavailable();
      const probe = await ports.probeSmtp(d, ports.probeTimeoutMs ?? PROBE_TIMEOUT_MS.api);
      return nextRelayDomainState(d, probe);
    }
    case 'cloudflare':
      return d.state === 'suspended' || d.state === 'removed'
        ? undefined
        : { state: 'healthy', state_reason: CLOUDFLARE_UNCHECKED };
    default:
      return undefined;
  }
}

/**
 * DELETE: `removing` first (sends from it stop at once: the claim reads the state), then the SES
 * identity is deleted and the domain is `removed`. A failure in between leaves it `removing`, which
 * the scheduled check finishes.
 */
export async function removeDomain(
  deps: Pick<Deps, 'db' | 'clock'>,
  ports: DomainCheckPorts,
  d: DomainRecord,
): Promise<DomainRecord> {
  if (d.state === 'removed') return d;
  let current = d;
  if (current.state !== 'removing') {
    const removing: DomainRecord = {
      ...current,
      state: 'removing',
      state_reason: 'removed_by_api',
      updated_at: Math.max(deps.clock(), (current.updated_at ?? 0) + 1),
    };
    if (!(await saveDomain(deps.db, removing, current.updated_at))) throw domainBusy();
    current = removing;
  }
  if (current.transport === 'ses') await ports.identities.delete(current.domain, current.ses?.region);
  if (current.transport === 'smtp' && current.smtp?.secret_ref && ports.secrets)
    await ports.secrets.remove(current.smtp.secret_ref);
  const removed: DomainRecord = {
    ...current,
    state: 'removed',
    updated_at: Math.max(deps.clock(), (current.updated_at ?? 0) + 1),
  };
  if (!(await saveDomain(deps.db, removed, current.updated_at))) throw domainBusy();
  return removed;
}

/**
 * The scheduled check (EventBridge, lib/domains.ts): every registered `ses` or `smtp` domain not
 * suspended or removed is read back from SES or probed, and its state moved; a `removing` one (any
 * transport) is finished. One domain's
 * failure does not stop the others.
 */
/** Domains the scheduled check works on at once. */
const CHECK_CONCURRENCY = 8;

export async function checkAllDomains(
  deps: Pick<Deps, 'db' | 'clock' | 'log'>,
  ports: DomainCheckPorts,
): Promise<{ checked: number; failed: number }> {
  let after: string | undefined;
  let checked = 0;
  let failed = 0;
  const checkOne = async (name: string) => {
    const d = await getDomain(deps.db, name);
    if (!d || d.state === 'removed' || d.state === 'suspended') return;
    if (d.transport !== 'ses' && d.transport !== 'smtp' && d.state !== 'removing') return;
    try {
      await checkDomain(deps, ports, d);
      checked++;
    } catch (err) {
      failed++;
      deps.log.warn('domain check failed', { domain_id: d.id, error: String(err).slice(0, 200) });
    }
  };
  do {
    const page = await listRegisteredDomains(deps.db, after);
    // A few at a time: one relay that stalls for its whole probe budget does not hold up the rest.
    for (let i = 0; i < page.domains.length; i += CHECK_CONCURRENCY) {
      await Promise.all(page.domains.slice(i, i + CHECK_CONCURRENCY).map(checkOne));
    }
    after = page.next;
  } while (after);
  return { checked, failed };
}
