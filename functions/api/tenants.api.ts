import { z } from 'zod';
import { invalidCursor, listEntryNotFound, PmailError, routeNotFound } from '../core/errors.ts';
import { normaliseAddress } from '../core/recipients.ts';
import {
  API_SUPPRESSION_REASONS,
  addressHash,
  addressHint,
  LIST_KINDS,
  type ListKind,
  normaliseListEntry,
  SUPPRESSION_REASONS,
  toListEntryView,
  toSuppressionView,
} from '../core/suppressions.ts';
import type { Deps } from '../deps.ts';
import type { Db } from '../store/db.ts';
import { deleteListEntry, getListEntry, listListEntries, putListEntry } from '../store/send-lists.store.ts';
import {
  deleteSuppression,
  getSuppression,
  listSuppressions,
  putSuppressionIfAbsent,
} from '../store/suppressions.store.ts';
import { authenticate, type Caller, requirePermission } from './auth.ts';
import { type ApiResult, bodyOf, header, json, routeGroup } from './http.ts';
import { parseBody, parseQuery } from './parse.ts';
import { tenantInReach } from './scope.ts';

/** POST …/suppressions (openapi.yaml SuppressionCreateRequest). Only manual and unsubscribe via the API. */
export const createSuppressionSchema = z
  .strictObject({
    address: z.string().min(3).max(320),
    reason: z.enum(API_SUPPRESSION_REASONS),
    expires_at: z.iso.datetime({ offset: true }).optional(),
    elective: z.boolean().optional(),
  })
  .refine((b) => !(b.reason === 'unsubscribe' && b.elective === false), {
    message: 'an unsubscribe always blocks elective mail only',
    path: ['elective'],
  });

const page = {
  limit: z.coerce.number().int().min(1).max(100).default(25),
  cursor: z.string().max(400).optional(),
};

/** GET …/suppressions query. */
export const listSuppressionsQuerySchema = z.strictObject({
  ...page,
  reason: z.enum(SUPPRESSION_REASONS).optional(),
  address: z.string().min(3).max(320).optional(),
});

/** GET …/lists/{direction}/{kind} query. */
export const listEntriesQuerySchema = z.strictObject(page);

/**
 * The `tenants` route group: suppressions and send lists
 * Permission `suppressions:manage` on a tenant-level key; the tenant must be the key's.
 */
export function tenantsApi(deps: Deps) {
  return routeGroup(deps, async ({ event, route, params, requestId }) => {
    const key = await authenticate(deps, header(event, 'authorization'));
    const tenantId = await tenantInScope(deps.db, key, params.tenant_id);
    const now = deps.clock();
    switch (route.operation) {
      case 'createSuppression': {
        const body = parseBody(bodyOf(event), createSuppressionSchema);
        const address = normaliseAddress(body.address, 'address');
        const expiresAt = body.expires_at === undefined ? undefined : Date.parse(body.expires_at);
        if (expiresAt !== undefined && expiresAt <= now) {
          throw new PmailError('invalid_request', 'expires_at must be in the future.', {
            details: { errors: [{ path: 'expires_at', message: 'must be a time in the future' }] },
          });
        }
        const out = await putSuppressionIfAbsent(
          deps.db,
          tenantId,
          {
            address_hash: addressHash(deps.config.hashKey, address),
            address_hint: addressHint(address),
            reason: body.reason,
            created_at: now,
            ...(expiresAt !== undefined ? { expires_at: expiresAt } : {}),
            ...(body.elective ? { elective: true } : {}),
          },
          now,
        );
        if (out.created) deps.metrics.add('suppressions_created', { reason: body.reason });
        return json(out.created ? 201 : 200, toSuppressionView(out.suppression), requestId);
      }
      case 'listSuppressions': {
        const q = parseQuery(event, listSuppressionsQuerySchema);
        const reason = q.reason;
        if (q.address !== undefined) {
          // Exact lookup: the only way to ask about one address, since none is stored or listed.
          const address = normaliseAddress(q.address, 'address');
          const s = await getSuppression(deps.db, tenantId, addressHash(deps.config.hashKey, address));
          const data = s && (!reason || s.reason === reason) ? [toSuppressionView(s)] : [];
          return json(200, { data, next_cursor: null }, requestId);
        }
        const after = q.cursor === undefined ? undefined : decodeCursor(q.cursor, isHash);
        const out = await listSuppressions(deps.db, tenantId, { limit: q.limit, after, reason });
        return json(
          200,
          { data: out.data.map(toSuppressionView), next_cursor: encodeCursor(out.next) },
          requestId,
        );
      }
      case 'deleteSuppression': {
        const address = normaliseAddress(params.address, 'address');
        const deleted = await deleteSuppression(deps.db, tenantId, addressHash(deps.config.hashKey, address));
        if (!deleted) throw new PmailError('suppression_not_found', 'This address is not suppressed.');
        return noContent(requestId);
      }
      case 'listListEntries': {
        const kind = listKind(params.direction, params.kind);
        const q = parseQuery(event, listEntriesQuerySchema);
        const after = q.cursor === undefined ? undefined : decodeCursor(q.cursor, isListEntry);
        const out = await listListEntries(deps.db, tenantId, kind, { limit: q.limit, after });
        return json(
          200,
          { data: out.data.map(toListEntryView), next_cursor: encodeCursor(out.next) },
          requestId,
        );
      }
      case 'putListEntry': {
        const kind = listKind(params.direction, params.kind);
        const entry = normaliseListEntry(params.entry);
        parseBody(bodyOf(event), z.strictObject({}), true);
        const out = await putListEntry(deps.db, tenantId, kind, entry, now);
        return json(out.created ? 201 : 200, toListEntryView(out.entry), requestId);
      }
      case 'getListEntry': {
        const kind = listKind(params.direction, params.kind);
        const found = await getListEntry(deps.db, tenantId, kind, normaliseListEntry(params.entry));
        if (!found) throw listEntryNotFound();
        return json(200, toListEntryView(found), requestId);
      }
      case 'deleteListEntry': {
        const kind = listKind(params.direction, params.kind);
        const deleted = await deleteListEntry(deps.db, tenantId, kind, normaliseListEntry(params.entry));
        if (!deleted) throw listEntryNotFound();
        return noContent(requestId);
      }
      default:
        throw routeNotFound();
    }
  });
}

/**
 * suppressions:manage, on a tenant-level key for the key's own tenant or a platform key for any
 * tenant. An identity-scoped key is refused (403); another tenant's id answers as a missing tenant
 * does (404).
 */
async function tenantInScope(db: Db, key: Caller, tenantId: string): Promise<string> {
  requirePermission(key, 'suppressions:manage');
  if (key.identity_ids) {
    throw new PmailError('permission_denied', 'Suppressions and lists need a tenant-level key.', {
      details: { required: 'suppressions:manage', reason: 'tenant_key_required' },
    });
  }
  return (await tenantInReach(db, key, tenantId)).id;
}

function listKind(direction: string, kind: string): ListKind {
  const errors: { path: string; message: string }[] = [];
  // Inbound (receive) lists come with the inbound path; until then only `send` exists.
  if (direction !== 'send') errors.push({ path: 'direction', message: 'must be send' });
  if (!(LIST_KINDS as readonly string[]).includes(kind))
    errors.push({ path: 'kind', message: 'must be block or allow' });
  if (errors.length > 0)
    throw new PmailError('invalid_request', 'The list is not valid.', { details: { errors } });
  return kind as ListKind;
}

function noContent(requestId: string): ApiResult {
  return { statusCode: 204, headers: { 'request-id': requestId } };
}

const isHash = (s: string) => /^[0-9a-f]{64}$/.test(s);
function isListEntry(s: string): boolean {
  try {
    return normaliseListEntry(s) === s;
  } catch {
    return false;
  }
}

const encodeCursor = (last: string | undefined) =>
  last === undefined ? null : Buffer.from(last).toString('base64url');

function decodeCursor(cursor: string, valid: (s: string) => boolean): string {
  const value = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!valid(value)) {
    throw invalidCursor();
  }
  return value;
}
