import { type FieldError, headerNotAllowed, invalidHeaders } from './errors.ts';
import { utf8Length } from './reply.ts';

/**
 * Custom headers (check 11), after Cloudflare's header rules, so a header a
 * transport would refuse is a 400 at the API rather than a later `rejected`.
 */

/** The caller may set these besides X-*; any case in, the casing here out; some with fixed values. */
// A Map, not an object literal: a name like "constructor" must not find Object.prototype.
const NAMED = new Map<string, { name: string; values?: readonly string[] }>([
  ['importance', { name: 'Importance', values: ['high', 'normal', 'low'] }],
  ['priority', { name: 'Priority', values: ['normal', 'non-urgent', 'urgent'] }],
  ['sensitivity', { name: 'Sensitivity', values: ['personal', 'private', 'company-confidential'] }],
  ['keywords', { name: 'Keywords' }],
  ['comments', { name: 'Comments' }],
  ['organization', { name: 'Organization' }],
]);

const X_NAME = /^[Xx]-[A-Za-z0-9_-]+$/;
// The service's own X- headers: X-Pmail-* (and a bare X-Pmail) and X-AI-Generated, in any case.
const RESERVED = /^x-(?:pmail(?:-|$)|ai-generated$)/i;

export const MAX_HEADER_NAME_BYTES = 100;
export const MAX_HEADER_VALUE_BYTES = 2048;
/** Non-X- custom headers on one message, the service's own included. */
export const MAX_NON_X_HEADERS = 20;
/** All custom headers together, names and values, in bytes (16 KiB). */
export const MAX_HEADERS_BYTES = 16 * 1024;

export interface ServiceHeaderLoad {
  /** How many non-X- headers the service adds itself (In-Reply-To, References, Auto-Submitted, List-*). */
  serviceNonX?: number;
  /** The bytes (names + values) of the headers the service adds, counted against the 16 KiB. */
  serviceBytes?: number;
}

/**
 * Validate the request's `headers` and return them with their canonical names: X- names as given,
 * the six named headers in their canonical case, enumerated values in lower case. Throws
 * `header_not_allowed` for a name outside the allowlist (or reserved), then `invalid_request` for
 * names that differ only in case, bad values, too many non-X- headers or too many bytes.
 */
export function validateCustomHeaders(
  headers: Record<string, string> | undefined,
  load: ServiceHeaderLoad = {},
): Record<string, string> {
  const entries = Object.entries(headers ?? {});
  const path = (name: string) => `headers.${name}`;

  const notAllowed: FieldError[] = entries
    .filter(([name]) => !isAllowedName(name))
    .map(([name]) => ({
      path: path(name),
      message: RESERVED.test(name)
        ? 'this header is set by the service and cannot be set by a caller'
        : 'only X-* names and Importance, Priority, Sensitivity, Keywords, Comments, Organization are allowed',
    }));
  if (notAllowed.length > 0) {
    throw headerNotAllowed(notAllowed);
  }

  const byLower = new Map<string, string>();
  const errors: FieldError[] = [];
  for (const [name] of entries) {
    const first = byLower.get(name.toLowerCase());
    if (first !== undefined) {
      errors.push({ path: path(name), message: `the same header as ${first}, in another case` });
    } else byLower.set(name.toLowerCase(), name);
  }
  if (errors.length > 0) throw invalid(errors);

  const out: Record<string, string> = {};
  for (const [name, raw] of entries) {
    const named = NAMED.get(name.toLowerCase());
    const value = typeof raw === 'string' ? raw : '';
    if (value.trim() === '') errors.push({ path: path(name), message: 'must not be empty' });
    else if (/[\r\n]/.test(value)) errors.push({ path: path(name), message: 'must not contain CR or LF' });
    else if (utf8Length(value) > MAX_HEADER_VALUE_BYTES) {
      errors.push({ path: path(name), message: `at most ${MAX_HEADER_VALUE_BYTES} bytes` });
    } else if (named?.values && !named.values.includes(value.trim().toLowerCase())) {
      errors.push({ path: path(name), message: `must be one of ${named.values.join(', ')}` });
    } else {
      out[named?.name ?? name] = named?.values ? value.trim().toLowerCase() : value;
    }
  }
  if (errors.length > 0) throw invalid(errors);

  checkHeaderLoad(entries, out, load);
  return out;
}

/** The caller's headers beside the service's own: at most MAX_NON_X_HEADERS non-X- names, MAX_HEADERS_BYTES in all. */
function checkHeaderLoad(
  entries: [string, string][],
  out: Record<string, string>,
  load: ServiceHeaderLoad,
): void {
  const nonX = entries.filter(([name]) => !X_NAME.test(name)).length + (load.serviceNonX ?? 0);
  if (nonX > MAX_NON_X_HEADERS) {
    throw invalid([
      {
        path: 'headers',
        message: `at most ${MAX_NON_X_HEADERS} non-X- headers, the service's own included (${nonX})`,
      },
    ]);
  }
  const bytes =
    Object.entries(out).reduce((n, [k, v]) => n + utf8Length(k) + utf8Length(v), 0) +
    (load.serviceBytes ?? 0);
  if (bytes > MAX_HEADERS_BYTES) {
    throw invalid([{ path: 'headers', message: `at most ${MAX_HEADERS_BYTES} bytes of headers in all` }]);
  }
}

function isAllowedName(name: string): boolean {
  if (NAMED.has(name.toLowerCase())) return true;
  return X_NAME.test(name) && name.length <= MAX_HEADER_NAME_BYTES && !RESERVED.test(name);
}

const invalid = invalidHeaders;
