import { bodyRedacted, type MessageBody, storesSentBody } from '../core/message-body.ts';
import type { MessageRecord } from '../core/model.ts';
import { documentTokens, searchFieldsOf } from '../core/search-text.ts';
import type { SearchIndex } from '../store/search.store.ts';

/**
 * Whether a message is indexed for search: every received message (held mail too: a reader
 * without `messages:hold` never sees it among the results), every sent message except a
 * transactional template's, whose subject and text may carry its payload (a sign-in link, a code)
 * and are withheld once it is final (core/message-body.ts › bodyOf).
 */
export const isIndexed = (m: MessageRecord): boolean =>
  m.direction === 'inbound' || (storesSentBody(m) && !bodyRedacted(m));

/**
 * Write a committed message's search document (docs/design/search.md › Full text): its words from
 * the record and `body` (core/message-body.ts › bodyOf of the same message). Written after the
 * commit by the step that commits it, and again by a retry of that step, with the same content.
 */
export async function indexMessage(index: SearchIndex, m: MessageRecord, body: MessageBody): Promise<void> {
  if (!isIndexed(m)) return;
  await index.put({
    identityId: m.identity_id,
    messageId: m.id,
    direction: m.direction,
    tokens: documentTokens(searchFieldsOf({ ...m, ...body })),
  });
}
