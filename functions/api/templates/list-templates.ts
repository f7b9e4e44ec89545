import { toTemplateSummary } from '../../core/templates.ts';
import { listTemplates } from '../../store/templates.store.ts';
import { json } from '../http.ts';
import type { TemplatesRoute } from './template.ts';

/** GET /v1/tenants/{tenant_id}/templates: the tenant's templates, summarised, on one page. */
export const listTemplatesRoute: TemplatesRoute = {
  permission: 'templates:read',
  handle: async (deps, { tenantId, requestId }) => {
    const all = await listTemplates(deps.db, tenantId);
    return json(200, { data: all.map(toTemplateSummary), next_cursor: null }, requestId);
  },
};
