import * as z from 'zod';
import { templateNotFound } from '../../core/errors.ts';
import {
  checkVariables,
  PREVIEW_UNSUBSCRIBE_URL,
  renderTemplate,
  sampleVariables,
  type TemplateRecord,
} from '../../core/templates.ts';
import { getTemplate } from '../../store/templates.store.ts';
import { bodyOf, json } from '../http.ts';
import { parseBody } from '../parse.ts';
import { type TemplatesRoute, templateName } from './template.ts';

/** POST …/templates/{name}/preview (openapi.yaml TemplatePreviewRequest). */
export const previewTemplateSchema = z.strictObject({
  variables: z.record(z.string(), z.unknown()).optional(),
});

/** POST /v1/tenants/{tenant_id}/templates/{name}/preview: the template rendered; nothing sent or stored. */
export const previewTemplateRoute: TemplatesRoute = {
  permission: 'templates:read',
  handle: async (deps, { event, tenantId, params, requestId }) => {
    const body = parseBody(bodyOf(event) || '{}', previewTemplateSchema);
    const t = await getTemplate(deps.db, tenantId, templateName(params.name), true);
    if (!t) throw templateNotFound(params.name);
    return json(200, previewOf(t, body.variables), requestId);
  },
};

/**
 * The template rendered as a send renders it (the same checks of the variables, the same engine),
 * with the given variables or samples from its schema; nothing is sent or stored.
 */
function previewOf(t: TemplateRecord, given: Record<string, unknown> | undefined) {
  const variables = (given ?? sampleVariables(t.variables_schema)) as Record<string, unknown>;
  checkVariables(t, variables);
  const out = renderTemplate(t, variables, { unsubscribeUrl: PREVIEW_UNSUBSCRIBE_URL });
  return {
    name: t.name,
    version: t.version,
    variables,
    subject: out.subject,
    text: out.text ?? null,
    html: out.html ?? null,
  };
}
