import { listEntryNotFound } from '../../core/errors.ts';
import { normaliseListEntry, toListEntryView } from '../../core/suppressions.ts';
import { getListEntry } from '../../store/send-lists.store.ts';
import { json } from '../http.ts';
import type { TenantRoute } from '../operation.ts';
import { listKind } from './lists.ts';

/** GET /v1/tenants/{tenant_id}/lists/{direction}/{kind}/{entry}: one entry of the list; 404 when absent. */
export const getListEntryRoute: TenantRoute = {
  handle: async (deps, { tenantId, params, requestId }) => {
    const list = listKind(params.direction, params.kind);
    const found = await getListEntry(deps.db, tenantId, list, normaliseListEntry(params.entry));
    if (!found) throw listEntryNotFound();
    return json(200, toListEntryView(found), requestId);
  },
};
