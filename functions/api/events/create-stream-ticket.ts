import { randomBytes } from 'node:crypto';
import * as z from 'zod';
import { sha256Hex } from '../../core/fingerprint.ts';
import { ID_PATTERNS } from '../../core/ids.ts';
import { parseTypes, STREAM_TICKET_TTL_MS } from '../../core/stream.ts';
import { createTicket } from '../../store/stream.store.ts';
import { bearerHash } from '../auth.ts';
import { bodyOf, header, json } from '../http.ts';
import type { TenantRoute } from '../operation.ts';
import { parseBody } from '../parse.ts';
import { checkedFilter } from './reach.ts';

/** POST /v1/stream/tickets body (openapi.yaml StreamTicketRequest): the stream's filter and start. */
export const streamTicketSchema = z.strictObject({
  identity_id: z.string().optional(),
  thread_id: z.string().optional(),
  types: z.array(z.string().max(64)).max(20).optional(),
  after: z.string().regex(ID_PATTERNS.event).optional(),
});

/**
 * POST /v1/stream/tickets: a ticket that opens one stream (`?ticket=` on the stream's URL) within
 * STREAM_TICKET_TTL_MS, for a client that cannot set a header on the upgrade (a browser). It is
 * bound to the calling key's secret (a revoked or expired key's ticket opens nothing) and to this
 * filter; only its hash is stored. `url` is the stream's address: the deployment's
 * (PM_STREAM_URL), or on `npm start` this server's.
 */
export const createStreamTicketRoute: TenantRoute = {
  handle: async (deps, { event, key, tenantId, requestId }) => {
    const body = parseBody(bodyOf(event), streamTicketSchema, true);
    const types = parseTypes(body.types?.join(','));
    const filter = await checkedFilter(deps.db, key, {
      identity_id: body.identity_id,
      thread_id: body.thread_id,
      types,
    });
    const now = deps.clock();
    const ticket = `wst_${randomBytes(24).toString('base64url')}`;
    const expiresAt = now + STREAM_TICKET_TTL_MS;
    await createTicket(deps.db, sha256Hex(ticket), {
      tenant_id: tenantId,
      key_id: key.key_id,
      key_hash: bearerHash(header(event, 'authorization')),
      filter,
      ...(body.after ? { after: body.after } : {}),
      created_at: now,
      expires_at: expiresAt,
    });
    const host = header(event, 'host');
    const url = deps.config.streamUrl ?? (host ? `ws://${host}/v1/stream` : null);
    return json(201, { ticket, expires_at: new Date(expiresAt).toISOString(), url }, requestId);
  },
};
