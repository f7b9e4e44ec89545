import { z } from 'zod';
import { changeIdentity, deleteIdentity } from '../admin/identities.ts';
import { identityNotFound, keptChanging, resumeScopeDenied, routeNotFound } from '../core/errors.ts';
import { resumeNeedsTenantKey, toIdentityView } from '../core/identity-view.ts';
import type { Deps } from '../deps.ts';
import { getIdentity } from '../store/directory.store.ts';
import { changeIdentityStatus } from '../store/identity-status.store.ts';
import { authenticate, identityInScope, requirePermission } from './auth.ts';
import { checkIdentityCap, identityFieldSchemas } from './directory.api.ts';
import { bodyOf, header, json, routeGroup } from './http.ts';
import { parseBody } from './parse.ts';
import { requireLevel } from './scope.ts';
import { oneLine } from './send.schema.ts';

/** PATCH /v1/identities/{identity_id} (openapi.yaml IdentityUpdateRequest); `null` clears a field. */
export const updateIdentitySchema = z
  .strictObject({
    status: z.enum(['active', 'paused']).optional(),
    display_name: oneLine(100).optional(),
    owner: identityFieldSchemas.owner.nullable().optional(),
    send_policy: identityFieldSchemas.sendPolicy.nullable().optional(),
    metadata: identityFieldSchemas.metadata.nullable().optional(),
  })
  .refine((b) => Object.keys(b).length > 0, { message: 'name at least one field to change' });

/**
 * The `identities` route group: read an identity, change its fields, pause it by hand and resume it
 * (resume needs a tenant or platform key), and delete it.
 * A status change writes the identity, its identity.paused / identity.resumed event and an audit
 * entry in one transaction, and only when the status really changed; setting the status it already
 * has writes nothing. Field changes are applied first, then the status.
 */
export function identitiesApi(deps: Deps) {
  return routeGroup(deps, async ({ event, route, params, requestId }) => {
    const key = await authenticate(deps, header(event, 'authorization'));
    switch (route.operation) {
      case 'getIdentity': {
        requirePermission(key, 'identities:read');
        const { identity } = await identityInScope(deps.db, key, params.identity_id);
        return json(200, toIdentityView(identity), requestId);
      }
      case 'updateIdentity': {
        requirePermission(key, 'identities:write');
        const { status, ...fields } = parseBody(bodyOf(event), updateIdentitySchema);
        const found = await identityInScope(deps.db, key, params.identity_id);
        checkIdentityCap(key, found.tenant, fields.send_policy?.daily_cap);
        let identity = found.identity;
        if (
          status === 'active' &&
          identity.status === 'paused' &&
          key.identity_ids &&
          resumeNeedsTenantKey(identity)
        ) {
          throw resumeScopeDenied(identity.pause_reason);
        }
        // A status change between the read and the write: read again (a deleted identity is gone).
        for (let attempt = 0; Object.keys(fields).length > 0; attempt++) {
          const changed = await changeIdentity(deps, { key: key.scope }, identity, fields, requestId);
          if (changed) {
            identity = changed;
            break;
          }
          if (attempt === 2) throw keptChanging('identity');
          identity = (await identityInScope(deps.db, key, params.identity_id)).identity;
        }
        if (status === undefined || identity.status === status)
          return json(200, toIdentityView(identity), requestId);
        const body = { status };
        if (identity.status !== 'active' && identity.status !== 'paused') {
          throw identityNotFound();
        }
        if (body.status === 'active' && key.identity_ids && resumeNeedsTenantKey(identity)) {
          throw resumeScopeDenied(identity.pause_reason);
        }
        const now = deps.clock();
        const resuming = body.status === 'active';
        const changed = await changeIdentityStatus(deps.db, {
          tenantId: identity.tenant_id,
          identityId: identity.id,
          from: identity.status,
          to: body.status,
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
            details: resuming
              ? { previous_pause_reason: identity.pause_reason ?? null }
              : { reason: 'manual' },
          },
        });
        // Not changed: another request changed it first; answer with what is there now.
        const current = changed ? undefined : await getIdentity(deps.db, identity.id);
        return json(
          200,
          toIdentityView(
            current ??
              (resuming
                ? { ...identity, status: 'active', pause_reason: undefined }
                : { ...identity, status: 'paused', pause_reason: 'manual' }),
          ),
          requestId,
        );
      }
      case 'deleteIdentity': {
        requirePermission(key, 'identities:write');
        requireLevel(key, ['platform', 'tenant'], 'Deleting an identity');
        const { identity } = await identityInScope(deps.db, key, params.identity_id);
        if (identity.status === 'deleting') throw identityNotFound();
        const deleted = await deleteIdentity(deps, { key: key.scope }, identity, requestId);
        return json(200, toIdentityView(deleted), requestId);
      }
      default:
        throw routeNotFound();
    }
  });
}
