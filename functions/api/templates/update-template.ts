import * as z from 'zod';
import { templateNotFound } from '../../core/errors.ts';
import { checkTemplateSource, toTemplateView } from '../../core/templates.ts';
import { updateTemplate } from '../../store/templates.store.ts';
import { bodyOf, json } from '../http.ts';
import { parseBody } from '../parse.ts';
import { sourceFields, sourceOf, type TemplatesRoute, templateName } from './template.ts';

/** PUT /v1/tenants/{tenant_id}/templates/{name} (openapi.yaml TemplateUpdateRequest): a new version. */
export const updateTemplateSchema = z.strictObject(sourceFields);

/** PUT /v1/tenants/{tenant_id}/templates/{name}: the sources replaced, as the template's next version. */
export const updateTemplateRoute: TemplatesRoute = {
  permission: 'templates:write',
  handle: async (deps, { event, tenantId, params, requestId }) => {
    const name = templateName(params.name);
    const source = sourceOf(parseBody(bodyOf(event), updateTemplateSchema));
    checkTemplateSource(source);
    const t = await updateTemplate(deps.db, tenantId, name, source, deps.clock());
    if (!t) throw templateNotFound(params.name);
    return json(200, toTemplateView(t), requestId);
  },
};
