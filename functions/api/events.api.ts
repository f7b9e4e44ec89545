import * as z from 'zod';
import { PmailError, routeNotFound } from '../core/errors.ts';
import { maySee } from '../core/hold.ts';
import { ID_PATTERNS } from '../core/ids.ts';
import type { DepsFor } from '../lambda-ports.ts';
import { eventPosition, listEventsAfter, type OutboxEvent } from '../store/events.store.ts';
import { authenticate, requirePermission } from './auth.ts';
import { header, json, routeGroup } from './http.ts';
import { parseQuery } from './parse.ts';
import { ownTenant } from './scope.ts';

/** GET /v1/events query: `after` an event id (exclusive), `limit` 1–100 (default 25). */
export const listEventsQuerySchema = z.strictObject({
  after: z.string().regex(ID_PATTERNS.event).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(25),
});

export function toEventView(e: OutboxEvent) {
  return { id: e.id, type: e.type, created_at: new Date(e.created_at).toISOString(), data: e.data };
}

/**
 * The `events` route group: the tenant's events outbox in the order they were committed (the
 * tenant's feed: docs/design/ordering.md), read on after an event id (the last event seen).
 * Permission `events:read` on a tenant-level key.
 */
export function eventsApi(deps: DepsFor<'api-events'>) {
  return routeGroup(deps, async ({ event, route, requestId }) => {
    const key = await authenticate(deps, header(event, 'authorization'));
    requirePermission(key, 'events:read');
    if (key.identity_ids) {
      throw new PmailError('permission_denied', 'Events need a tenant-level key.', {
        details: { required: 'events:read', reason: 'tenant_key_required' },
      });
    }
    const tenantId = ownTenant(key, 'The event feed');
    if (route.operation !== 'listEvents') throw routeNotFound();
    const query = parseQuery(event, listEventsQuerySchema);
    const after = query.after ? await eventPosition(deps.db, tenantId, query.after) : 0;
    const out = await listEventsAfter(deps.db, tenantId, { after, limit: query.limit, now: deps.clock() });
    // A held message's event only to a key that may see held mail (core/hold.ts › maySee); the
    // cursor moves past what was left out.
    const data = out.data.filter((e) => maySee(key, e.event)).map((e) => toEventView(e.event));
    const last = out.data.at(-1)?.event.id ?? null;
    return json(200, { data, next_cursor: out.more ? last : null }, requestId);
  });
}
