import { templateNotFound } from '../core/errors.ts';
import type { ParsedSend } from '../core/send-command.ts';
import type { Deps } from '../deps.ts';
import { getTemplate } from '../store/templates.store.ts';

/**
 * A send by template (a handler enqueues; it never sends), resolved before the
 * submit pipeline runs, so nothing is stored, reserved or counted for a refused one:
 *   1. the tenant's template, current version — else 404 template_not_found;
 *   2. the variables against its schema — else 400 invalid_payload with the schema's errors;
 *   3. rendered (core/templates.ts › renderTemplate; a marketing template without an HTTPS
 *      unsubscribe.url is 400 marketing_requirements_missing).
 * The send then carries the rendered subject, text and html, the kind from the template's category
 * and the consent kind from its kind — never the caller's. The fingerprint (`raw`) gains the
 * version, so it covers the template's name, version and variables.
 */
export async function resolveTemplate(
  deps: Pick<Deps, 'db'>,
  tenantId: string,
  request: ParsedSend,
): Promise<ParsedSend> {
  const { body } = request;
  if (body.template === undefined) return request;
  const t = await getTemplate(deps.db, tenantId, body.template, true);
  if (!t) {
    throw templateNotFound(body.template);
  }
  // Loaded on the first send by template only: a plain send's cold start does not pay for the
  // template engine and the schema compiler (docs/operating.md, cold starts).
  const { checkVariables, renderTemplate } = await import('../core/templates.ts');
  const variables = body.variables ?? {};
  checkVariables(t, variables);
  const rendered = renderTemplate(t, variables, { unsubscribeUrl: body.unsubscribe?.url });
  const { subject, text, html, ...rest } = body;
  return {
    raw: { ...(request.raw as Record<string, unknown>), template_version: t.version },
    body: {
      ...rest,
      subject: rendered.subject,
      ...(rendered.text !== undefined ? { text: rendered.text } : {}),
      ...(rendered.html !== undefined ? { html: rendered.html } : {}),
      variables,
      kind: t.category === 'marketing' ? 'marketing' : 'transactional',
      consent_kind: t.kind,
      rendered_template: { name: t.name, version: t.version, category: t.category },
    },
  };
}
