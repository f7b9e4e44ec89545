import type { Operation } from '../../core/compose.ts';
import { PmailError } from '../../core/errors.ts';
import { sha256Hex } from '../../core/fingerprint.ts';
import { isId } from '../../core/ids.ts';
import { checkIdempotencyKey, IDEMPOTENCY_KEY_PATTERN } from '../../core/limits.ts';

import { submit } from '../../send/submit.ts';
import { resolveTemplate } from '../../send/template.ts';
import { admitCaller, bearerHash, identityVisible, requirePermission, tenantOfIdentity } from '../auth.ts';
import { bodyOf, header, json, type RouteCall } from '../http.ts';
import { parseSendBody } from '../send.schema.ts';
import type { MessagesDeps, MessagesRoute } from './operation.ts';

/**
 * The handler of a submit operation (send, reply, reply-all, forward): the use case (send/submit.ts)
 * with the caller's checks on its first read, the funnel's metric, and 202 with the message (200
 * with the result on a dry run).
 * The body's schema is the operation's, in send.schema.ts (the four share their fields).
 */
export function submitRoute(operation: Operation): MessagesRoute {
  return async (deps, call) => {
    const out = await accept(deps, call, operation).catch(countRefusal(deps));
    deps.metrics.add(
      out.type === 'dry_run' ? 'sends_dry_run' : out.deduplicated ? 'sends_deduplicated' : 'sends_accepted',
    );
    if (out.type === 'dry_run') return json(200, out.result, call.requestId);
    return json(
      202,
      { ...out.message, deduplicated: out.deduplicated },
      call.requestId,
      out.deduplicated ? { 'idempotent-replayed': 'true' } : {},
    );
  };
}

function accept(deps: MessagesDeps, { event, params, requestId }: RouteCall, operation: Operation) {
  const dryRun = event.queryStringParameters?.dry_run;
  const hash = bearerHash(header(event, 'authorization'));
  const rawKey = dryRun === 'true' ? undefined : header(event, 'idempotency-key');
  return submit(deps, {
    operation,
    targetMessageId: params.message_id,
    requestId,
    // The first read (one BatchGetItem): the key, the identity, the Idempotency-Key's item and
    // the rate window. A duplicate is answered from it; a new send reads its tenant with the pipeline.
    read: {
      apiKeyHash: hash,
      identityId: isId('identity', params.identity_id) ? params.identity_id : undefined,
      idempotencyKeyHash:
        rawKey !== undefined && IDEMPOTENCY_KEY_PATTERN.test(rawKey) ? sha256Hex(rawKey) : undefined,
    },
    admit: async (first) => {
      const key = await admitCaller(deps, first.apiKey, hash);
      requirePermission(key, 'messages:send');
      const identity = identityVisible(key, params.identity_id, first.identity);
      if (dryRun !== undefined && dryRun !== 'true' && dryRun !== 'false') {
        throw new PmailError('invalid_request', 'dry_run must be true or false.', {
          details: { errors: [{ path: 'dry_run', message: 'true or false' }] },
        });
      }
      // The key header and the body, here so the use case gets a typed command. On a dry run the
      // key is optional and never looked up or recorded.
      return {
        identity,
        tenant: (db) => tenantOfIdentity(db, identity),
        idempotencyKey: dryRun === 'true' ? undefined : checkIdempotencyKey(rawKey, true),
        // A send by template is resolved and rendered here (functions/send/template.ts), before the
        // first read is decided on: a refused one stores, reserves and counts nothing.
        request: await resolveTemplate(deps, identity.tenant_id, parseSendBody(operation, bodyOf(event))),
        dryRun: dryRun === 'true',
        sendsNeedApproval: key.sends_need_approval === true,
      };
    },
  });
}

/** A send the use case refused: counted by its error code, then answered as before. */
const countRefusal =
  (deps: MessagesDeps) =>
  (err: unknown): never => {
    if (err instanceof PmailError) deps.metrics.add('sends_refused', { code: err.code });
    throw err;
  };
