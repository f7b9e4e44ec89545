import type { DepsFor } from '../lambda-ports.ts';
import { createIdentityRoute } from './directory/create-identity.ts';
import { createTenantRoute } from './directory/create-tenant.ts';
import { getTenantRoute } from './directory/get-tenant.ts';
import { getTenantPolicyRoute } from './directory/get-tenant-policy.ts';
import { listIdentitiesRoute } from './directory/list-identities.ts';
import { listTenantsRoute } from './directory/list-tenants.ts';
import { updateTenantRoute } from './directory/update-tenant.ts';
import { updateTenantPolicyRoute } from './directory/update-tenant-policy.ts';
import { type KeyedRoute, keyedGroup } from './operation.ts';

/** The operations of the group, each behind the shared step: the key and the permission it names. */
const OPERATIONS: Record<string, KeyedRoute> = {
  createTenant: createTenantRoute,
  listTenants: listTenantsRoute,
  getTenant: getTenantRoute,
  updateTenant: updateTenantRoute,
  getTenantPolicy: getTenantPolicyRoute,
  updateTenantPolicy: updateTenantPolicyRoute,
  createIdentity: createIdentityRoute,
  listIdentities: listIdentitiesRoute,
};

/**
 * The `directory` route group: tenants (`tenants:manage`, platform keys), their policy
 * (`policy:write`, platform keys or the tenant's own tenant key) and the creation and listing of
 * identities (`identities:read|write`, platform or tenant keys); one file per operation under
 * functions/api/directory/. A tenant out of reach answers exactly as a missing one.
 */
export function directoryApi(deps: DepsFor<'api-directory'>) {
  return keyedGroup(deps, OPERATIONS);
}
