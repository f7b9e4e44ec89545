import { templateNotFound } from '../../core/errors.ts';
import { toTemplateView } from '../../core/templates.ts';
import { getTemplate } from '../../store/templates.store.ts';
import { json } from '../http.ts';
import { type TemplatesRoute, templateName } from './template.ts';

/** GET /v1/tenants/{tenant_id}/templates/{name}: the template at its current version. */
export const getTemplateRoute: TemplatesRoute = {
  permission: 'templates:read',
  handle: async (deps, { tenantId, params, requestId }) => {
    const t = await getTemplate(deps.db, tenantId, templateName(params.name), true);
    if (!t) throw templateNotFound(params.name);
    return json(200, toTemplateView(t), requestId);
  },
};
