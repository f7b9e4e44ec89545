import { listEntryNotFound } from '../../core/errors.ts';
import { normaliseListEntry } from '../../core/suppressions.ts';
import { deleteListEntry } from '../../store/send-lists.store.ts';
import { noContent } from '../http.ts';
import type { TenantRoute } from '../operation.ts';
import { listKind } from './lists.ts';

/** DELETE /v1/tenants/{tenant_id}/lists/{direction}/{kind}/{entry}: the entry off the list; 404 if absent. */
export const deleteListEntryRoute: TenantRoute = {
  handle: async (deps, { tenantId, params, requestId }) => {
    const list = listKind(params.direction, params.kind);
    const deleted = await deleteListEntry(deps.db, tenantId, list, normaliseListEntry(params.entry));
    if (!deleted) throw listEntryNotFound();
    return noContent(requestId);
  },
};
