import { resolveMx } from 'node:dns/promises';
import type { MxLookup } from './lifecycle.ts';

/** The domain's MX hosts from DNS; none (no MX, or no such name) is an empty list. */
export const dnsMxLookup: MxLookup = async (domain) => {
  try {
    return (await resolveMx(domain)).map((r) => r.exchange);
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'ENODATA' || code === 'ENOTFOUND') return [];
    throw err;
  }
};
