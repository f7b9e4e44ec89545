import { snippetOf } from '../../core/inbound.ts';
import { type SentBody, storesSentBody } from '../../core/message-body.ts';
import { pendingApprovalEvent, suppressedEvent } from '../../core/message-record.ts';
import { toApiMessage } from '../../core/message-view.ts';
import type { MessageRecord } from '../../core/model.ts';
import type { Deps } from '../../deps.ts';
import { errorFields } from '../../log.ts';
import { appendEvent } from '../../store/events.store.ts';
import { putSentBody } from '../../store/message-bodies.store.ts';
import { noteThreadMessage } from '../../store/thread-list.store.ts';
import { completeKey, type KeyRef } from '../idempotency.ts';
import { startDispatch } from './after-commit.ts';
import type { Locked } from './lock.ts';
import type { HeldKey } from './reserve.ts';

/** The answer this request stored (`response`) and the one the key holds (`answer`: another's, if it completed first). */
export interface Completed {
  response: string;
  answer: string;
}

/**
 * Complete, after the message's put: its outbox event (a suppressed or a pending send's), then in
 * one round trip the key's completion, the thread list's summary and the sent body's item
 * (docs/design/cost.md › Sent bodies). The summary and the body are unconditional and idempotent
 * (store/thread-list.store.ts, store/message-bodies.store.ts); a failure of either is logged and
 * never undoes the send (a body never written is read back from the MIME).
 */
export async function complete(
  deps: Pick<Deps, 'db' | 'clock' | 'log'>,
  key: HeldKey,
  { message, prepared }: Locked,
  body: SentBody | undefined,
): Promise<Completed> {
  await bornEvent(deps, message);
  const response = JSON.stringify(toApiMessage(message));
  const logged = (what: string) => (e: unknown) =>
    deps.log.error(`${what} failed`, { message_id: message.id, ...errorFields(e) });
  const [answer] = await Promise.all([
    completeKey(deps, key, response),
    noteThreadMessage(deps.db, message, {
      now: deps.clock(),
      // A transactional template's text (a sign-in link, a code) is not kept in the thread's summary either.
      snippet: storesSentBody(message) ? snippetOf(prepared.compose.text) : '',
    }).catch(logged('thread summary')),
    body ? storeSentBody(deps, message, body).catch(logged('sent body')) : undefined,
  ]);
  return { response, answer };
}

/** A message born suppressed or waiting for approval: its outbox event (deterministic id: put once). */
async function bornEvent(deps: Pick<Deps, 'db' | 'clock'>, m: MessageRecord): Promise<void> {
  if (m.status === 'suppressed') await appendEvent(deps.db, suppressedEvent(m), deps.clock());
  if (m.status === 'pending_approval') await appendEvent(deps.db, pendingApprovalEvent(m), deps.clock());
}

/** The sent body, composed before the commit (./commit.ts › putObjects), stored once. */
function storeSentBody(deps: Pick<Deps, 'db'>, message: MessageRecord, body: SentBody): Promise<void> {
  return putSentBody(deps.db, message.identity_id, message.id, body);
}

/**
 * A request that took the key over found its message written (its earlier owner stopped between
 * the message and the key's completion, or won the put): re-put the message's own outbox event
 * (deterministic id: a no-op if it was written), complete the key from the message, start its named
 * execution if it is still queued and unclaimed (a second execution for it is refused at its
 * transport's claim write: one claim per message). The answer is what the key holds.
 */
export async function adoptWritten(
  deps: Pick<Deps, 'db' | 'clock' | 'dispatcher' | 'log'>,
  held: KeyRef & { messageId: string },
  m: MessageRecord,
): Promise<string> {
  await bornEvent(deps, m);
  const answer = await completeKey(deps, held, JSON.stringify(toApiMessage(m)));
  if (m.status === 'queued' && !m.claim) await startDispatch(deps, m);
  return answer;
}
