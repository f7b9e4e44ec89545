import { invalidQuery } from '../../core/errors.ts';
import { MAX_TENANT_SEARCH_IDENTITIES } from '../../core/search-text.ts';
import type { BaseDeps } from '../../deps.ts';
import { listIdentities } from '../../store/identities.store.ts';
import { type Caller, requirePermission } from '../auth.ts';
import { type ApiResult, json, type RouteCall } from '../http.ts';
import { requireLevel, tenantInReach } from '../scope.ts';
import { zodErrors } from '../send.schema.ts';
import { decodeCursor, encodeCursor } from './list-messages.ts';
import { searchPage, searchQuerySchema } from './search.ts';

/**
 * GET /v1/tenants/{tenant_id}/messages?q=: the tenant's identities searched together
 * (docs/guides/receiving.md › Search): the first MAX_TENANT_SEARCH_IDENTITIES of them that are not
 * deleted, each item with its `identity_id`, newest first by message id. `messages:read` on a tenant
 * key of that tenant or a platform key; an identity key is 403 scope_denied, another tenant 404.
 */
export async function searchTenantMessages(
  deps: BaseDeps,
  call: RouteCall & { key: Caller },
): Promise<ApiResult> {
  const { key, event, params, requestId } = call;
  requirePermission(key, 'messages:read');
  requireLevel(key, ['platform', 'tenant'], 'A tenant-wide search');
  const tenant = await tenantInReach(deps.db, key, params.tenant_id);
  const q = searchQuerySchema.safeParse(event.queryStringParameters ?? {});
  if (!q.success) throw invalidQuery(zodErrors(q.error));
  const cursorId = q.data.cursor ? decodeCursor(q.data.cursor) : undefined;
  const identities = await listIdentities(deps.db, tenant.id, { limit: MAX_TENANT_SEARCH_IDENTITIES * 2 });
  const ids = identities.data
    .filter((i) => i.status !== 'deleted')
    .slice(0, MAX_TENANT_SEARCH_IDENTITIES)
    .map((i) => i.id);
  // A tenant key sees held mail only when it holds messages:hold, like an identity key.
  const page = await searchPage(deps, ids, { ...q.data, cursorId }, key);
  return json(200, { data: page.data, next_cursor: page.next ? encodeCursor(page.next) : null }, requestId);
}
