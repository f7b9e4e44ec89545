import * as z from 'zod';
import { toAuditView } from '../../core/admin-views.ts';
import { ID_PATTERNS } from '../../core/ids.ts';
import { listAuditItems } from '../../store/audit-log.store.ts';
import { decodeCursor, encodeCursor, pageQueryFields } from '../cursor.ts';
import { json } from '../http.ts';
import type { KeyedRoute } from '../operation.ts';
import { parseQuery } from '../parse.ts';
import { requireLevel, tenantInReach } from '../scope.ts';

/** GET /v1/audit-events query. */
export const listAuditQuerySchema = z.strictObject({
  ...pageQueryFields,
  tenant_id: z.string().regex(ID_PATTERNS.tenant).optional(),
  action: z.string().max(64).optional(),
  actor_key_id: z.string().max(64).optional(),
  target_id: z.string().max(64).optional(),
});

/**
 * GET /v1/audit-events: the audit log of the caller's tenant or of `tenant_id`, newest first (a
 * platform key without `tenant_id`: the platform's own entries), filtered by action, actor or
 * target. Platform and tenant keys only.
 */
export const listAuditEventsRoute: KeyedRoute = {
  permission: 'audit:read',
  handle: async (deps, { event, key, requestId }) => {
    requireLevel(key, ['platform', 'tenant'], 'The audit log');
    const q = parseQuery(event, listAuditQuerySchema);
    let tenantId = q.tenant_id;
    if (key.scope.level !== 'platform') tenantId = tenantId ?? key.tenant_id;
    if (tenantId !== undefined) await tenantInReach(deps.db, key, tenantId);
    const out = await listAuditItems(deps.db, tenantId, {
      limit: q.limit,
      before: q.cursor === undefined ? undefined : decodeCursor(q.cursor),
      action: q.action,
      actor: q.actor_key_id,
      targetId: q.target_id,
    });
    return json(200, { data: out.items.map(toAuditView), next_cursor: encodeCursor(out.next) }, requestId);
  },
};
