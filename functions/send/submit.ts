import { toApiMessage } from '../core/message-view.ts';
import type { Deps } from '../deps.ts';
import { getMessage } from '../store/messages.store.ts';
import type { LoadedSubmit } from './prepare.ts';
import { afterCommit } from './submit/after-commit.ts';
import { commit, objectsOf, putObjects } from './submit/commit.ts';
import { adoptWritten, complete } from './submit/complete.ts';
import { count, leaseEarly } from './submit/count.ts';
import { answerFromFirstRead, checkSendAt, decide, dryRun } from './submit/decide.ts';
import { giveBack, type Taken } from './submit/give-back.ts';
import { replayed, type SubmitInput, type SubmitPorts, type SubmitResult } from './submit/input.ts';
import { lock } from './submit/lock.ts';
import { earlierWrite, type Reservation, reserve } from './submit/reserve.ts';

export type { AdmittedSend, DryRunResult, SubmitInput, SubmitPorts, SubmitResult } from './submit/input.ts';
export { LOCK_RETRY_MS, LOCK_WAIT_MAX_MS } from './submit/lock.ts';
export { readSubmit } from './submit/read.ts';

/**
 * POST …/messages, …/reply, …/reply-all, …/forward (docs/architecture.md › One send, file by
 * file), after the route's first read and its checks on it: what the first read decides alone (the
 * rate window, a duplicate's stored answer), else a new send (`submitNew`).
 */
export async function submit(deps: SubmitPorts, input: SubmitInput): Promise<SubmitResult> {
  const out = answerFromFirstRead(input) ?? (await submitNew(deps, input));
  return currentIfPending(deps, input.identity.id, out);
}

/**
 * A send the first read did not answer: reserve, then the writes (`write`), then what the end of
 * the writes gives back (`giveBack`: one record, `Taken`), then what follows the commit. A dry run
 * decides and composes, and writes nothing.
 */
async function submitNew(deps: SubmitPorts, input: SubmitInput): Promise<SubmitResult> {
  if (input.dryRun) return dryRun(deps, input);
  checkSendAt(input.request.body.send_at, deps.clock());
  const reservation = await reserve(deps, input);
  if (reservation.type === 'replay') return replayed(reservation.response);
  const { key } = reservation;
  const taken: Taken = {};
  const failed = async (err: unknown): Promise<never> => {
    await giveBack(deps, key, taken, { type: 'failed', err });
    throw err;
  };
  const out = await write(deps, input, reservation, taken).catch(failed);
  await giveBack(deps, key, taken, { type: out.type });
  // The message an earlier owner of the key wrote is the send: complete the key from it.
  if (out.type === 'found') return replayed(await adoptWritten(deps, key, out.existing).catch(failed));
  await afterCommit(deps, out);
  return { type: 'accepted', message: JSON.parse(out.answer), deduplicated: out.answer !== out.response };
}

/**
 * The writes after the reservation, in order (docs/architecture.md › The submit path), each
 * phase's take recorded in `taken` as it returns: the block leased ahead; for a takeover, the
 * message an earlier owner may have written; decide; count; lock the thread; the objects and the
 * commit; complete the key.
 */
async function write(
  deps: SubmitPorts,
  input: SubmitInput,
  { key, loaded }: Extract<Reservation, { type: 'held' }>,
  taken: Taken,
) {
  const snapshot = await settled(loaded);
  taken.early = leaseEarly(deps, input, snapshot.tenant);
  const earlier = await earlierWrite(deps, key);
  if (earlier) return { type: 'found' as const, existing: earlier };
  const decided = await decide(deps, input, snapshot, key);
  const counted = await count(deps, decided, taken.early);
  taken.counts = counted?.counters;
  const locked = await lock(deps, decided, counted);
  taken.objects = objectsOf(locked);
  const body = await putObjects(deps, decided, locked);
  taken.putSent = true;
  const put = await commit(deps, locked.message);
  if (!put.written) return { type: 'found' as const, existing: put.existing };
  taken.written = locked.message;
  const completed = await complete(deps, key, locked, body);
  return { type: 'stored' as const, ...decided, ...locked, quota: counted?.quota, ...completed };
}

const settled = (loaded: PromiseSettledResult<LoadedSubmit>): Promise<LoadedSubmit> =>
  loaded.status === 'fulfilled' ? Promise.resolve(loaded.value) : Promise.reject(loaded.reason);

/**
 * A replay whose stored answer is a send still waiting for approval answers the message as it is
 * now (docs/guides/sending.md › Approval before a send): pending, then approved and on its way,
 * rejected or refused. Every other replay answers the key's first answer.
 */
async function currentIfPending(
  deps: Pick<Deps, 'db'>,
  identityId: string,
  out: SubmitResult,
): Promise<SubmitResult> {
  if (out.type !== 'accepted' || !out.deduplicated || out.message.status !== 'pending_approval') return out;
  const now = await getMessage(deps.db, identityId, out.message.id, true);
  return now ? { ...out, message: toApiMessage(now) } : out;
}
