import { PmailError } from '../../core/errors.ts';
import type { MessageRecord } from '../../core/model.ts';
import type { Deps } from '../../deps.ts';
import { errorFields } from '../../log.ts';
import { type EarlyLease, releaseSend } from '../../store/quota.store.ts';
import { abandonKey, releaseKey } from '../idempotency.ts';
import { startDispatch } from './after-commit.ts';
import type { SendObjects } from './commit.ts';
import type { Counted } from './count.ts';
import type { HeldKey } from './reserve.ts';

/**
 * What the writes have taken so far that a failure gives back (docs/lost-answers.md), each set by
 * the use case as its phase returns (send/submit.ts), each given back only by `giveBack`.
 */
export interface Taken {
  /** A block of the tenant's allowance leased ahead: goes back unless the count took it. */
  early?: EarlyLease;
  /** The day's counts: the rate window, and the daily caps when `daily`. */
  counts?: Counted['counters'];
  /** The objects this request wrote, named by no message until its put lands. */
  objects?: SendObjects;
  /** The message's put was sent: from then on it may exist. */
  putSent?: boolean;
  /** The message as written: the send is accepted whatever follows. */
  written?: MessageRecord;
}

/** How the writes ended: the message written (`stored`), an earlier owner's `found`, or a failure. */
export type WriteEnd = { type: 'stored' } | { type: 'found' } | { type: 'failed'; err: unknown };

/**
 * The give-backs of one send's writes, in one place; each once:
 * - a found message (an earlier owner of the key wrote it): this request's objects go (no message
 *   names them), and its counts go back (the earlier owner counted the send);
 * - a failure: the counts go back only when the send was certainly not stored (a refusal); after an
 *   error whose outcome is unknown (a timeout, a 5xx) the message may have been written, and
 *   keeping the count errs towards refusing one send too many, never towards passing a cap;
 * - always: a block leased ahead and not granted goes back;
 * - a failure: the key goes back. Deleted only when its message certainly is not written and
 *   cannot be: this request minted the id (attempt 0) and never sent the message's put. Else the
 *   key keeps its message id and its lease ends, so a retry takes over and finds the message. A
 *   message written before the failure (a later step failed) starts its execution all the same.
 */
export async function giveBack(
  deps: Pick<Deps, 'db' | 'blobs' | 'dispatcher' | 'clock' | 'log'>,
  key: HeldKey,
  taken: Taken,
  end: WriteEnd,
): Promise<void> {
  const logged = (what: string, fields: Record<string, string>) => (e: unknown) =>
    deps.log.error(what, { ...fields, ...errorFields(e) });
  const identity_id = key.identityId;
  const { counts, early, objects } = taken;
  taken.counts = taken.early = taken.objects = undefined;
  if (end.type === 'found' && objects) {
    await Promise.all(objects.keys.map((k) => deps.blobs.delete(k))).catch(
      logged('blob clean-up failed', { message_id: objects.messageId }),
    );
  }
  if (counts && (end.type === 'found' || (end.type === 'failed' && end.err instanceof PmailError))) {
    await releaseSend(deps.db, counts).catch(logged('send count release failed', { identity_id }));
  }
  await early?.release().catch(logged('lease release failed', { identity_id }));
  if (end.type !== 'failed') return;
  const mayExist = key.attempt > 0 || taken.putSent === true;
  await (mayExist ? abandonKey(deps, key, key.owner) : releaseKey(deps, key, key.owner));
  if (taken.written?.status === 'queued') await startDispatch(deps, taken.written);
}
