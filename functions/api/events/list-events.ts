import * as z from 'zod';
import { eventSelected } from '../../core/event-access.ts';
import { ID_PATTERNS } from '../../core/ids.ts';
import { toEventView } from '../../core/stream.ts';
import { eventPosition, listEventsAfter } from '../../store/events.store.ts';
import { json } from '../http.ts';
import type { TenantRoute } from '../operation.ts';
import { parseQuery } from '../parse.ts';
import { checkedFilter, readerOf } from './reach.ts';

/**
 * GET /v1/events query: `after` an event id (exclusive), `limit` 1–100 (default 25), `identity_id`
 * one identity's events.
 */
export const listEventsQuerySchema = z.strictObject({
  after: z.string().regex(ID_PATTERNS.event).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(25),
  identity_id: z.string().optional(),
});

/**
 * GET /v1/events: the tenant's events in the order they were committed (the tenant's feed:
 * docs/design/ordering.md), read on after an event id (the last event seen); those the key may
 * read (core/event-access.ts) and `identity_id` selects.
 */
export const listEventsRoute: TenantRoute = {
  handle: async (deps, { event, key, tenantId, requestId }) => {
    const query = parseQuery(event, listEventsQuerySchema);
    const filter = await checkedFilter(deps.db, key, { identity_id: query.identity_id });
    const reader = readerOf(key);
    const after = query.after ? await eventPosition(deps.db, tenantId, query.after) : 0;
    const out = await listEventsAfter(deps.db, tenantId, {
      after,
      limit: query.limit,
      now: deps.clock(),
      match: (ref) => eventSelected(reader, filter, ref),
    });
    const data = out.data.map((e) => toEventView(e.event));
    return json(200, { data, next_cursor: out.more ? (data.at(-1)?.id ?? null) : null }, requestId);
  },
};
