import type { DepsFor } from '../lambda-ports.ts';
import { requirePermission } from './auth.ts';
import { operationGroup } from './operation.ts';
import { tenantInReach } from './scope.ts';
import { createTemplateRoute } from './templates/create-template.ts';
import { deleteTemplateRoute } from './templates/delete-template.ts';
import { getTemplateRoute } from './templates/get-template.ts';
import { listTemplatesRoute } from './templates/list-templates.ts';
import { previewTemplateRoute } from './templates/preview-template.ts';
import type { TemplatesRoute } from './templates/template.ts';
import { updateTemplateRoute } from './templates/update-template.ts';

/** The operations of the group, each behind the shared step: the key, its permission, the tenant. */
const OPERATIONS: Record<string, TemplatesRoute> = {
  createTemplate: createTemplateRoute,
  listTemplates: listTemplatesRoute,
  getTemplate: getTemplateRoute,
  previewTemplate: previewTemplateRoute,
  updateTemplate: updateTemplateRoute,
  deleteTemplate: deleteTemplateRoute,
};

/**
 * The `templates` route group: a tenant's templates, versioned, one file per operation under
 * functions/api/templates/. `templates:read` to list and read (identity keys included: they send
 * with them), `templates:write` to create, change and delete (platform and tenant keys). The schema
 * and the sources are checked before anything is stored (core/templates.ts › checkTemplateSource).
 */
export function templatesApi(deps: DepsFor<'api-templates'>) {
  return operationGroup(deps, OPERATIONS, async (key, operation, { params }) => {
    // A key that may write templates may read them.
    if (!(operation.permission === 'templates:read' && key.scopes.includes('templates:write')))
      requirePermission(key, operation.permission);
    return { tenantId: (await tenantInReach(deps.db, key, params.tenant_id)).id };
  });
}
