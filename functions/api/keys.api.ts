import { z } from 'zod';
import { keyInReach, mintKey, revokeKey, rotateKey } from '../admin/keys.ts';
import { toAuditView, toKeyView } from '../core/admin-views.ts';
import { invalidCursor, keyNotFound, routeNotFound } from '../core/errors.ts';
import { ID_PATTERNS } from '../core/ids.ts';
import { KEY_LEVELS, MAX_OVERLAP_HOURS, notWider, PERMISSIONS, reaches, scopeOf } from '../core/keys.ts';
import type { Deps } from '../deps.ts';
import { listApiKeyDefinitions } from '../store/api-keys.store.ts';
import { listAuditItems } from '../store/audit-log.store.ts';
import { authenticate, requirePermission } from './auth.ts';
import { idempotentControl } from './control.ts';
import { type ApiResult, bodyOf, header, json, routeGroup } from './http.ts';
import { parseBody, parseQuery } from './parse.ts';
import { requireLevel, tenantInReach } from './scope.ts';

const KEY_ID = ID_PATTERNS.key;
const TENANT_ID = ID_PATTERNS.tenant;
const IDENTITY_ID = ID_PATTERNS.identity;

/** POST /v1/keys (openapi.yaml KeyCreateRequest). */
export const createKeySchema = z.strictObject({
  name: z.string().min(1).max(100),
  level: z.enum(KEY_LEVELS),
  tenant_id: z.string().regex(TENANT_ID).optional(),
  identity_id: z.string().regex(IDENTITY_ID).optional(),
  permissions: z
    .array(z.enum(PERMISSIONS as [string, ...string[]]))
    .min(1)
    .max(PERMISSIONS.length),
  expires_at: z.iso.datetime({ offset: true }).optional(),
});

/** POST /v1/keys/{key_id}/rotate (openapi.yaml KeyRotateRequest). */
export const rotateKeySchema = z.strictObject({
  overlap_hours: z.number().int().min(0).max(MAX_OVERLAP_HOURS).default(24),
});

const page = {
  limit: z.coerce.number().int().min(1).max(100).default(25),
  cursor: z.string().max(400).optional(),
};
/** GET /v1/keys query. */
export const listKeysQuerySchema = z.strictObject({
  ...page,
  tenant_id: z.string().regex(TENANT_ID).optional(),
});
/** GET /v1/audit-events query. */
export const listAuditQuerySchema = z.strictObject({
  ...page,
  tenant_id: z.string().regex(TENANT_ID).optional(),
  action: z.string().max(64).optional(),
  actor_key_id: z.string().max(64).optional(),
  target_id: z.string().max(64).optional(),
});

/**
 * The `keys` route group: API keys (`keys:manage`), `/v1/me` (any key) and the audit log
 * (`audit:read`). A key never mints, reads, rotates or revokes a key wider than itself; a key out of
 * reach answers 404 key_not_found exactly as a missing one.
 */
export function keysApi(deps: Deps) {
  return routeGroup(deps, async ({ event, route, params, requestId }) => {
    const key = await authenticate(deps, header(event, 'authorization'));
    const now = deps.clock();
    switch (route.operation) {
      case 'getMe':
        return json(
          200,
          {
            key_id: key.key_id,
            name: key.name ?? null,
            level: key.scope.level,
            mode: key.mode ?? null,
            tenant_id: key.tenant_id ?? null,
            identity_id: key.scope.identity_id ?? null,
            permissions: key.scopes,
            expires_at: key.expires_at === undefined ? null : new Date(key.expires_at).toISOString(),
          },
          requestId,
        );
      case 'createKey': {
        requirePermission(key, 'keys:manage');
        const body = parseBody(bodyOf(event), createKeySchema);
        return idempotentControl(deps, key, event, route.operation, body, requestId, async (finish) => {
          const out = await mintKey(
            deps,
            { key: key.scope },
            {
              name: body.name,
              level: body.level,
              tenant_id: body.tenant_id,
              identity_id: body.identity_id,
              permissions: body.permissions,
              expires_at: body.expires_at === undefined ? undefined : Date.parse(body.expires_at),
            },
            {
              requestId,
              finish: finish && ((d) => finish(201, { ...toKeyView(d, now), secret_replayed: false })),
            },
          );
          return json(201, { ...toKeyView(out.definition, now), secret: out.secret }, requestId);
        });
      }
      case 'listKeys': {
        requirePermission(key, 'keys:manage');
        const q = parseQuery(event, listKeysQuerySchema);
        if (q.tenant_id !== undefined && key.scope.level !== 'platform' && q.tenant_id !== key.tenant_id)
          return json(200, { data: [], next_cursor: null }, requestId);
        const scope = key.scope.level === 'platform' ? q.tenant_id : key.tenant_id;
        const out = await listApiKeyDefinitions(deps.db, scope, {
          limit: q.limit,
          after: q.cursor === undefined ? undefined : decodeCursor(q.cursor),
        });
        const data = out.data
          .filter(
            (d) =>
              d.key_id === key.key_id || (reaches(key.scope, scopeOf(d)) && notWider(key.scope, scopeOf(d))),
          )
          .map((d) => toKeyView(d, now));
        return json(200, { data, next_cursor: encodeCursor(out.next) }, requestId);
      }
      case 'getKey': {
        requirePermission(key, 'keys:manage');
        const d = await keyInReach(deps, key.scope, params.key_id);
        return json(200, toKeyView(d, now), requestId);
      }
      case 'revokeKey': {
        requirePermission(key, 'keys:manage');
        if (!KEY_ID.test(params.key_id)) throw keyNotFound();
        await revokeKey(deps, key.scope, params.key_id, requestId);
        return { statusCode: 204, headers: { 'request-id': requestId } } satisfies ApiResult;
      }
      case 'rotateKey': {
        requirePermission(key, 'keys:manage');
        const body = parseBody(bodyOf(event), rotateKeySchema, true);
        return idempotentControl(deps, key, event, route.operation, body, requestId, async (finish) => {
          const out = await rotateKey(deps, key.scope, params.key_id, body.overlap_hours, {
            requestId,
            finish: finish && ((d) => finish(200, { ...toKeyView(d, now), secret_replayed: false })),
          });
          return json(
            200,
            {
              ...toKeyView(out.definition, now),
              secret: out.secret,
              previous_secrets_expire_at: new Date(out.oldUntil).toISOString(),
            },
            requestId,
          );
        });
      }
      case 'listAuditEvents': {
        requirePermission(key, 'audit:read');
        requireLevel(key, ['platform', 'tenant'], 'The audit log');
        const q = parseQuery(event, listAuditQuerySchema);
        let tenantId = q.tenant_id;
        if (key.scope.level !== 'platform') tenantId = tenantId ?? key.tenant_id;
        if (tenantId !== undefined) await tenantInReach(deps.db, key, tenantId);
        const out = await listAuditItems(deps.db, tenantId, {
          limit: q.limit,
          before: q.cursor === undefined ? undefined : decodeCursor(q.cursor),
          action: q.action,
          actor: q.actor_key_id,
          targetId: q.target_id,
        });
        return json(
          200,
          { data: out.items.map(toAuditView), next_cursor: encodeCursor(out.next) },
          requestId,
        );
      }
      default:
        throw routeNotFound();
    }
  });
}

export const encodeCursor = (last: string | undefined) =>
  last === undefined ? null : Buffer.from(last).toString('base64url');

export function decodeCursor(cursor: string): string {
  const value = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!/^[~0-9a-z_#]{1,120}$/.test(value)) {
    throw invalidCursor();
  }
  return value;
}
