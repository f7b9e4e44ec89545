import { Ajv, type ErrorObject } from 'ajv';
import * as ajvFormats from 'ajv-formats';
import Handlebars from 'handlebars';
import {
  type FieldError,
  invalidTemplate,
  marketingTemplateWithoutUnsubscribe,
  renderFailed,
  variablesRefused,
} from './errors.ts';
import {
  MAX_PAYLOAD_ERRORS,
  MAX_SUBJECT_CHARS,
  MAX_TEMPLATE_SCHEMA_BYTES,
  MAX_TEMPLATE_SOURCE_BYTES,
  MAX_TEMPLATE_VARIABLES_BYTES,
} from './limits.ts';

/**
 * Templates: a tenant's named, versioned subject/text/HTML
 * sources with a JSON Schema for their variables. Pure: Handlebars and Ajv compile to functions in
 * memory (no I/O, no clock); the store and the send path call these.
 *
 * - The engine is Handlebars, with `knownHelpersOnly` (only the built-in block helpers: if, unless,
 *   each, with, lookup) and its default prototype-access protection. The HTML body escapes every
 *   `{{variable}}` for HTML; subject and text are plain text and are not escaped. `{{{raw}}}` is the
 *   template author's explicit opt-out in HTML.
 * - The schema is JSON Schema draft-07 compiled by Ajv in strict mode (with ajv-formats' formats),
 *   when the template is saved; a schema Ajv refuses is never stored.
 * - `category` is what the message is (`marketing` needs a one-click unsubscribe link to render);
 *   `kind` is whether the recipient may refuse it (`elective` mail is blocked by an unsubscribe).
 */

export const TEMPLATE_CATEGORIES = ['transactional', 'marketing'] as const;
export type TemplateCategory = (typeof TEMPLATE_CATEGORIES)[number];
export const TEMPLATE_KINDS = ['transactional', 'elective'] as const;
export type TemplateKind = (typeof TEMPLATE_KINDS)[number];

/** What a template is made of, as saved by POST or PUT. */
export interface TemplateSource {
  subject: string;
  text?: string;
  html?: string;
  variables_schema: Record<string, unknown>;
  category: TemplateCategory;
  kind: TemplateKind;
  description?: string;
}

/** One version of a tenant's template, as stored. */
export interface TemplateRecord extends TemplateSource {
  tenant_id: string;
  name: string;
  version: number;
  created_at: number;
  updated_at: number;
}

export interface Rendered {
  subject: string;
  text?: string;
  html?: string;
}

const hb = Handlebars.create();
const COMPILE = { knownHelpersOnly: true } as const;

type AddFormats = (ajv: Ajv) => Ajv;
// ajv-formats is CommonJS with `exports.default`: either shape, as the bundler or Node loads it.
const addFormats: AddFormats =
  (ajvFormats as unknown as { default: AddFormats & { default?: AddFormats } }).default.default ??
  (ajvFormats as unknown as { default: AddFormats }).default;

/** A fresh Ajv per schema: compiled schemas are kept by the instance, so none outlives its use. */
function newAjv(): Ajv {
  const ajv = new Ajv({ strict: true, allErrors: true });
  addFormats(ajv);
  return ajv;
}

const bytes = (s: string | undefined) => (s === undefined ? 0 : new TextEncoder().encode(s).length);

/**
 * Check a template before it is saved: the sources parse (Handlebars, known helpers only) and fit
 * MAX_TEMPLATE_SOURCE_BYTES together, there is a text or an HTML body, the variables schema is an
 * object schema that Ajv compiles in strict mode, and a marketing template is elective.
 * 400 invalid_template with every problem in details.errors.
 */
export function checkTemplateSource(t: TemplateSource): void {
  const errors: FieldError[] = [];
  if (t.text === undefined && t.html === undefined)
    errors.push({ path: 'text', message: 'a template needs text or html' });
  const size = bytes(t.subject) + bytes(t.text) + bytes(t.html);
  if (size > MAX_TEMPLATE_SOURCE_BYTES)
    errors.push({
      path: 'html',
      message: `subject, text and html together exceed ${MAX_TEMPLATE_SOURCE_BYTES} bytes`,
    });
  for (const field of ['subject', 'text', 'html'] as const) {
    const src = t[field];
    if (src === undefined) continue;
    try {
      hb.precompile(src, COMPILE);
      // A helper used with the wrong arity (`{{#if}}`) fails only when run: run it once, empty.
      hb.compile(src, COMPILE)({}, { data: { unsubscribe_url: '' } });
    } catch (err) {
      errors.push({ path: field, message: firstLine(err) });
    }
  }
  if (t.category === 'marketing' && t.kind !== 'elective')
    errors.push({
      path: 'kind',
      message: 'a marketing template is elective: its recipients may unsubscribe',
    });
  errors.push(...schemaProblems(t.variables_schema));
  if (errors.length > 0) {
    throw invalidTemplate(errors);
  }
}

function schemaProblems(schema: Record<string, unknown>): FieldError[] {
  const path = 'variables_schema';
  if (bytes(JSON.stringify(schema)) > MAX_TEMPLATE_SCHEMA_BYTES)
    return [{ path, message: `larger than ${MAX_TEMPLATE_SCHEMA_BYTES} bytes` }];
  if (schema.type !== 'object')
    return [
      { path: `${path}.type`, message: 'the variables are an object: the schema needs "type": "object"' },
    ];
  try {
    newAjv().compile(schema);
    return [];
  } catch (err) {
    return [{ path, message: firstLine(err) }];
  }
}

const firstLine = (err: unknown) => String(err instanceof Error ? err.message : err).split('\n')[0];

/** One schema error as answered: where and which rule, never the value. */
export interface PayloadError {
  instance_path: string;
  keyword: string;
  schema_path: string;
  message: string;
}

const toPayloadError = (e: ErrorObject): PayloadError => ({
  instance_path: e.instancePath,
  keyword: e.keyword,
  schema_path: e.schemaPath,
  message: e.message ?? e.keyword,
});

/**
 * The variables are validated against the template's schema at
 * enqueue. 400 invalid_payload with the schema's errors (instance paths and keywords; Ajv's
 * messages name the rule, never the value), at most MAX_PAYLOAD_ERRORS of them.
 */
export function checkVariables(
  t: Pick<TemplateRecord, 'name' | 'version' | 'variables_schema'>,
  variables: unknown,
): void {
  const refuse = (errors: PayloadError[]) =>
    variablesRefused(t.name, t.version, errors.slice(0, MAX_PAYLOAD_ERRORS));
  if (bytes(JSON.stringify(variables)) > MAX_TEMPLATE_VARIABLES_BYTES) {
    throw refuse([
      {
        instance_path: '',
        keyword: 'maxBytes',
        schema_path: '#',
        message: `the variables exceed ${MAX_TEMPLATE_VARIABLES_BYTES} bytes of JSON`,
      },
    ]);
  }
  const validate = newAjv().compile(t.variables_schema);
  if (!validate(variables)) throw refuse((validate.errors ?? []).map(toPayloadError));
}

/** A one-click unsubscribe URL must be HTTPS (RFC 8058 § 3.1). */
export function isHttpsUrl(url: string | undefined): boolean {
  if (!url) return false;
  try {
    return new URL(url).protocol === 'https:';
  } catch {
    return false;
  }
}

/**
 * Render a template with variables already checked (checkVariables). A marketing template cannot
 * render without an HTTPS unsubscribe URL: 400 marketing_requirements_missing. The URL is
 * `{{@unsubscribe_url}}` in the sources; the send adds List-Unsubscribe and List-Unsubscribe-Post
 * (RFC 8058) and the visible footer where the body does not show the URL (core/compose.ts).
 * The subject is one line (line breaks a variable brings become spaces), at most MAX_SUBJECT_CHARS.
 */
export function renderTemplate(
  t: Pick<TemplateRecord, 'name' | 'version' | 'subject' | 'text' | 'html' | 'category'>,
  variables: Record<string, unknown>,
  opts: { unsubscribeUrl?: string } = {},
): Rendered {
  if (t.category === 'marketing' && !isHttpsUrl(opts.unsubscribeUrl)) {
    throw marketingTemplateWithoutUnsubscribe(t.name);
  }
  const data = { data: { unsubscribe_url: opts.unsubscribeUrl ?? '' } };
  const run = (src: string, forHtml: boolean) => {
    try {
      return hb.compile(src, forHtml ? COMPILE : { ...COMPILE, noEscape: true })(variables, data);
    } catch {
      // A render that fails is a payload error, terminal. The engine's
      // message is not passed on: it could quote a variable.
      throw renderFailed(t.name, t.version);
    }
  };
  const subject = run(t.subject, false)
    .replace(/[\r\n]+/g, ' ')
    .trim()
    .slice(0, MAX_SUBJECT_CHARS);
  return {
    subject,
    ...(t.text !== undefined ? { text: run(t.text, false) } : {}),
    ...(t.html !== undefined ? { html: run(t.html, true) } : {}),
  };
}

/** The template as the API shows it (GET …/templates/{name}, and the answer of POST and PUT). */
export function toTemplateView(t: TemplateRecord) {
  return {
    ...toTemplateSummary(t),
    text: t.text ?? null,
    html: t.html ?? null,
    variables_schema: t.variables_schema,
  };
}

/** A template in a list: without its sources and schema, so a page stays small. */
export function toTemplateSummary(t: TemplateRecord) {
  return {
    name: t.name,
    version: t.version,
    subject: t.subject,
    category: t.category,
    kind: t.kind,
    description: t.description ?? null,
    created_at: new Date(t.created_at).toISOString(),
    updated_at: new Date(t.updated_at).toISOString(),
  };
}

type SchemaNode = {
  type?: string | string[];
  properties?: Record<string, SchemaNode>;
  examples?: unknown[];
  default?: unknown;
  const?: unknown;
  enum?: unknown[];
  format?: string;
};

/** Stand-ins for the string formats a schema may ask for (ajv-formats' names). */
const SAMPLE_FORMATS: Record<string, string> = {
  uri: 'https://example.com/',
  url: 'https://example.com/',
  email: 'someone@example.com',
  'date-time': '2026-01-01T09:00:00Z',
  date: '2026-01-01',
  time: '09:00:00Z',
  uuid: '00000000-0000-4000-8000-000000000000',
};

/**
 * Sample variables for a preview, from the template's schema: each property's `const`, first
 * example, default or first enum value; else a stand-in for its type (`[name]` for a string, or
 * an example of its format, 1, true, an empty list, or the object's own sample). Every property, required or not, so the preview shows
 * each placeholder filled.
 */
export function sampleVariables(schema: unknown, name = 'value'): unknown {
  const node = (schema ?? {}) as SchemaNode;
  const given = node.const ?? node.examples?.[0] ?? node.default ?? node.enum?.[0];
  if (given !== undefined) return given;
  const type = Array.isArray(node.type) ? node.type[0] : node.type;
  if (type === 'object' || (type === undefined && node.properties)) {
    const out: Record<string, unknown> = {};
    for (const [k, p] of Object.entries(node.properties ?? {})) out[k] = sampleVariables(p, k);
    return out;
  }
  if (type === 'integer' || type === 'number') return 1;
  if (type === 'boolean') return true;
  if (type === 'array') return [];
  return SAMPLE_FORMATS[node.format ?? ''] ?? `[${name}]`;
}

/** The unsubscribe URL a preview of a marketing template renders with (never a real one). */
export const PREVIEW_UNSUBSCRIBE_URL = 'https://unsubscribe.example/preview';
