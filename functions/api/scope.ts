import { levelRequired, tenantNotFound } from '../core/errors.ts';
import { isId } from '../core/ids.ts';
import type { KeyLevel, Tenant } from '../core/model.ts';
import type { Db } from '../store/db.ts';
import { getTenant } from '../store/directory.store.ts';
import type { Caller } from './auth.ts';

/** Level and tenant scope of the calling key, for routes beyond the send path. */

/** 403 scope_denied unless the key's level is one of `levels`. */
export function requireLevel(key: Caller, levels: readonly KeyLevel[], what: string): void {
  if (!levels.includes(key.scope.level)) {
    throw levelRequired(what, levels);
  }
}

/** The tenant of a tenant or identity key (routes that act on "the key's own tenant"). */
export function ownTenant(key: Caller, what: string): string {
  requireLevel(key, ['tenant', 'identity'], what);
  return key.tenant_id!;
}

/**
 * The tenant named in a path, if the key may reach it: a platform key any existing tenant, a tenant
 * key only its own. A missing and a foreign tenant answer the same 404.
 */
export async function tenantInReach(db: Db, key: Caller, tenantId: string): Promise<Tenant> {
  const notFound = () => tenantNotFound();
  if (!isId('tenant', tenantId)) throw notFound();
  if (key.scope.level !== 'platform' && key.tenant_id !== tenantId) throw notFound();
  const tenant = await getTenant(db, tenantId);
  if (!tenant) throw notFound();
  return tenant;
}
