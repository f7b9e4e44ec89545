import type { DepsFor } from '../lambda-ports.ts';
import { requirePermission } from './auth.ts';
import { createStreamTicketRoute } from './events/create-stream-ticket.ts';
import { listEventsRoute } from './events/list-events.ts';
import { operationGroup, type TenantRoute } from './operation.ts';
import { ownTenant } from './scope.ts';

export { listEventsQuerySchema } from './events/list-events.ts';

/** The operations of the group, each behind the shared step: the key, `events:read`, its tenant. */
const OPERATIONS: Record<string, TenantRoute> = {
  listEvents: listEventsRoute,
  createStreamTicket: createStreamTicketRoute,
};

/**
 * The `events` route group: the tenant's events outbox in the order they were committed, read on
 * after an event id (`GET /v1/events`), and the tickets that open the event stream for a browser
 * (`POST /v1/stream/tickets`; the stream itself is functions/api/stream/). Permission `events:read`;
 * a tenant key reads every event of its tenant, an identity key those about its identities
 * (core/event-access.ts).
 */
export function eventsApi(deps: DepsFor<'api-events'>) {
  return operationGroup(deps, OPERATIONS, (key) => {
    requirePermission(key, 'events:read');
    return { tenantId: ownTenant(key, 'The event feed') };
  });
}
