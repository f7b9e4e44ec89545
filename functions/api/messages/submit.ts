import type { Operation } from '../../core/compose.ts';
import { invalidDryRun, PmailError } from '../../core/errors.ts';
import { sha256Hex } from '../../core/fingerprint.ts';
import { isId } from '../../core/ids.ts';
import { checkIdempotencyKey, IDEMPOTENCY_KEY_PATTERN } from '../../core/limits.ts';
import { type AdmittedSend, readSubmit, submit } from '../../send/submit.ts';
import { resolveTemplate } from '../../send/template.ts';
import type { FirstRead } from '../../store/submit-read.store.ts';
import { admitCaller, bearerHash, identityVisible, requirePermission, tenantOfIdentity } from '../auth.ts';
import { bodyOf, header, json, type RouteCall } from '../http.ts';
import { parseSendBody } from '../send.schema.ts';
import type { MessagesDeps, MessagesRoute } from './operation.ts';

/**
 * The handler of a submit operation (send, reply, reply-all, forward): the first read, the
 * caller's checks on it (`admit`), the use case (send/submit.ts), the funnel's metric, and 202 with
 * the message (200 with the result on a dry run).
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

/** Read, admit, then the use case: control goes one way. */
async function accept(deps: MessagesDeps, call: RouteCall, operation: Operation) {
  const { event, params, requestId } = call;
  const rawKey =
    event.queryStringParameters?.dry_run === 'true' ? undefined : header(event, 'idempotency-key');
  // The first read (one BatchGetItem): the key, the identity, the Idempotency-Key's item and the
  // rate window. A duplicate is answered from it; a new send reads its tenant with the pipeline.
  const first = await readSubmit(deps, {
    apiKeyHash: bearerHash(header(event, 'authorization')),
    identityId: isId('identity', params.identity_id) ? params.identity_id : undefined,
    idempotencyKeyHash:
      rawKey !== undefined && IDEMPOTENCY_KEY_PATTERN.test(rawKey) ? sha256Hex(rawKey) : undefined,
  });
  const admitted = await admit(deps, call, operation, first);
  return submit(deps, { ...admitted, operation, targetMessageId: params.message_id, requestId, first });
}

/**
 * The caller's checks on the first read: authentication, the permission, the identity's scope, and
 * the request's own checks (the Idempotency-Key header, the body), so the use case gets a typed
 * command. On a dry run the key is optional and never looked up or recorded.
 */
async function admit(
  deps: MessagesDeps,
  { event, params }: RouteCall,
  operation: Operation,
  first: FirstRead,
): Promise<AdmittedSend> {
  const dryRun = event.queryStringParameters?.dry_run;
  const key = await admitCaller(deps, first.apiKey, bearerHash(header(event, 'authorization')));
  requirePermission(key, 'messages:send');
  const identity = identityVisible(key, params.identity_id, first.identity);
  if (dryRun !== undefined && dryRun !== 'true' && dryRun !== 'false') throw invalidDryRun();
  return {
    identity,
    tenant: (db) => tenantOfIdentity(db, identity),
    idempotencyKey:
      dryRun === 'true' ? undefined : checkIdempotencyKey(header(event, 'idempotency-key'), true),
    // A send by template is resolved and rendered here (functions/send/template.ts), before the
    // first read is decided on: a refused one stores, reserves and counts nothing.
    request: await resolveTemplate(deps, identity.tenant_id, parseSendBody(operation, bodyOf(event))),
    dryRun: dryRun === 'true',
    sendsNeedApproval: key.sends_need_approval === true,
  };
}

/** A send the use case refused: counted by its error code, then answered as before. */
const countRefusal =
  (deps: MessagesDeps) =>
  (err: unknown): never => {
    if (err instanceof PmailError) deps.metrics.add('sends_refused', { code: err.code });
    throw err;
  };
