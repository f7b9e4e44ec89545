import * as z from 'zod';
import { templateExists, templateLimitReached } from '../../core/errors.ts';
import { MAX_TEMPLATES_PER_TENANT, TEMPLATE_NAME_PATTERN } from '../../core/limits.ts';
import { checkTemplateSource, toTemplateView } from '../../core/templates.ts';
import { createTemplate } from '../../store/templates.store.ts';
import { bodyOf, json } from '../http.ts';
import { parseBody } from '../parse.ts';
import { sourceFields, sourceOf, type TemplatesRoute } from './template.ts';

/** POST /v1/tenants/{tenant_id}/templates (openapi.yaml TemplateCreateRequest). */
export const createTemplateSchema = z.strictObject({
  name: z.string().regex(TEMPLATE_NAME_PATTERN),
  ...sourceFields,
});

/**
 * POST /v1/tenants/{tenant_id}/templates: a new template, version 1, once its schema and sources
 * pass the check (core/templates.ts › checkTemplateSource). 409 for a name taken, 422 at the limit.
 */
export const createTemplateRoute: TemplatesRoute = {
  permission: 'templates:write',
  handle: async (deps, { event, tenantId, requestId }) => {
    const { name, ...body } = parseBody(bodyOf(event), createTemplateSchema);
    const source = sourceOf(body);
    checkTemplateSource(source);
    const now = deps.clock();
    const out = await createTemplate(
      deps.db,
      { ...source, tenant_id: tenantId, name, created_at: now, updated_at: now },
      MAX_TEMPLATES_PER_TENANT,
    );
    if ('refused' in out && out.refused === 'exists') throw templateExists(name);
    if ('refused' in out) throw templateLimitReached(MAX_TEMPLATES_PER_TENANT);
    return json(201, toTemplateView(out.created), requestId);
  },
};
