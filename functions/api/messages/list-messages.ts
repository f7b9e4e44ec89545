import * as z from 'zod';
import { loadBodies } from '../../bodies/read-bodies.ts';
import {
  invalidCursor,
  invalidQuery,
  messageNotFound,
  PmailError,
  threadNotFound,
} from '../../core/errors.ts';
import { encodeFollowCursor, type FollowPosition, parseAfter } from '../../core/follow.ts';
import { maySee } from '../../core/hold.ts';
import { ID_PATTERNS, isId } from '../../core/ids.ts';
import {
  filtersItems,
  type ListFilter,
  MAX_FILTER_SCAN,
  messageIdBounds,
  messageMatches,
} from '../../core/list-filter.ts';
import { toApiMessage } from '../../core/message-view.ts';
import { MESSAGE_STATUSES, type MessageRecord } from '../../core/model.ts';
import type { BaseDeps } from '../../deps.ts';
import { feedHead, identityFeed } from '../../store/feed.store.ts';
import { withStoredLabels } from '../../store/labels.store.ts';
import { getMessage, listMessages, listMessagesAfter } from '../../store/messages.store.ts';
import { getThread } from '../../store/threads.store.ts';
import { json } from '../http.ts';
import { anyFilter, listFilterFields, listFilterOf } from '../list-filter.schema.ts';
import { zodErrors } from '../send.schema.ts';
import type { ScopedRoute } from './operation.ts';
import { searchPage } from './search.ts';

export const listQuerySchema = z.strictObject({
  direction: z.enum(['inbound', 'outbound']).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(25),
  cursor: z.string().max(200).optional(),
  /** Read on: the messages committed after this message id or `after` cursor, in commit order (core/follow.ts). */
  after: z.string().max(6000).optional(),
  thread_id: z.string().regex(ID_PATTERNS.thread).optional(),
  status: z.enum(MESSAGE_STATUSES).optional(),
  /** Full text (functions/api/messages/search.ts): with it the page is search results. */
  q: z.string().optional(),
  ...listFilterFields,
});

type ListQuery = z.output<typeof listQuerySchema>;

/** GET …/messages: the identity's messages, newest first, or a read on from `after` (readOn). */
export const listMessagesRoute: ScopedRoute = {
  permission: 'messages:read',
  handle: async (deps, { event, key, identity, requestId }) => {
    const q = listQuerySchema.safeParse(event.queryStringParameters ?? {});
    if (!q.success) {
      throw invalidQuery(zodErrors(q.error));
    }
    const filter = listFilterOf(q.data);
    if (q.data.after !== undefined && (anyFilter(filter) || q.data.q !== undefined)) {
      throw new PmailError(
        'invalid_request',
        'The filters select a page of the list, not a read on from `after`.',
        {
          details: {
            errors: [
              {
                path: 'after',
                message: 'not with q, label, from, to, subject, since, until, has_attachment',
              },
            ],
          },
        },
      );
    }
    if (q.data.after !== undefined && q.data.status !== undefined) {
      throw new PmailError('invalid_request', 'status filters the list, not a read on from `after`.', {
        details: { errors: [{ path: 'status', message: 'not with after' }] },
      });
    }
    if (q.data.after !== undefined) return json(200, await readOn(deps, identity.id, q.data, key), requestId);
    if (q.data.q !== undefined) return json(200, await searched(deps, identity.id, q.data, key), requestId);
    if (q.data.thread_id !== undefined) {
      throw new PmailError('invalid_request', 'thread_id filters a read on from `after`.', {
        details: { errors: [{ path: 'thread_id', message: 'use with after' }] },
      });
    }
    const cursor = q.data.cursor ? decodeCursor(q.data.cursor) : undefined;
    const list = { direction: q.data.direction, status: q.data.status, range: messageIdBounds(filter) };
    if (filtersItems(filter)) {
      const page = await filteredPage(deps, identity.id, { ...list, limit: q.data.limit, cursor }, filter);
      return json(
        200,
        { data: page.data, next_cursor: page.next ? encodeCursor(page.next) : null },
        requestId,
      );
    }
    const page = await listMessages(deps.db, identity.id, { ...list, limit: q.data.limit, cursor });
    return json(
      200,
      {
        data: await summaries(deps, page.data),
        next_cursor: page.next_cursor ? encodeCursor(page.next_cursor) : null,
      },
      requestId,
    );
  },
};

/** `GET …/messages?q=`: a page of search results (functions/api/messages/search.ts). */
async function searched(
  deps: BaseDeps,
  identityId: string,
  q: ListQuery,
  key: { scopes: readonly string[] },
) {
  const cursorId = q.cursor ? decodeCursor(q.cursor) : undefined;
  const page = await searchPage(deps, [identityId], { ...q, q: q.q ?? '', cursorId }, key);
  return { data: page.data, next_cursor: page.next ? encodeCursor(page.next) : null };
}

/**
 * `GET …/messages?after=`: the messages committed after a message id or a cursor, in commit order
 * (core/follow.ts, docs/design/ordering.md). `after` is the cursor to read on from next time;
 * `next_cursor` is the same cursor when more messages are waiting now, else null. A message id
 * that is no message of this identity is 404 message_not_found, and a thread that is none of its
 * threads 404 thread_not_found; a cursor made by a read of that thread is not looked up again (the
 * partition scopes it anyway).
 */
async function readOn(deps: BaseDeps, identityId: string, q: ListQuery, key: { scopes: readonly string[] }) {
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
  const cursorThread = parsed.type === 'cursor' ? parsed.position.thread : undefined;
  const [start, thread] = await Promise.all([
    startOf(deps, identityId, parsed.type === 'message' ? parsed.id : parsed.position, key),
    q.thread_id && cursorThread !== q.thread_id ? threadVisible(deps, identityId, q.thread_id, key) : true,
  ]);
  if (!thread) throw threadNotFound();
  const page = await listMessagesAfter(deps.db, identityId, {
    after: start,
    direction: q.direction,
    threadId: q.thread_id,
    limit: q.limit,
    now: deps.clock(),
  });
  const after = encodeFollowCursor({
    position: page.position,
    ...(q.thread_id ? { thread: q.thread_id } : {}),
  });
  return {
    data: await summaries(deps, page.data),
    next_cursor: page.more ? after : null,
    after,
  };
}

/**
 * The feed number a read on starts after: a message's own (one committed before messages had
 * numbers starts at the beginning: every numbered message came after it), a cursor's, or the
 * feed's head.
 */
async function startOf(
  deps: BaseDeps,
  identityId: string,
  from: string | FollowPosition,
  key: { scopes: readonly string[] },
): Promise<number> {
  if (typeof from === 'string') {
    const m = await getMessage(deps.db, identityId, from, true);
    // A held message has no place in the feed: to a key that may not see it, it is no message.
    if (!m || !maySee(key, m)) throw messageNotFound();
    return m.pos ?? 0;
  }
  return from.position === 'head' ? feedHead(deps.db, identityFeed(identityId)) : from.position;
}

/**
 * A thread of the identity this key may see: its thread item (written by every message shown in
 * it), or its first message when the key may see that one (a thread of held mail only has no item).
 */
async function threadVisible(
  deps: BaseDeps,
  identityId: string,
  threadId: string,
  key: { scopes: readonly string[] },
): Promise<boolean> {
  const [thread, root] = await Promise.all([
    getThread(deps.db, identityId, threadId),
    getMessage(deps.db, identityId, `msg_${threadId.slice(4)}`),
  ]);
  return thread !== undefined || (root?.thread_id === threadId && maySee(key, root));
}

/**
 * A page of the messages the filter matches (docs/design/search.md › Filters): the list read a
 * page at a time, each page's summaries (with their labels) matched, until `limit` match or
 * MAX_FILTER_SCAN messages were read; then `next` is the last message read, so the next page goes
 * on from there (a page may hold fewer than `limit`, even none, and still have a `next`).
 */
async function filteredPage(
  deps: BaseDeps,
  identityId: string,
  opts: Omit<Parameters<typeof listMessages>[2], 'limit'> & { limit: number },
  filter: ListFilter,
): Promise<{ data: Summary[]; next: string | null }> {
  const data: Summary[] = [];
  let cursor = opts.cursor;
  let scanned = 0;
  for (;;) {
    const page = await listMessages(deps.db, identityId, {
      ...opts,
      cursor,
      limit: Math.min(100, MAX_FILTER_SCAN - scanned),
    });
    const views = await summaries(deps, page.data);
    for (const [i, v] of views.entries()) {
      scanned++;
      cursor = v.id;
      if (!messageMatches(v, filter)) continue;
      data.push(v);
      const last = i === views.length - 1 && !page.next_cursor;
      if (data.length === opts.limit) return { data, next: last ? null : v.id };
    }
    if (!page.next_cursor) return { data, next: null };
    if (scanned >= MAX_FILTER_SCAN) return { data, next: cursor ?? null };
  }
}

type Summary = ReturnType<typeof toApiMessage>;

/** A page's messages as a list shows them: snippet and attachments, no text, HTML or extracted text (no MIME read). */
async function summaries(deps: BaseDeps, records: MessageRecord[]) {
  const [bodies, page] = await Promise.all([
    loadBodies(deps, records, { mime: false }),
    withStoredLabels(deps.db, records),
  ]);
  return page.map((m) => toApiMessage(m, bodies.get(m.id), 'summary'));
}

export const encodeCursor = (messageId: string) => Buffer.from(messageId).toString('base64url');

export function decodeCursor(cursor: string): string {
  const id = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!isId('message', id)) {
    throw invalidCursor();
  }
  return id;
}
