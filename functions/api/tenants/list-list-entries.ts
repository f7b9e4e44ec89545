import * as z from 'zod';
import { normaliseListEntry, toListEntryView } from '../../core/suppressions.ts';
import { listListEntries } from '../../store/send-lists.store.ts';
import { decodeCursor, encodeCursor, pageQueryFields } from '../cursor.ts';
import { json } from '../http.ts';
import type { TenantRoute } from '../operation.ts';
import { parseQuery } from '../parse.ts';
import { listKind } from './lists.ts';

/** GET …/lists/{direction}/{kind} query. */
export const listEntriesQuerySchema = z.strictObject(pageQueryFields);

/** A list entry's sort key: the entry itself, as normalised. */
function isListEntry(s: string): boolean {
  try {
    return normaliseListEntry(s) === s;
  } catch {
    return false;
  }
}

/** GET /v1/tenants/{tenant_id}/lists/{direction}/{kind}: the entries of one of the tenant's send lists. */
export const listListEntriesRoute: TenantRoute = {
  handle: async (deps, { event, tenantId, params, requestId }) => {
    const list = listKind(params.direction, params.kind);
    const q = parseQuery(event, listEntriesQuerySchema);
    const after = q.cursor === undefined ? undefined : decodeCursor(q.cursor, isListEntry);
    const out = await listListEntries(deps.db, tenantId, list, { limit: q.limit, after });
    return json(200, { data: out.data.map(toListEntryView), next_cursor: encodeCursor(out.next) }, requestId);
  },
};
