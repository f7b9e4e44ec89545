import { z } from 'zod';
import { PmailError, routeNotFound, templateNotFound } from '../core/errors.ts';
import {
  MAX_SUBJECT_CHARS,
  MAX_TEMPLATE_DESCRIPTION_CHARS,
  MAX_TEMPLATES_PER_TENANT,
  TEMPLATE_NAME_PATTERN,
} from '../core/limits.ts';
import {
  checkTemplateSource,
  checkVariables,
  PREVIEW_UNSUBSCRIBE_URL,
  renderTemplate,
  sampleVariables,
  TEMPLATE_CATEGORIES,
  TEMPLATE_KINDS,
  type TemplateRecord,
  type TemplateSource,
  toTemplateSummary,
  toTemplateView,
} from '../core/templates.ts';
import type { Deps } from '../deps.ts';
import {
  createTemplate,
  deleteTemplate,
  getTemplate,
  listTemplates,
  updateTemplate,
} from '../store/templates.store.ts';
import { authenticate, requirePermission } from './auth.ts';
import { type ApiResult, bodyOf, header, json, routeGroup } from './http.ts';
import { parseBody } from './parse.ts';
import { tenantInReach } from './scope.ts';
import { oneLine } from './send.schema.ts';

/** The fields of a template's sources (PUT replaces them all, as a new version). */
const sourceFields = {
  subject: oneLine(MAX_SUBJECT_CHARS),
  text: z.string().optional(),
  html: z.string().optional(),
  variables_schema: z.record(z.string(), z.unknown()),
  category: z.enum(TEMPLATE_CATEGORIES),
  kind: z.enum(TEMPLATE_KINDS),
  description: z.string().max(MAX_TEMPLATE_DESCRIPTION_CHARS).optional(),
};

/** POST /v1/tenants/{tenant_id}/templates (openapi.yaml TemplateCreateRequest). */
export const createTemplateSchema = z.strictObject({
  name: z.string().regex(TEMPLATE_NAME_PATTERN),
  ...sourceFields,
});

/** PUT /v1/tenants/{tenant_id}/templates/{name} (openapi.yaml TemplateUpdateRequest): a new version. */
export const updateTemplateSchema = z.strictObject(sourceFields);

/** POST …/templates/{name}/preview (openapi.yaml TemplatePreviewRequest). */
export const previewTemplateSchema = z.strictObject({
  variables: z.record(z.string(), z.unknown()).optional(),
});

/**
 * The `templates` route group: a tenant's templates, versioned. `templates:read` to list
 * and read (identity keys included: they send with them), `templates:write` to create, change and
 * delete (platform and tenant keys). The schema and the sources are checked before anything is
 * stored (core/templates.ts › checkTemplateSource).
 */
export function templatesApi(deps: Deps) {
  return routeGroup(deps, async ({ event, route, params, requestId }) => {
    const key = await authenticate(deps, header(event, 'authorization'));
    const reads = ['listTemplates', 'getTemplate', 'previewTemplate'].includes(route.operation);
    // A key that may write templates may read them.
    if (!(reads && key.scopes.includes('templates:write')))
      requirePermission(key, reads ? 'templates:read' : 'templates:write');
    const tenant = await tenantInReach(deps.db, key, params.tenant_id);
    const notFound = () => templateNotFound(params.name);
    const named = () => {
      if (!TEMPLATE_NAME_PATTERN.test(params.name)) throw notFound();
      return params.name;
    };
    switch (route.operation) {
      case 'createTemplate': {
        const { name, ...body } = parseBody(bodyOf(event), createTemplateSchema);
        const source = sourceOf(body);
        checkTemplateSource(source);
        const now = deps.clock();
        const out = await createTemplate(
          deps.db,
          { ...source, tenant_id: tenant.id, name, created_at: now, updated_at: now },
          MAX_TEMPLATES_PER_TENANT,
        );
        if ('refused' in out && out.refused === 'exists')
          throw new PmailError('template_exists', 'A template with this name exists in this tenant.', {
            details: { template: name },
          });
        if ('refused' in out)
          throw new PmailError(
            'template_limit_reached',
            'This tenant has as many templates as it may keep.',
            {
              details: { limit: MAX_TEMPLATES_PER_TENANT },
            },
          );
        return json(201, toTemplateView(out.created), requestId);
      }
      case 'listTemplates': {
        const all = await listTemplates(deps.db, tenant.id);
        return json(200, { data: all.map(toTemplateSummary), next_cursor: null }, requestId);
      }
      case 'getTemplate': {
        const t = await getTemplate(deps.db, tenant.id, named(), true);
        if (!t) throw notFound();
        return json(200, toTemplateView(t), requestId);
      }
      case 'previewTemplate': {
        const body = parseBody(bodyOf(event) || '{}', previewTemplateSchema);
        const t = await getTemplate(deps.db, tenant.id, named(), true);
        if (!t) throw notFound();
        return json(200, previewOf(t, body.variables), requestId);
      }
      case 'updateTemplate': {
        const name = named();
        const source = sourceOf(parseBody(bodyOf(event), updateTemplateSchema));
        checkTemplateSource(source);
        const t = await updateTemplate(deps.db, tenant.id, name, source, deps.clock());
        if (!t) throw notFound();
        return json(200, toTemplateView(t), requestId);
      }
      case 'deleteTemplate': {
        if (!(await deleteTemplate(deps.db, tenant.id, named()))) throw notFound();
        return { statusCode: 204, headers: { 'request-id': requestId } } satisfies ApiResult;
      }
      default:
        throw routeNotFound();
    }
  });
}

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

function sourceOf(body: z.output<typeof updateTemplateSchema>): TemplateSource {
  return {
    subject: body.subject,
    ...(body.text !== undefined ? { text: body.text } : {}),
    ...(body.html !== undefined ? { html: body.html } : {}),
    variables_schema: body.variables_schema,
    category: body.category,
    kind: body.kind,
    ...(body.description !== undefined ? { description: body.description } : {}),
  };
}
