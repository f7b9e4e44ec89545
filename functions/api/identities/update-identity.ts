import * as z from 'zod';
import { changeIdentity } from '../../admin/identities.ts';
import { identityNotFound, keptChanging } from '../../core/errors.ts';
import { authorizeChanges, identityChangesOf } from '../../core/guardrails.ts';
import { toIdentityView } from '../../core/identity-view.ts';
import type { Identity } from '../../core/model.ts';
import type { BaseDeps } from '../../deps.ts';
import { getIdentity } from '../../store/directory.store.ts';
import { changeIdentityStatus } from '../../store/identity-status.store.ts';
import { type Caller, identityInScope } from '../auth.ts';
import { bodyOf, json } from '../http.ts';
import type { KeyedRoute } from '../operation.ts';
import { parseBody } from '../parse.ts';
import { oneLine } from '../send.schema.ts';
import { checkIdentityCap, identityFieldSchemas } from './fields.ts';

/** PATCH /v1/identities/{identity_id} (openapi.yaml IdentityUpdateRequest); `null` clears a field. */
export const updateIdentitySchema = z
  .strictObject({
    status: z.enum(['active', 'paused']).optional(),
    display_name: oneLine(100).optional(),
    owner: identityFieldSchemas.owner.nullable().optional(),
    send_policy: identityFieldSchemas.sendPolicy.nullable().optional(),
    receive_policy: identityFieldSchemas.receivePolicy.nullable().optional(),
    metadata: identityFieldSchemas.metadata.nullable().optional(),
  })
  .refine((b) => Object.keys(b).length > 0, { message: 'name at least one field to change' });
type IdentityStatusChange = 'active' | 'paused';
type IdentityFieldsChange = Omit<z.output<typeof updateIdentitySchema>, 'status'>;

/**
 * PATCH /v1/identities/{identity_id}: change the identity's fields, pause it by hand or resume it.
 * Who may change which field is core/guardrails.ts's rule (an identity key may pause its identity and
 * nothing more). Field changes are applied first, then the status.
 */
export const updateIdentityRoute: KeyedRoute = {
  handle: async (deps, { event, key, params, requestId }) => {
    const { status, ...fields } = parseBody(bodyOf(event), updateIdentitySchema);
    authorizeChanges(key.scope, identityChangesOf({ status, ...fields }));
    const found = await identityInScope(deps.db, key, params.identity_id);
    checkIdentityCap(key, found.tenant, fields.send_policy?.daily_cap);
    const identity = await changeFields(deps, key, found.identity, fields, requestId);
    if (status === undefined || identity.status === status)
      return json(200, toIdentityView(identity), requestId);
    return json(200, toIdentityView(await changeStatus(deps, key, identity, status)), requestId);
  },
};

/**
 * The identity with its fields changed. A status change between the read and the write: read again
 * (a deleted identity is gone).
 */
async function changeFields(
  deps: BaseDeps,
  key: Caller,
  identity: Identity,
  fields: IdentityFieldsChange,
  requestId: string,
): Promise<Identity> {
  let current = identity;
  for (let attempt = 0; Object.keys(fields).length > 0; attempt++) {
    const changed = await changeIdentity(deps, { key: key.scope }, current, fields, requestId);
    if (changed) return changed;
    if (attempt === 2) throw keptChanging('identity');
    current = (await identityInScope(deps.db, key, identity.id)).identity;
  }
  return current;
}

/**
 * A status change writes the identity, its identity.paused / identity.resumed event and an audit
 * entry in one transaction, and only when the status really changed. The identity as it is after.
 */
async function changeStatus(
  deps: BaseDeps,
  key: Caller,
  identity: Identity,
  status: IdentityStatusChange,
): Promise<Identity> {
  if (identity.status !== 'active' && identity.status !== 'paused') {
    throw identityNotFound();
  }
  const now = deps.clock();
  const resuming = status === 'active';
  const changed = await changeIdentityStatus(deps.db, {
    tenantId: identity.tenant_id,
    identityId: identity.id,
    from: identity.status,
    to: status,
    reason: 'manual',
    now,
    event: {
      id: `evt_${deps.newId()}`,
      type: resuming ? 'identity.resumed' : 'identity.paused',
      data: resuming
        ? { identity_id: identity.id }
        : { identity_id: identity.id, reason: 'manual', metrics: null },
    },
    audit: {
      id: deps.newId(),
      action: resuming ? 'identity.resume' : 'identity.pause',
      actor: key.key_id,
      details: resuming ? { previous_pause_reason: identity.pause_reason ?? null } : { reason: 'manual' },
    },
  });
  // Not changed: another request changed it first; answer with what is there now.
  const current = changed ? undefined : await getIdentity(deps.db, identity.id);
  return (
    current ??
    (resuming
      ? { ...identity, status: 'active', pause_reason: undefined }
      : { ...identity, status: 'paused', pause_reason: 'manual' })
  );
}
