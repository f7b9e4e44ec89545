import { authorizeChanges } from '../core/guardrails.ts';
import type { DepsFor } from '../lambda-ports.ts';
import type { Db } from '../store/db.ts';
import type { Caller } from './auth.ts';
import { operationGroup, type TenantRoute } from './operation.ts';
import { tenantInReach } from './scope.ts';
import { createSuppressionRoute } from './tenants/create-suppression.ts';
import { deleteListEntryRoute } from './tenants/delete-list-entry.ts';
import { deleteSuppressionRoute } from './tenants/delete-suppression.ts';
import { getListEntryRoute } from './tenants/get-list-entry.ts';
import { listListEntriesRoute } from './tenants/list-list-entries.ts';
import { listSuppressionsRoute } from './tenants/list-suppressions.ts';
import { putListEntryRoute } from './tenants/put-list-entry.ts';

/** The operations of the group, each behind the shared step: the key, `suppressions:manage`, the tenant. */
const OPERATIONS: Record<string, TenantRoute> = {
  createSuppression: createSuppressionRoute,
  listSuppressions: listSuppressionsRoute,
  deleteSuppression: deleteSuppressionRoute,
  listListEntries: listListEntriesRoute,
  putListEntry: putListEntryRoute,
  getListEntry: getListEntryRoute,
  deleteListEntry: deleteListEntryRoute,
};

/**
 * The `tenants` route group: suppressions and send lists, one file per operation under
 * functions/api/tenants/. Permission `suppressions:manage` on a tenant-level key; the tenant must be
 * the key's.
 */
export function tenantsApi(deps: DepsFor<'api-tenants'>) {
  return operationGroup(deps, OPERATIONS, async (key, _operation, { params }) => ({
    tenantId: await tenantInScope(deps.db, key, params.tenant_id, params.direction),
  }));
}

/**
 * suppressions:manage, on a tenant-level key for the key's own tenant or a platform key for any
 * tenant (core/guardrails.ts › tenant.lists). An identity key is refused (403 guardrail_locked);
 * another tenant's id answers as a missing tenant does (404).
 */
async function tenantInScope(db: Db, key: Caller, tenantId: string, direction?: string): Promise<string> {
  authorizeChanges(key.scope, [direction === 'receive' ? 'tenant.receive_lists' : 'tenant.lists']);
  return (await tenantInReach(db, key, tenantId)).id;
}
