import { routeNotFound } from '../core/errors.ts';
import type { DepsFor } from '../lambda-ports.ts';
import { authenticate, identityInScope, requirePermission } from './auth.ts';
import { header, routeGroup } from './http.ts';
import { approveMessageRoute } from './messages/approve.ts';
import { cancelMessageRoute } from './messages/cancel.ts';
import { deleteMessageRoute } from './messages/delete-message.ts';
import { forwardMessageRoute } from './messages/forward.ts';
import { getMessageRoute } from './messages/get-message.ts';
import { getMessageRawRoute } from './messages/get-raw.ts';
import { labelMessageRoute } from './messages/labels.ts';
import { listHeldRoute } from './messages/list-held.ts';
import { listMessagesRoute } from './messages/list-messages.ts';
import type { MessagesRoute, ScopedRoute } from './messages/operation.ts';
import { rejectMessageRoute } from './messages/reject.ts';
import { releaseMessageRoute } from './messages/release.ts';
import { replyMessageRoute } from './messages/reply.ts';
import { replyAllMessageRoute } from './messages/reply-all.ts';
import { resolveMessageRoute } from './messages/resolve.ts';
import { retryMessageRoute } from './messages/retry.ts';
import { searchTenantMessages } from './messages/search-tenant.ts';
import { sendBatchRoute } from './messages/send-batch.ts';
import { sendMessageRoute } from './messages/send-message.ts';

/**
 * The submit operations (functions/api/messages/submit.ts): each reads its caller in its first read,
 * with the identity, the Idempotency-Key's item and the rate window, so they skip the shared step.
 */
const SUBMITS: Record<string, MessagesRoute> = {
  sendMessage: sendMessageRoute,
  replyMessage: replyMessageRoute,
  replyAllMessage: replyAllMessageRoute,
  forwardMessage: forwardMessageRoute,
};

/** The other operations, each behind the shared step: the key, its permission, the identity in its scope. */
const SCOPED: Record<string, ScopedRoute> = {
  getMessage: getMessageRoute,
  getMessageRaw: getMessageRawRoute,
  listMessages: listMessagesRoute,
  cancelMessage: cancelMessageRoute,
  resolveMessage: resolveMessageRoute,
  retryMessage: retryMessageRoute,
  approveMessage: approveMessageRoute,
  rejectMessage: rejectMessageRoute,
  sendMessageBatch: sendBatchRoute,
  releaseMessage: releaseMessageRoute,
  deleteMessage: deleteMessageRoute,
  listHeld: listHeldRoute,
  labelMessage: labelMessageRoute,
};

/**
 * The `messages` route group (functions/api/routes.ts), one file per operation under
 * functions/api/messages/. Thin: parse, call the use case or the store, map the answer. Errors
 * become the error envelope of openapi.yaml.
 */
export function messagesApi(deps: DepsFor<'api-messages'>) {
  return routeGroup(deps, async (call) => {
    const submitOperation = SUBMITS[call.route.operation];
    if (submitOperation) return submitOperation(deps, call);
    const key = await authenticate(deps, header(call.event, 'authorization'));
    if (call.route.operation === 'searchTenantMessages') return searchTenantMessages(deps, { ...call, key });
    const operation = SCOPED[call.route.operation];
    if (!operation) throw routeNotFound();
    requirePermission(key, operation.permission);
    const { identity, tenant } = await identityInScope(deps.db, key, call.params.identity_id);
    return operation.handle(deps, { ...call, key, identity, tenant });
  });
}
