import { z } from 'zod';
import { invalidQuery, messageNotFound, PmailError, routeNotFound, threadNotFound } from '../core/errors.ts';
import { isId } from '../core/ids.ts';
import { attachmentDisposition, servedAttachmentType } from '../core/inbound.ts';
import { attachmentIndex, toApiMessage } from '../core/message-view.ts';
import {
  decodeThreadCursor,
  encodeThreadCursor,
  MAX_THREAD_VIEW_MESSAGES,
  toApiThreadSummary,
  viewedMessageIds,
} from '../core/threads.ts';
import type { Deps } from '../deps.ts';
import { readAttachment } from '../inbound/attachment.ts';
import { getMessage } from '../store/messages.store.ts';
import { getMessages, getThreadSummary, listThreads } from '../store/thread-list.store.ts';
import { authenticate, identityInScope, requirePermission } from './auth.ts';
import { header, json, routeGroup } from './http.ts';
import { zodErrors } from './send.schema.ts';

const listQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(25),
  cursor: z.string().max(200).optional(),
});

const attachmentNotFound = () =>
  new PmailError('attachment_not_found', 'No attachment with this id on this message.');

/**
 * The `threads` route group (docs/guides/receiving.md › Threads, › Attachments): an identity's
 * conversations, newest activity first, one conversation's messages in order, and a received
 * message's attachment. `messages:read`; another identity's or tenant's thread or message is
 * not found, as a missing one.
 */
export function threadsApi(deps: Deps) {
  return routeGroup(deps, async ({ event, route, params, requestId }) => {
    const key = await authenticate(deps, header(event, 'authorization'));
    requirePermission(key, 'messages:read');
    const { identity } = await identityInScope(deps.db, key, params.identity_id);
    switch (route.operation) {
      case 'listThreads': {
        const q = listQuery.safeParse(event.queryStringParameters ?? {});
        const after = q.success && q.data.cursor ? decodeThreadCursor(q.data.cursor) : undefined;
        if (!q.success || (q.data.cursor && !after)) {
          throw invalidQuery(
            q.success
              ? [{ path: 'cursor', message: 'use next_cursor from a previous page' }]
              : zodErrors(q.error),
          );
        }
        const page = await listThreads(deps.db, identity.id, { limit: q.data.limit, after });
        return json(
          200,
          {
            data: page.data.map(toApiThreadSummary),
            next_cursor: page.last ? encodeThreadCursor(page.last) : null,
          },
          requestId,
        );
      }
      case 'getThread': {
        const thread = isId('thread', params.thread_id)
          ? await getThreadSummary(deps.db, identity.id, params.thread_id)
          : undefined;
        if (!thread) throw threadNotFound();
        const messages = await getMessages(deps.db, identity.id, viewedMessageIds(thread.message_ids));
        return json(
          200,
          {
            ...toApiThreadSummary(thread),
            messages_truncated: thread.message_ids.length > MAX_THREAD_VIEW_MESSAGES,
            messages: messages.map((m) => toApiMessage(m, { bodies: false, extracted: true })),
          },
          requestId,
        );
      }
      case 'getAttachment':
        return attachment(deps, identity.id, params, requestId);
      default:
        throw routeNotFound();
    }
  });
}

/** One attachment's bytes: never inline, never sniffed, a risky or active type as bytes only. */
async function attachment(deps: Deps, identityId: string, params: Record<string, string>, requestId: string) {
  const m = isId('message', params.message_id)
    ? await getMessage(deps.db, identityId, params.message_id)
    : undefined;
  if (!m) throw messageNotFound();
  const index = attachmentIndex(params.attachment_id);
  const listed = index === undefined ? undefined : m.inbound?.attachments[index];
  const raw = listed && m.inbound?.parse === 'parsed' ? await deps.blobs.get(m.raw_key) : undefined;
  const bytes = raw && listed ? await readAttachment(raw.body, index!, listed) : undefined;
  if (!listed || !bytes) throw attachmentNotFound();
  return {
    statusCode: 200,
    headers: {
      'content-type': servedAttachmentType(listed.content_type, listed.risky !== undefined),
      'content-disposition': attachmentDisposition(listed.filename ?? params.attachment_id),
      'x-content-type-options': 'nosniff',
      'content-security-policy': "sandbox; default-src 'none'",
      'cache-control': 'private, no-store',
      'request-id': requestId,
    },
    body: bytes.toString('base64'),
    isBase64Encoded: true,
  };
}
