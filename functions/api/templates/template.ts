import * as z from 'zod';
import { templateNotFound } from '../../core/errors.ts';
import {
  MAX_SUBJECT_CHARS,
  MAX_TEMPLATE_DESCRIPTION_CHARS,
  TEMPLATE_NAME_PATTERN,
} from '../../core/limits.ts';
import { TEMPLATE_CATEGORIES, TEMPLATE_KINDS, type TemplateSource } from '../../core/templates.ts';
import type { TenantRoute } from '../operation.ts';
import { oneLine } from '../send.schema.ts';

/**
 * An operation of the `templates` group (functions/api/templates.api.ts): `templates:read` or
 * `templates:write`, checked by the shared step, and its handler, given the tenant in reach.
 */
export type TemplatesRoute = TenantRoute & { permission: 'templates:read' | 'templates:write' };

/** The fields of a template's sources (PUT replaces them all, as a new version). */
export const sourceFields = {
  subject: oneLine(MAX_SUBJECT_CHARS),
  text: z.string().optional(),
  html: z.string().optional(),
  variables_schema: z.record(z.string(), z.unknown()),
  category: z.enum(TEMPLATE_CATEGORIES),
  kind: z.enum(TEMPLATE_KINDS),
  description: z.string().max(MAX_TEMPLATE_DESCRIPTION_CHARS).optional(),
};
const sourceSchema = z.strictObject(sourceFields);

/** The sources of a create or a PUT body, without the fields it left out. */
export function sourceOf(body: z.output<typeof sourceSchema>): TemplateSource {
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

/** The template name in the path; 404 template_not_found for a name no template can have. */
export function templateName(name: string): string {
  if (!TEMPLATE_NAME_PATTERN.test(name)) throw templateNotFound(name);
  return name;
}
