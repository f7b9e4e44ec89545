import type { DepsFor } from '../lambda-ports.ts';
import { identityInScope, requirePermission } from './auth.ts';
import { type IdentityRoute, operationGroup } from './operation.ts';
import { getAttachmentRoute } from './threads/get-attachment.ts';
import { getThreadRoute } from './threads/get-thread.ts';
import { labelThreadRoute } from './threads/labels.ts';
import { listThreadsRoute } from './threads/list-threads.ts';

/** The operations of the group, each behind the shared step: the key, its permission (`messages:read` unless it names one), the identity. */
const OPERATIONS: Record<string, IdentityRoute<DepsFor<'api-threads'>>> = {
  listThreads: listThreadsRoute,
  getThread: getThreadRoute,
  getAttachment: getAttachmentRoute,
  labelThread: labelThreadRoute,
};

/**
 * The `threads` route group (docs/guides/receiving.md › Threads, › Attachments): an identity's
 * conversations, newest activity first, one conversation's messages in order, and a received
 * message's attachment, a conversation's labels; one file per operation under functions/api/threads/.
 * `messages:read` (labels: `messages:write`);
 * another identity's or tenant's thread or message is not found, as a missing one.
 */
export function threadsApi(deps: DepsFor<'api-threads'>) {
  return operationGroup(deps, OPERATIONS, async (key, operation, { params }) => {
    requirePermission(key, operation.permission ?? 'messages:read');
    const { identity } = await identityInScope(deps.db, key, params.identity_id);
    return { identity };
  });
}
