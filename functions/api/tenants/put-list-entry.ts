import * as z from 'zod';
import { normaliseListEntry, toListEntryView } from '../../core/suppressions.ts';
import { putListEntry } from '../../store/send-lists.store.ts';
import { bodyOf, json } from '../http.ts';
import type { TenantRoute } from '../operation.ts';
import { parseBody } from '../parse.ts';
import { listKind } from './lists.ts';

/** PUT …/lists/{direction}/{kind}/{entry}: an empty body, or none. */
const putListEntrySchema = z.strictObject({});

/** PUT /v1/tenants/{tenant_id}/lists/{direction}/{kind}/{entry}: the entry on the list; 201 when new. */
export const putListEntryRoute: TenantRoute = {
  handle: async (deps, { event, tenantId, params, requestId }) => {
    const now = deps.clock();
    const kind = listKind(params.direction, params.kind);
    const entry = normaliseListEntry(params.entry);
    parseBody(bodyOf(event), putListEntrySchema, true);
    const out = await putListEntry(deps.db, tenantId, kind, entry, now);
    return json(out.created ? 201 : 200, toListEntryView(out.entry), requestId);
  },
};
