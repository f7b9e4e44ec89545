import * as z from 'zod';
import { invalidRequest, listEntryConflict } from '../../core/errors.ts';
import { normaliseListEntry, toListEntryView } from '../../core/suppressions.ts';
import { putListEntry } from '../../store/send-lists.store.ts';
import { bodyOf, json } from '../http.ts';
import type { TenantRoute } from '../operation.ts';
import { parseBody } from '../parse.ts';
import { listKind } from './lists.ts';

/**
 * PUT …/lists/{direction}/{kind}/{entry}: an empty body, or none; a receive allow entry may say
 * `unauthenticated: true` (it then admits mail that does not prove its From: spoofable).
 */
const putListEntrySchema = z.strictObject({ unauthenticated: z.boolean().optional() });

/**
 * PUT /v1/tenants/{tenant_id}/lists/{direction}/{kind}/{entry}: the entry on the list; 201 when new,
 * 200 with the entry as it is when it was there. An entry there with another `unauthenticated` is
 * 409 list_entry_conflict: delete it first (a change of what an entry admits is never implied).
 */
export const putListEntryRoute: TenantRoute = {
  handle: async (deps, { event, tenantId, params, requestId }) => {
    const now = deps.clock();
    const list = listKind(params.direction, params.kind);
    const entry = normaliseListEntry(params.entry);
    const body = parseBody(bodyOf(event), putListEntrySchema, true);
    if (body.unauthenticated !== undefined && !(list.direction === 'receive' && list.kind === 'allow'))
      throw invalidRequest([{ path: 'unauthenticated', message: 'only on a receive allow entry' }]);
    const unauthenticated = body.unauthenticated === true;
    const out = await putListEntry(deps.db, tenantId, list, entry, now, { unauthenticated });
    if (!out.created && (out.entry.unauthenticated === true) !== unauthenticated)
      throw listEntryConflict(toListEntryView(out.entry));
    return json(out.created ? 201 : 200, toListEntryView(out.entry), requestId);
  },
};
