import { nextDomainState } from '../core/domains.ts';
import { PmailError } from '../core/errors.ts';
import type { DomainRecord } from '../core/model.ts';
import type { Deps } from '../deps.ts';
import { getDomain } from '../store/directory.store.ts';
import { listRegisteredDomains, saveDomain } from '../store/domains.store.ts';
import type { SesIdentities } from './ses-identities.ts';

/** Read the SES identity and move the domain's state (seed 000 › core/domains.ts › nextDomainState). */
export async function checkDomain(
  deps: Pick<Deps, 'db' | 'clock' | 'log'>,
  identities: SesIdentities,
  d: DomainRecord,
): Promise<DomainRecord> {
  if (d.state === 'removing') return removeDomain(deps, identities, d);
  const status = await identities.get(d.domain, d.ses?.region);
  const moved = nextDomainState(d, status);
  const now = deps.clock();
  const next: DomainRecord = {
    ...d,
    state: moved.state,
    ...(moved.state_reason ? { state_reason: moved.state_reason } : { state_reason: undefined }),
    checked_at: now,
    updated_at: Math.max(now, (d.updated_at ?? 0) + 1),
  };
  if (!(await saveDomain(deps.db, next, d.updated_at))) throw busy();
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
 * DELETE: `removing` first (sends from it stop at once: the claim reads the state), then the SES
 * identity is deleted and the domain is `removed`. A failure in between leaves it `removing`, which
 * the scheduled check finishes.
 */
export async function removeDomain(
  deps: Pick<Deps, 'db' | 'clock'>,
  identities: SesIdentities,
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
    if (!(await saveDomain(deps.db, removing, current.updated_at))) throw busy();
    current = removing;
  }
  if (current.transport === 'ses') await identities.delete(current.domain, current.ses?.region);
  const removed: DomainRecord = {
    ...current,
    state: 'removed',
    updated_at: Math.max(deps.clock(), (current.updated_at ?? 0) + 1),
  };
  if (!(await saveDomain(deps.db, removed, current.updated_at))) throw busy();
  return removed;
}

export const busy = () =>
  new PmailError('unavailable', 'The domain changed while this request ran; retry.', {
    details: { reason: 'domain_busy' },
  });

/**
 * The scheduled check (EventBridge, lib/domains.ts): every registered domain not suspended or
 * removed is read back from SES and its state moved; a `removing` one is finished. One domain's
 * failure does not stop the others.
 */
export async function checkAllDomains(
  deps: Pick<Deps, 'db' | 'clock' | 'log'>,
  identities: SesIdentities,
): Promise<{ checked: number; failed: number }> {
  let after: string | undefined;
  let checked = 0;
  let failed = 0;
  do {
    const page = await listRegisteredDomains(deps.db, after);
    for (const name of page.domains) {
      const d = await getDomain(deps.db, name);
      if (!d || d.state === 'removed' || d.state === 'suspended' || d.transport !== 'ses') continue;
      try {
        await checkDomain(deps, identities, d);
        checked++;
      } catch (err) {
        failed++;
        deps.log.warn('domain check failed', { domain_id: d.id, error: String(err).slice(0, 200) });
      }
    }
    after = page.next;
  } while (after);
  return { checked, failed };
}
