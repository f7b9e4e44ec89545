import * as z from 'zod';
import { PmailError, streamTicketUnusable } from '../../core/errors.ts';
import { sha256Hex } from '../../core/fingerprint.ts';
import { maySeeHeld } from '../../core/hold.ts';
import { ID_PATTERNS } from '../../core/ids.ts';
import { keyEndsAt, parseTypes, type StreamFilter, ticketFilter } from '../../core/stream.ts';
import type { BaseDeps } from '../../deps.ts';
import { getApiKey } from '../../store/directory.store.ts';
import { redeemTicket } from '../../store/stream.store.ts';
import { admitCaller, authenticate, bearerHash, type Caller, requirePermission } from '../auth.ts';
import { checkedFilter } from '../events/reach.ts';
import { parseQuery } from '../parse.ts';
import { ownTenant } from '../scope.ts';

/**
 * Who may open a stream, and on what (docs/guides/stream.md › Opening a stream): the `$connect`
 * authorizer on AWS and the local server's upgrade both run `admitStream`. A refusal is a
 * PmailError (its code, its status), and nothing is written but a ticket's use.
 */

/** The stream URL's query: the filter, where to start, or a ticket. */
export const streamQuerySchema = z.strictObject({
  identity_id: z.string().optional(),
  thread_id: z.string().optional(),
  types: z.string().max(1400).optional(),
  after: z.string().regex(ID_PATTERNS.event).optional(),
  ticket: z
    .string()
    .regex(/^wst_[A-Za-z0-9_-]{32}$/)
    .optional(),
});

/** What an admitted stream is: whose, what it may read and asks for, where it starts. */
export interface StreamGrant {
  tenant_id: string;
  key_id: string;
  /** The hash of the secret it opened with (the schedule re-reads that secret's state). */
  key_hash: string;
  identity_ids?: string[];
  sees_held?: boolean;
  filter: StreamFilter;
  after?: string;
  key_ends_at?: number;
}

export interface StreamRequest {
  connectionId: string;
  authorization?: string;
  query: Record<string, string | undefined>;
}

/**
 * Admit a stream: `Authorization: Bearer <key>` on the upgrade, or `?ticket=` (used once, by this
 * connection; its key must still authenticate). The key needs `events:read` on a tenant or an
 * identity key; the filter is checked as `GET /v1/events` checks it.
 */
export async function admitStream(
  deps: Pick<BaseDeps, 'db' | 'clock' | 'log'>,
  req: StreamRequest,
): Promise<StreamGrant> {
  const query = parseQuery({ queryStringParameters: req.query } as never, streamQuerySchema);
  const asked = {
    identity_id: query.identity_id,
    thread_id: query.thread_id,
    types: parseTypes(query.types),
    after: query.after,
  };
  const { key, hash, wanted } = query.ticket
    ? await byTicket(deps, query.ticket, req.connectionId, asked)
    : { ...(await byHeader(deps, req.authorization)), wanted: asked };
  requirePermission(key, 'events:read');
  const tenantId = ownTenant(key, 'The event stream');
  const { after, ...rest } = wanted;
  const filter = await checkedFilter(deps.db, key, rest);
  return {
    tenant_id: tenantId,
    key_id: key.key_id,
    key_hash: hash,
    ...(key.identity_ids ? { identity_ids: [...key.identity_ids] } : {}),
    ...(maySeeHeld(key) ? { sees_held: true } : {}),
    filter,
    ...(after ? { after } : {}),
    ...(keyEndsAt(key) !== undefined ? { key_ends_at: keyEndsAt(key) } : {}),
  };
}

async function byHeader(deps: Pick<BaseDeps, 'db' | 'clock' | 'log'>, authorization: string | undefined) {
  return { key: await authenticate(deps, authorization), hash: bearerHash(authorization) };
}

async function byTicket(
  deps: Pick<BaseDeps, 'db' | 'clock' | 'log'>,
  ticket: string,
  connectionId: string,
  asked: StreamFilter & { after?: string },
): Promise<{ key: Caller; hash: string; wanted: StreamFilter & { after?: string } }> {
  const used = await redeemTicket(deps.db, sha256Hex(ticket), connectionId, deps.clock());
  if (typeof used === 'string') {
    throw streamTicketUnusable(used);
  }
  const key = await admitCaller(deps, await getApiKey(deps.db, used.key_hash), used.key_hash);
  const wanted = ticketFilter({ ...used.filter, ...(used.after ? { after: used.after } : {}) }, asked);
  return { key, hash: used.key_hash, wanted };
}
