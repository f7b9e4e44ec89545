import type { DepsFor } from '../lambda-ports.ts';
import { deleteIdentityRoute } from './identities/delete-identity.ts';
import { getIdentityRoute } from './identities/get-identity.ts';
import { updateIdentityRoute } from './identities/update-identity.ts';
import { type KeyedRoute, keyedGroup } from './operation.ts';

/** The operations of the group, each behind the shared step: the key and the permission it names. */
const OPERATIONS: Record<string, KeyedRoute> = {
  getIdentity: getIdentityRoute,
  updateIdentity: updateIdentityRoute,
  deleteIdentity: deleteIdentityRoute,
};

/**
 * The `identities` route group: read an identity, change its fields, pause it by hand and resume it
 * (resume needs a tenant or platform key), and delete it; one file per operation under
 * functions/api/identities/. A status change writes the identity, its identity.paused /
 * identity.resumed event and an audit entry in one transaction, and only when the status really
 * changed; setting the status it already has writes nothing. Field changes are applied first, then
 * the status.
 */
export function identitiesApi(deps: DepsFor<'api-identities'>) {
  return keyedGroup(deps, OPERATIONS);
}
