import { sentBodyOf } from '../../bodies/sent-body.ts';
import { composePlan } from '../../core/compose.ts';
import { bodyOf, type SentBody, storesSentBody } from '../../core/message-body.ts';
import type { MessageRecord } from '../../core/model.ts';
import type { Deps } from '../../deps.ts';
import { errorFields } from '../../log.ts';
import { indexMessage } from '../../search/index-message.ts';
import { putAcceptedMessage } from '../../store/messages.store.ts';
import { tableSearchIndex } from '../../store/search.store.ts';
import type { Decided } from './decide.ts';
import type { Locked } from './lock.ts';

/** The objects a send writes, named by no message until its put lands. */
export interface SendObjects {
  messageId: string;
  keys: string[];
}

/** The objects the commit writes for a locked send: its links' and its MIME's. */
export const objectsOf = ({ message, prepared }: Locked): SendObjects => ({
  messageId: message.id,
  keys: [message.raw_key, ...prepared.links.map((l) => l.key)],
});

/**
 * The objects first, so the message never points to a missing object (each request of the key
 * writes its own MIME object, `raw_n`, so the message's writer's is the one). Beside them, the sent
 * body as the composition sent it and its search document (docs/design/search.md › Full text):
 * written before the commit, a writer that stops after it still leaves its message findable; a
 * document whose message is never committed names no message and is never a result. A failed
 * document put is logged and never stops the send. Answers the body, stored after the commit.
 */
export async function putObjects(
  deps: Pick<Deps, 'blobs' | 'db' | 'log'>,
  d: Decided,
  { message, prepared }: Locked,
): Promise<SentBody | undefined> {
  const body = storesSentBody(message) ? await composedBody(prepared) : undefined;
  const indexed = body
    ? indexMessage(tableSearchIndex(deps.db), message, bodyOf(message, body)).catch((e) =>
        deps.log.error('search document failed', { message_id: message.id, ...errorFields(e) }),
      )
    : undefined;
  for (const l of prepared.links) await deps.blobs.put(l.key, l.bytes, l.metadata, l.contentType);
  await deps.blobs.put(message.raw_key, prepared.mime, {
    tenant: d.tenant.id,
    identity: d.identity.id,
    message: message.id,
    idem_key_sha256: d.key.keyHash,
    fingerprint: d.key.fingerprint,
    operation: d.operation,
  });
  await indexed;
  return body;
}

/** The sent body as the composition sent it (core/compose.ts › composePlan). */
const composedBody = (prepared: Locked['prepared']): Promise<SentBody> =>
  sentBodyOf(
    composePlan({ ...prepared.compose, inReplyTo: prepared.inReplyTo, references: prepared.references }),
  );

/**
 * Commit: the message under the id the reservation minted, the commit point. Its place in the
 * identity's feed is taken here, after any wait for the thread's lock (docs/design/ordering.md).
 * Refused, an earlier owner of the key wrote it: that message is the send.
 */
export function commit(deps: Pick<Deps, 'db' | 'clock'>, message: MessageRecord) {
  return putAcceptedMessage(deps.db, message, deps.clock());
}
