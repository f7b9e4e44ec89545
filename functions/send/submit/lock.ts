import { threadBusy } from '../../core/errors.ts';
import { messageRecord } from '../../core/message-record.ts';
import type { Identity, MessageRecord } from '../../core/model.ts';
import type { Deps } from '../../deps.ts';
import { outboundKey } from '../../store/blobs.ts';
import { getThread, lockedByOther, takeThreadForSend } from '../../store/threads.store.ts';
import { composeMime, type Prepared, referencesFor } from '../prepare.ts';
import type { Counted } from './count.ts';
import type { Decided } from './decide.ts';

/** The thread lock: wait 250 ms between tries, for at most 10 s. */
export const LOCK_RETRY_MS = 250;
export const LOCK_WAIT_MAX_MS = 10_000;

/** A send ready to commit: its composition as the thread's chain left it, and its message record. */
export interface Locked {
  prepared: Prepared;
  message: MessageRecord;
}

/**
 * Lock: the thread's lock and chain, before the message (a message is never queued in a thread
 * without the lock). A lost race, the lock taken or the chain moved, is retried after the holder,
 * the send recomposed against the chain it left. An unthreaded send has nothing to lock.
 */
export async function lock(deps: Pick<Deps, 'db' | 'clock'>, d: Decided, counted?: Counted): Promise<Locked> {
  let prepared = d.prepared;
  for (let attempt = 0; ; attempt++) {
    const now = deps.clock();
    if (prepared.threaded) {
      const followed = await followThread(deps, d.identity, prepared, d.started, attempt, now);
      if (!followed) continue;
      prepared = followed;
    }
    const message = messageRecord({
      tenantId: d.tenant.id,
      identityId: d.identity.id,
      operation: d.operation,
      body: d.body,
      send: prepared,
      attempt: d.key.attempt,
      rawKey: outboundKey(d.tenant.id, d.identity.id, prepared.messageId, d.key.attempt),
      now,
      quotaDay: counted?.quotaDay,
      pending: d.pending,
    });
    if (prepared.threaded && !(await lockThread(deps, prepared, message, now, d))) continue;
    return { prepared, message };
  }
}

/**
 * The thread as it is now: undefined after a wait for another message's lock (250 ms steps, at
 * most 10 s, then 429 thread_busy), else the send recomposed against the chain the holder left.
 */
async function followThread(
  deps: Pick<Deps, 'db' | 'clock'>,
  identity: Identity,
  prepared: Prepared,
  started: number,
  attempt: number,
  now: number,
): Promise<Prepared | undefined> {
  const thread = await getThread(deps.db, identity.id, prepared.threadId);
  if (lockedByOther(thread, prepared.messageId, now)) {
    // The attempt count bounds the wait too, should the injected clock stand still.
    const waited = deps.clock() - started;
    if (waited + LOCK_RETRY_MS > LOCK_WAIT_MAX_MS || attempt >= LOCK_WAIT_MAX_MS / LOCK_RETRY_MS) {
      throw threadBusy(Math.min(60, Math.max(1, Math.ceil(((thread!.lock_until ?? now) - now) / 1000))));
    }
    await new Promise((r) => setTimeout(r, LOCK_RETRY_MS));
    return undefined;
  }
  // An earlier owner of this key wrote the thread for this very message before it stopped: the
  // chain already ends with it, which this message must not reference.
  const own = prepared.compose.rfcMessageId;
  const ownInChain = !!thread?.refs.includes(own);
  if ((thread?.seq ?? 0) === (prepared.thread?.seq ?? 0) && !ownInChain) return prepared;
  // Someone sent on this thread since we composed: follow their message in References.
  const view = thread && ownInChain ? { ...thread, refs: thread.refs.filter((r) => r !== own) } : thread;
  const references = referencesFor(view, prepared.target);
  const inReplyTo = prepared.target?.rfc_message_id ?? references.at(-1);
  return {
    ...prepared,
    thread,
    ownInChain,
    references: references.length ? references : undefined,
    inReplyTo,
    mime: await composeMime(prepared.compose, inReplyTo, references),
  };
}

/** Take the thread's lock and move its chain to this message; false when the race was lost. */
function lockThread(
  deps: Pick<Deps, 'db'>,
  prepared: Prepared,
  message: MessageRecord,
  now: number,
  d: Pick<Decided, 'suppressedAll' | 'pending'>,
): Promise<boolean> {
  return takeThreadForSend(deps.db, {
    identityId: message.identity_id,
    threadId: prepared.threadId,
    messageId: message.id,
    now,
    seenSeq: prepared.thread?.seq ?? 0,
    refs: prepared.ownInChain
      ? prepared.thread!.refs
      : [...(prepared.references ?? []), message.rfc_message_id],
    rfcMessageId: message.rfc_message_id,
    autoStreak: prepared.autoStreak,
    fromAddress: prepared.from.address,
    lock: !d.suppressedAll && !prepared.undispatched && !d.pending,
  });
}
