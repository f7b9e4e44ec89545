import { identityNotFound, PmailError } from './errors.ts';
import type { Identity, Tenant } from './model.ts';

/**
 * Checks 1–4, shared by every send operation and checked on the snapshot the submit path
 * read: the identity exists and is not being deleted, the tenant is not suspended, the identity is
 * not paused and has an accountable owner. The rest of the pipeline is core/submit-pipeline.ts.
 */
export function checkSender(tenant: Tenant, identity: Identity): void {
  if (identity.status === 'deleting' || identity.status === 'deleted') {
    throw identityNotFound();
  }
  if (tenant.status === 'suspended') throw new PmailError('tenant_suspended', 'The tenant is suspended.');
  if (identity.status === 'paused') {
    throw new PmailError('identity_paused', 'The identity is paused and cannot send.', {
      details: { reason: identity.pause_reason ?? 'manual' },
    });
  }
  if (!identity.owner_name || !identity.owner_email) {
    throw new PmailError('identity_owner_required', 'The identity has no accountable owner.', {
      details: {
        missing: [!identity.owner_name && 'owner_name', !identity.owner_email && 'owner_email'].filter(
          Boolean,
        ),
      },
    });
  }
}
