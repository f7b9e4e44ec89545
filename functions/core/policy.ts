import { identityNotFound, identityOwnerRequired, identityPaused, tenantSuspended } from './errors.ts';
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
  if (tenant.status === 'suspended') throw tenantSuspended();
  if (identity.status === 'paused') {
    throw identityPaused(identity.pause_reason ?? 'manual');
  }
  if (!identity.owner_name || !identity.owner_email) {
    throw identityOwnerRequired(
      [!identity.owner_name && 'owner_name', !identity.owner_email && 'owner_email'].filter(
        (f) => f !== false,
      ),
    );
  }
}
