import { templateNotFound } from '../../core/errors.ts';
import { deleteTemplate } from '../../store/templates.store.ts';
import { noContent } from '../http.ts';
import { type TemplatesRoute, templateName } from './template.ts';

/** DELETE /v1/tenants/{tenant_id}/templates/{name}: the template deleted (its versions stay); 204. */
export const deleteTemplateRoute: TemplatesRoute = {
  permission: 'templates:write',
  handle: async (deps, { tenantId, params, requestId }) => {
    if (!(await deleteTemplate(deps.db, tenantId, templateName(params.name)))) {
      throw templateNotFound(params.name);
    }
    return noContent(requestId);
  },
};
