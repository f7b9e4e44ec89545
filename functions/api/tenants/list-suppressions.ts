import * as z from 'zod';
import { normaliseAddress } from '../../core/recipients.ts';
import { addressHash, SUPPRESSION_REASONS, toSuppressionView } from '../../core/suppressions.ts';
import { getSuppression, listSuppressions } from '../../store/suppressions.store.ts';
import { decodeCursor, encodeCursor, pageQueryFields } from '../cursor.ts';
import { json } from '../http.ts';
import type { TenantRoute } from '../operation.ts';
import { parseQuery } from '../parse.ts';

/** GET …/suppressions query. */
export const listSuppressionsQuerySchema = z.strictObject({
  ...pageQueryFields,
  reason: z.enum(SUPPRESSION_REASONS).optional(),
  address: z.string().min(3).max(320).optional(),
});

/** A suppression's sort key: its address hash. */
const isHash = (s: string) => /^[0-9a-f]{64}$/.test(s);

/** GET /v1/tenants/{tenant_id}/suppressions: the suppressions, by reason, or the one of `address`. */
export const listSuppressionsRoute: TenantRoute = {
  handle: async (deps, { event, tenantId, requestId }) => {
    const q = parseQuery(event, listSuppressionsQuerySchema);
    const reason = q.reason;
    if (q.address !== undefined) {
      // Exact lookup: the only way to ask about one address, since none is stored or listed.
      const address = normaliseAddress(q.address, 'address');
      const s = await getSuppression(deps.db, tenantId, addressHash(deps.config.hashKey, address));
      const data = s && (!reason || s.reason === reason) ? [toSuppressionView(s)] : [];
      return json(200, { data, next_cursor: null }, requestId);
    }
    const after = q.cursor === undefined ? undefined : decodeCursor(q.cursor, isHash);
    const out = await listSuppressions(deps.db, tenantId, { limit: q.limit, after, reason });
    return json(
      200,
      { data: out.data.map(toSuppressionView), next_cursor: encodeCursor(out.next) },
      requestId,
    );
  },
};
