import { keptChanging, messageNotFound, threadNotFound } from '../core/errors.ts';
import { aboutMessage } from '../core/event-access.ts';
import { maySee } from '../core/hold.ts';
import { isId } from '../core/ids.ts';
import { applyLabelChange, changesLabels, checkLabelChange, type LabelChange } from '../core/labels.ts';
import type { Deps } from '../deps.ts';
import { isTransactionCanceled } from '../store/db.ts';
import { getLabels, type LabelTarget, putLabels } from '../store/labels.store.ts';
import { getMessage } from '../store/messages.store.ts';
import { getThreadSummary } from '../store/thread-list.store.ts';

/**
 * A change of labels on a message or a thread (core/labels.ts, docs/guides/receiving.md › Labels):
 * read the labels, apply the change, write them at the version read with the event
 * (`message.labeled`, `thread.labeled`); a change another client committed in between makes it
 * read and apply again, so concurrent changes all land. A change that changes nothing writes
 * nothing and answers the labels as they are (a retried change is answered alike).
 */
type LabelDeps = Pick<Deps, 'db' | 'clock' | 'newId'>;

/** How often a change reads and writes again when other changes keep committing first. */
const LABEL_WRITE_TRIES = 8;

interface Request {
  identityId: string;
  tenantId: string;
  key: { scopes: readonly string[] };
  change: LabelChange;
}

/** The message's labels after the change; 404 for a message this key may not see (held mail included). */
export async function changeMessageLabels(
  deps: LabelDeps,
  r: Request & { messageId: string },
): Promise<string[]> {
  checkLabelChange(r.change);
  const m = isId('message', r.messageId)
    ? await getMessage(deps.db, r.identityId, r.messageId, true)
    : undefined;
  if (!m || !maySee(r.key, m)) throw messageNotFound();
  // Held mail is labelled without an event: an event would announce it to readers who may not see it.
  const event = m.held ? undefined : { type: 'message.labeled', data: aboutMessage(m) };
  return change(deps, { identityId: r.identityId, id: m.id }, m.labels, r.change, m.tenant_id, event);
}

/** The thread's labels after the change; 404 for a thread the identity shows no message of. */
export async function changeThreadLabels(
  deps: LabelDeps,
  r: Request & { threadId: string },
): Promise<string[]> {
  checkLabelChange(r.change);
  const thread = isId('thread', r.threadId)
    ? await getThreadSummary(deps.db, r.identityId, r.threadId)
    : undefined;
  if (!thread) throw threadNotFound();
  const data = { identity_id: r.identityId, thread_id: thread.id };
  return change(deps, { identityId: r.identityId, id: thread.id }, [], r.change, r.tenantId, {
    type: 'thread.labeled',
    data,
  });
}

async function change(
  deps: LabelDeps,
  target: LabelTarget,
  initial: readonly string[],
  request: LabelChange,
  tenantId: string,
  event: { type: string; data: Record<string, unknown> } | undefined,
): Promise<string[]> {
  for (let attempt = 0; attempt < LABEL_WRITE_TRIES; attempt++) {
    const read = await getLabels(deps.db, target, true);
    const outcome = applyLabelChange(read?.labels ?? initial, request);
    if (!changesLabels(outcome)) return outcome.labels;
    const now = deps.clock();
    const written = await putLabels(deps.db, target, {
      read,
      labels: outcome.labels,
      now,
      event: event && {
        id: `evt_${deps.newId()}`,
        type: event.type,
        tenant_id: tenantId,
        created_at: now,
        data: { ...event.data, labels: outcome.labels, added: outcome.added, removed: outcome.removed },
      },
    }).catch((err) => {
      // Two transactions on the one item at once: DynamoDB refuses one whole; it reads again.
      if (
        isTransactionCanceled(err) &&
        err.CancellationReasons?.some((c) => c.Code === 'TransactionConflict')
      )
        return false;
      throw err;
    });
    if (written) return outcome.labels;
  }
  throw keptChanging('labels');
}
