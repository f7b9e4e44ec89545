import type { Operation } from '../core/compose.ts';
import {
  invalidCursor,
  invalidJson,
  invalidQuery,
  invalidRequest,
  messageNotFound,
  PmailError,
  routeNotFound,
  threadNotFound,
} from '../core/errors.ts';
import { sha256Hex } from '../core/fingerprint.ts';
import { encodeFollowCursor, followHorizon, nextPosition, parseAfter } from '../core/follow.ts';
import { isId } from '../core/ids.ts';
import { checkIdempotencyKey, IDEMPOTENCY_KEY_PATTERN } from '../core/limits.ts';
import { toApiMessage } from '../core/message-view.ts';
import { possibleLocalDays } from '../core/quota.ts';
import type { Deps } from '../deps.ts';
import { cancelSend, resolveSend, retrySend } from '../send/actions.ts';
import { approveSend, rejectSend } from '../send/approval.ts';
import { currentIfPending, decideOnFirstRead, submit } from '../send/submit.ts';
import { resolveTemplate } from '../send/template.ts';
import { threadExists } from '../store/inbound.store.ts';
import { getMessage, listMessages, listMessagesAfter } from '../store/messages.store.ts';
import { readFirst } from '../store/submit-read.store.ts';
import {
  admitCaller,
  authenticate,
  bearerHash,
  identityInScope,
  identityVisible,
  requirePermission,
  tenantOfIdentity,
} from './auth.ts';
import { bodyOf, header, json, routeGroup } from './http.ts';
import { listQuerySchema, parseSendBody, resolveBodySchema, zodErrors } from './send.schema.ts';

/**
 * The `messages` route group: POST/GET …/messages, GET …/messages/{id} and its raw original, cancel, resolve, retry, approve and reject. Thin: parse, call the
 * use case or the store, map the answer. Errors become the error envelope of openapi.yaml.
 */
export function messagesApi(deps: Deps) {
  return routeGroup(deps, async ({ event, route, params, requestId }) => {
    if (SEND_OPERATIONS.has(route.operation)) {
      const dryRun = event.queryStringParameters?.dry_run;
      const operation = OPERATIONS[route.operation];
      const out = await (async () => {
        // The first read (one BatchGetItem): the key, the identity, the Idempotency-Key's item and
        // the rate window. A duplicate is answered from it; a new send reads its tenant with the pipeline.
        const hash = bearerHash(header(event, 'authorization'));
        const rawKey = dryRun === 'true' ? undefined : header(event, 'idempotency-key');
        const now = deps.clock();
        const first = await readFirst(deps.db, {
          apiKeyHash: hash,
          identityId: isId('identity', params.identity_id) ? params.identity_id : undefined,
          idempotencyKeyHash:
            rawKey !== undefined && IDEMPOTENCY_KEY_PATTERN.test(rawKey) ? sha256Hex(rawKey) : undefined,
          days: possibleLocalDays(now),
          now,
        });
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
        const command = {
          operation,
          identityId: identity.id,
          targetMessageId: params.message_id,
          idempotencyKey: dryRun === 'true' ? undefined : checkIdempotencyKey(rawKey, true),
          // A send by template is resolved and rendered here (functions/send/template.ts), before the
          // first read is decided on: a refused one stores, reserves and counts nothing.
          request: await resolveTemplate(deps, identity.tenant_id, parseSendBody(operation, bodyOf(event))),
          dryRun: dryRun === 'true',
        };
        const early = decideOnFirstRead(command, first, now);
        if (early) return currentIfPending(deps, identity.id, early);
        const out = await submit(deps, {
          ...command,
          tenant: (db) => tenantOfIdentity(db, identity),
          identity,
          requestId,
          firstRead: true,
          counters: first.counters,
        });
        return currentIfPending(deps, identity.id, out);
      })().catch(countRefusal(deps));
      deps.metrics.add(
        out.type === 'dry_run' ? 'sends_dry_run' : out.deduplicated ? 'sends_deduplicated' : 'sends_accepted',
      );
      if (out.type === 'dry_run') return json(200, out.result, requestId);
      return json(
        202,
        { ...out.message, deduplicated: out.deduplicated },
        requestId,
        out.deduplicated ? { 'idempotent-replayed': 'true' } : {},
      );
    }
    const key = await authenticate(deps, header(event, 'authorization'));
    switch (route.operation) {
      case 'cancelMessage': {
        requirePermission(key, 'messages:send');
        const { identity, tenant } = await identityInScope(deps.db, key, params.identity_id);
        const m = await cancelSend(deps, {
          tenant,
          identityId: identity.id,
          messageId: params.message_id,
          actor: key.key_id,
        });
        return json(200, toApiMessage(m), requestId);
      }
      case 'resolveMessage': {
        requirePermission(key, 'messages:write');
        const { identity } = await identityInScope(deps.db, key, params.identity_id);
        const body = resolveBodySchema.safeParse(parseJson(bodyOf(event)));
        if (!body.success) {
          throw invalidRequest(zodErrors(body.error));
        }
        const idempotencyKey = checkIdempotencyKey(header(event, 'idempotency-key'), false);
        const out = await resolveSend(deps, {
          identityId: identity.id,
          messageId: params.message_id,
          outcome: body.data.outcome,
          actor: key.key_id,
          idempotencyKey,
          requestId,
        });
        if (!out.replayed) deps.metrics.add('uncertain_resolved', { outcome: body.data.outcome });
        return json(200, out.body, requestId, out.replayed ? { 'idempotent-replayed': 'true' } : {});
      }
      case 'retryMessage': {
        requirePermission(key, 'messages:write');
        const { identity } = await identityInScope(deps.db, key, params.identity_id);
        const m = await retrySend(deps, {
          identityId: identity.id,
          messageId: params.message_id,
          actor: key.key_id,
        });
        return json(200, toApiMessage(m), requestId);
      }
      case 'approveMessage':
      case 'rejectMessage': {
        // A person's decision on a send waiting for approval (send/approval.ts).
        requirePermission(key, 'messages:approve');
        const { identity, tenant } = await identityInScope(deps.db, key, params.identity_id);
        const decide = route.operation === 'approveMessage' ? approveSend : rejectSend;
        const m = await decide(deps, { tenant, identity, messageId: params.message_id, actor: key.key_id });
        return json(200, toApiMessage(m), requestId);
      }
      case 'getMessage': {
        requirePermission(key, 'messages:read');
        const { identity } = await identityInScope(deps.db, key, params.identity_id);
        const m = isId('message', params.message_id)
          ? await getMessage(deps.db, identity.id, params.message_id)
          : undefined;
        if (!m) throw messageNotFound();
        return json(200, toApiMessage(m), requestId);
      }
      case 'getMessageRaw': {
        // The stored original: the received bytes of an inbound message, the sent MIME of an
        // outbound one. Scoped and answered 404 exactly as getMessage.
        requirePermission(key, 'messages:read');
        const { identity } = await identityInScope(deps.db, key, params.identity_id);
        const m = isId('message', params.message_id)
          ? await getMessage(deps.db, identity.id, params.message_id)
          : undefined;
        const raw = m ? await deps.blobs.get(m.raw_key) : undefined;
        if (!m || !raw) throw messageNotFound();
        return {
          statusCode: 200,
          headers: {
            'content-type': 'message/rfc822',
            'content-disposition': `attachment; filename="${m.id}.eml"`,
            'x-content-type-options': 'nosniff',
            'request-id': requestId,
          },
          body: Buffer.from(raw.body).toString('base64'),
          isBase64Encoded: true,
        };
      }
      case 'listMessages': {
        requirePermission(key, 'messages:read');
        const { identity } = await identityInScope(deps.db, key, params.identity_id);
        const q = listQuerySchema.safeParse(event.queryStringParameters ?? {});
        if (!q.success) {
          throw invalidQuery(zodErrors(q.error));
        }
        if (q.data.after !== undefined && q.data.status !== undefined) {
          throw new PmailError('invalid_request', 'status filters the list, not a read on from `after`.', {
            details: { errors: [{ path: 'status', message: 'not with after' }] },
          });
        }
        if (q.data.after !== undefined) return json(200, await readOn(deps, identity.id, q.data), requestId);
        if (q.data.thread_id !== undefined) {
          throw new PmailError('invalid_request', 'thread_id filters a read on from `after`.', {
            details: { errors: [{ path: 'thread_id', message: 'use with after' }] },
          });
        }
        const page = await listMessages(deps.db, identity.id, {
          direction: q.data.direction,
          status: q.data.status,
          limit: q.data.limit,
          cursor: q.data.cursor ? decodeCursor(q.data.cursor) : undefined,
        });
        return json(
          200,
          {
            data: page.data.map((m) => toApiMessage(m, { bodies: false })),
            next_cursor: page.next_cursor ? encodeCursor(page.next_cursor) : null,
          },
          requestId,
        );
      }
      default:
        throw routeNotFound();
    }
  });
}

/**
 * `GET …/messages?after=`: the messages written after a message id or a cursor, oldest first
 * (core/follow.ts). `after` is the cursor to read on from next time; `next_cursor` is the same
 * cursor when more messages are waiting now, else null. A message id that is no message of this
 * identity is 404 message_not_found, and a thread that is none of its threads 404 thread_not_found;
 * a cursor made by a read of that thread is not looked up again (the partition scopes it anyway).
 */
async function readOn(
  deps: Deps,
  identityId: string,
  q: {
    after?: string;
    cursor?: string;
    direction?: 'inbound' | 'outbound';
    thread_id?: string;
    limit: number;
  },
) {
  const parsed = parseAfter(q.after ?? '');
  if (!parsed || q.cursor !== undefined) {
    throw new PmailError('invalid_request', 'after is not a message id or a cursor of a read on.', {
      details: {
        errors: [
          { path: 'after', message: 'a message id, or `after` from a previous answer (not with cursor)' },
        ],
      },
    });
  }
  const [m, thread] = await Promise.all([
    parsed.type === 'message' ? getMessage(deps.db, identityId, parsed.position.after) : true,
    q.thread_id && parsed.position.thread !== q.thread_id
      ? threadExists(deps.db, identityId, q.thread_id)
      : true,
  ]);
  if (!m) throw messageNotFound();
  if (!thread) throw threadNotFound();
  const horizon = followHorizon(deps.clock());
  const page = await listMessagesAfter(deps.db, identityId, {
    ...parsed.position,
    direction: q.direction,
    threadId: q.thread_id,
    limit: q.limit,
  });
  const after = encodeFollowCursor({
    ...nextPosition(parsed.position, { ids: page.data.map((m) => m.id), more: page.more }, horizon),
    ...(q.thread_id ? { thread: q.thread_id } : {}),
  });
  return {
    data: page.data.map((m) => toApiMessage(m, { bodies: false })),
    next_cursor: page.more ? after : null,
    after,
  };
}

/** A send the use case refused: counted by its error code, then answered as before. */
const countRefusal =
  (deps: Deps) =>
  (err: unknown): never => {
    if (err instanceof PmailError) deps.metrics.add('sends_refused', { code: err.code });
    throw err;
  };

const SEND_OPERATIONS = new Set(['sendMessage', 'replyMessage', 'replyAllMessage', 'forwardMessage']);

const OPERATIONS: Record<string, Operation> = {
  sendMessage: 'send',
  replyMessage: 'reply',
  replyAllMessage: 'reply_all',
  forwardMessage: 'forward',
};

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text || '{}');
  } catch {
    throw invalidJson();
  }
}

const encodeCursor = (messageId: string) => Buffer.from(messageId).toString('base64url');

function decodeCursor(cursor: string): string {
  const id = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!isId('message', id)) {
    throw invalidCursor();
  }
  return id;
}
