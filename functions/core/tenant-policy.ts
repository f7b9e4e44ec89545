import type { TenantPolicy } from './model.ts';

/**
 * PATCH semantics of a tenant policy (docs/guides/sending.md › Tenant policy): a deep merge where `null`
 * resets a field to its default (removes it) and any other value replaces it. Pure.
 */
export type PolicyPatch = { [k: string]: unknown };

export function mergePolicy(current: TenantPolicy, patch: PolicyPatch): TenantPolicy {
  return merge(current as Record<string, unknown>, patch) as TenantPolicy;
}

function merge(base: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(patch)) {
    if (v === undefined) continue;
    if (v === null) delete out[k];
    else if (isPlainObject(v)) {
      const merged = merge(isPlainObject(out[k]) ? (out[k] as Record<string, unknown>) : {}, v);
      if (Object.keys(merged).length === 0) delete out[k];
      else out[k] = merged;
    } else out[k] = v;
  }
  return out;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
