import { NotCancelableError } from '../core/errors.ts';
import { answeredAfter, REPLY_RECEIVED } from '../core/unless-reply.ts';
import type { Deps } from '../deps.ts';
import { getTenant } from '../store/directory.store.ts';
import { type ClaimWrite, claimSending } from '../store/messages.store.ts';
import { getReplyPositions, noNewReplies } from '../store/thread-replies.store.ts';
import { cancelSend } from './actions.ts';

/** What the transport task's claim needs to know of a follow-up that waits for no answer (core/unless-reply.ts › unlessReplyCheck). */
export interface UnlessReplyCheck {
  thread_id: string;
  /** The follow-up's own number in its identity's feed: an answer numbered above it came after it. */
  after: number;
}

/** How often the thread may change under the claim before the task gives up (its retry decides again). */
const GUARD_ROUNDS = 5;

/**
 * The claim of a message, decided with its thread's answers when it waits for none
 * (docs/guides/sending.md › A follow-up unless they reply). The thread's answers are read
 * (consistently); an answer after the follow-up cancels it (`reply_received`, by `system`), else the
 * claim is written in one transaction with a guard that the thread has had no answer since that read
 * (store/messages.store.ts › claimSending). A guard that fails (an answer landed in between) reads
 * and decides again. So an answer landing at the last moment either cancels the follow-up or finds
 * it claimed, and then sent: never both. Answers only ever add, so the cancel decided on one read
 * stays right whatever comes after it.
 */
export async function claimUnlessAnswered(
  deps: Pick<Deps, 'db' | 'clock' | 'newId' | 'log'>,
  m: { tenant_id: string; identity_id: string; message_id: string },
  claim: { token: string; by: string; at: number },
  check: UnlessReplyCheck | undefined,
): Promise<ClaimWrite | { written: false; answered: true }> {
  if (!check) return claimSending(deps.db, m.identity_id, m.message_id, claim);
  for (let round = 1; ; round++) {
    const answers = await getReplyPositions(deps.db, m.identity_id, check.thread_id);
    if (answeredAfter(check.after, answers)) return cancelAnswered(deps, m);
    const guard = noNewReplies(deps.db, m.identity_id, check.thread_id, answers.length);
    const out = await claimSending(deps.db, m.identity_id, m.message_id, claim, guard);
    if (out.written || !out.guarded) return out;
    if (round >= GUARD_ROUNDS) throw new Error(`the thread of ${m.message_id} kept changing under its claim`);
  }
}

/** The follow-up was answered: canceled with reason `reply_received`, unless another decision came first. */
async function cancelAnswered(
  deps: Pick<Deps, 'db' | 'clock' | 'newId' | 'log'>,
  m: { tenant_id: string; identity_id: string; message_id: string },
): Promise<ClaimWrite | { written: false; answered: true }> {
  const tenant = await getTenant(deps.db, m.tenant_id);
  if (!tenant) return { written: false };
  try {
    await cancelSend(deps, {
      tenant,
      identityId: m.identity_id,
      messageId: m.message_id,
      actor: 'system',
      reason: REPLY_RECEIVED,
    });
    deps.log.info('a follow-up was answered before its time: canceled', { message_id: m.message_id });
    return { written: false, answered: true };
  } catch (err) {
    // Another decision came first (a cancel, a claim): that one stands.
    if (err instanceof NotCancelableError) return { written: false };
    throw err;
  }
}
