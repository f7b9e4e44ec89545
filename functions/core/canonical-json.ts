/**
 * Canonical JSON as core/fingerprint.ts reads it: object keys sorted by their UTF-8
 * bytes at every level, no insignificant whitespace, strings with the minimal escapes (those of
 * serde_json, which are JSON.stringify's for well-formed strings), arrays in their original order.
 *
 * Numbers: JavaScript keeps no int/float distinction after parsing, so `1.0` prints as `1` here
 * where serde_json would print `1.0`. Send bodies carry numbers only inside `metadata`; a client
 * that resends the same JSON gets the same fingerprint either way.
 */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const utf8 = new TextEncoder();

function compareUtf8(a: string, b: string): number {
  // UTF-16 code-unit order differs from UTF-8 byte order only around surrogates; compare bytes.
  const x = utf8.encode(a);
  const y = utf8.encode(b);
  const n = Math.min(x.length, y.length);
  for (let i = 0; i < n; i++) {
    if (x[i] !== y[i]) return x[i] - y[i];
  }
  return x.length - y.length;
}

export function canonicalJson(value: unknown): string {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value))
      throw new TypeError('canonical JSON has no representation for a non-finite number');
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    entries.sort(([a], [b]) => compareUtf8(a, b));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  throw new TypeError(`canonical JSON cannot encode a ${typeof value}`);
}
