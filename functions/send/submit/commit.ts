import type { MessageRecord } from '../../core/model.ts';
import type { Deps } from '../../deps.ts';
import { putAcceptedMessage } from '../../store/messages.store.ts';
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
 * writes its own MIME object, `raw_n`, so the message's writer's is the one).
 */
export async function putObjects(deps: Pick<Deps, 'blobs'>, d: Decided, { message, prepared }: Locked) {
  for (const l of prepared.links) await deps.blobs.put(l.key, l.bytes, l.metadata, l.contentType);
  await deps.blobs.put(message.raw_key, prepared.mime, {
    tenant: d.tenant.id,
    identity: d.identity.id,
    message: message.id,
    idem_key_sha256: d.key.keyHash,
    fingerprint: d.key.fingerprint,
    operation: d.operation,
  });
}

/**
 * Commit: the message under the id the reservation minted, the commit point. Its place in the
 * identity's feed is taken here, after any wait for the thread's lock (docs/design/ordering.md).
 * Refused, an earlier owner of the key wrote it: that message is the send.
 */
export function commit(deps: Pick<Deps, 'db' | 'clock'>, message: MessageRecord) {
  return putAcceptedMessage(deps.db, message, deps.clock());
}
