import { keptChanging, messageNotFound } from '../core/errors.ts';
import { checkHeld, releasedMessage } from '../core/hold.ts';
import { snippetOf } from '../core/inbound.ts';
import type { MessageRecord } from '../core/model.ts';
import type { Deps } from '../deps.ts';
import { errorFields } from '../log.ts';
import { auditPut } from '../store/audit-log.store.ts';
import type { ContactCount } from '../store/contacts.store.ts';
import { deleteHeld, releaseHeld } from '../store/hold.store.ts';
import { getMessage } from '../store/messages.store.ts';
import { receivedEvent } from './inbound-record.ts';

/**
 * A person's decision on held mail (docs/guides/receiving.md › Held mail): release it, and the
 * message becomes `message.received` at a new position in the identity's feed, as if it had just
 * arrived (store/hold.store.ts › releaseHeld), its thread and its sender's contact counted then; or
 * delete it, and it is gone with its raw copy. Each is one transaction conditioned on the message's
 * version, with its audit entry; a lost race reads the message again.
 */
type HeldDeps = Pick<Deps, 'db' | 'clock' | 'newId' | 'blobs' | 'log'>;

interface Decision {
  identityId: string;
  messageId: string;
  /** The deciding key. */
  actor: string;
}

/** The received message, or 404. */
async function receivedMessage(deps: HeldDeps, d: Decision): Promise<MessageRecord> {
  const m = await getMessage(deps.db, d.identityId, d.messageId, true);
  if (m?.direction !== 'inbound') throw messageNotFound();
  return m;
}

/**
 * Release: the held message, shown from now on. A message released already is answered as it is
 * (a retried release changes nothing); one never held is 409 message_not_held.
 */
export async function releaseMessage(deps: HeldDeps, d: Decision): Promise<MessageRecord> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const m = await receivedMessage(deps, d);
    if (!m.held && m.released) return m;
    const now = deps.clock();
    const next = releasedMessage(m, now, d.actor);
    const done = await releaseHeld(deps.db, {
      held: m,
      next,
      event: receivedEvent(next, now),
      audit: audit(deps, m, 'message.release', d.actor, now),
      snippet: snippetOf(next.inbound?.extracted_text || next.inbound?.text),
      routedTo: next.inbound?.routed_to ?? next.to[0]?.address ?? '',
      countSender: senderCount(next),
      now,
    });
    if (done) return (await getMessage(deps.db, d.identityId, d.messageId, true)) ?? next;
  }
  throw keptChanging('message');
}

/** Delete: the held message and its raw copy are gone. A message not held is 409 message_not_held. */
export async function deleteHeldMessage(deps: HeldDeps, d: Decision): Promise<void> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const m = await receivedMessage(deps, d);
    checkHeld(m);
    const done = await deleteHeld(deps.db, m, audit(deps, m, 'message.delete', d.actor, deps.clock()));
    if (!done) continue;
    await deps.blobs
      .delete(m.raw_key)
      .catch((e) => deps.log.error('held raw copy not deleted', { message_id: m.id, ...errorFields(e) }));
    return;
  }
  throw keptChanging('message');
}

function audit(deps: HeldDeps, m: MessageRecord, action: string, actor: string, now: number) {
  return auditPut(deps.db, {
    id: deps.newId(),
    tenant_id: m.tenant_id,
    action,
    actor,
    message_id: m.id,
    details: { reason: m.held?.reason ?? null },
    at: now,
  });
}

/**
 * The sender a released message counts as a contact, as the ingest counts a message it shows:
 * never spam or quarantined mail, and `authenticated_inbound_count` only when it proves its From.
 */
function senderCount(m: MessageRecord): { address: string; counts: ContactCount[] } | undefined {
  if (m.flags.includes('quarantined') || m.flags.includes('spam')) return undefined;
  const counts: ContactCount[] = [
    'inbound_count',
    ...(m.inbound?.sender_auth === 'authenticated' ? ['authenticated_inbound_count' as const] : []),
  ];
  return { address: m.from.address, counts };
}
