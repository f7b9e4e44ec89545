import { sentBodyOf } from '../bodies/sent-body.ts';
import { alwaysNeedsApproval, approvalNeeded } from '../core/approval.ts';
import { composePlan, type Operation } from '../core/compose.ts';
import { PmailError } from '../core/errors.ts';
import { sendFingerprint, sendTarget, sha256Hex } from '../core/fingerprint.ts';
import { snippetOf } from '../core/inbound.ts';
import { MAX_SCHEDULE_MS } from '../core/limits.ts';
import { bodyOf, storesSentBody } from '../core/message-body.ts';
import { messageRecord, pendingApprovalEvent, suppressedEvent } from '../core/message-record.ts';
import { type ApiMessage, toApiMessage } from '../core/message-view.ts';
import type { Identity, MessageRecord, Tenant } from '../core/model.ts';
import { crossedThresholds, localDay, nextLocalMidnight, possibleLocalDays } from '../core/quota.ts';
import type { ParsedSend, SendCommand } from '../core/send-command.ts';
import { capsFor } from '../core/submit-pipeline.ts';
import { canonicalAddress } from '../core/suppressions.ts';
import type { Deps } from '../deps.ts';
import { errorFields } from '../log.ts';
import { indexMessage } from '../search/index-message.ts';
import { outboundKey } from '../store/blobs.ts';
import { countOutbound } from '../store/contacts.store.ts';
import type { Db } from '../store/db.ts';
import { appendEvent } from '../store/events.store.ts';
import { evaluate, type IdempotencyItem } from '../store/idempotency.store.ts';
import { putSentBody } from '../store/message-bodies.store.ts';
import { getMessage, putAcceptedMessage } from '../store/messages.store.ts';
import {
  type EarlyLease,
  leaseAhead,
  markWarned,
  rateRetryAfter,
  releaseSend,
  reserveSend,
  type SendCounters,
} from '../store/quota.store.ts';
import { tableSearchIndex } from '../store/search.store.ts';
import { type FirstRead, type FirstReadArgs, readFirst } from '../store/submit-read.store.ts';
import { noteThreadMessage } from '../store/thread-list.store.ts';
import { getThread, lockedByOther, takeThreadForSend } from '../store/threads.store.ts';
import { startExecution } from './dispatcher.ts';
import { abandonKey, completeKey, type KeyRef, releaseKey, reserveKey, storedAnswer } from './idempotency.ts';
import {
  composeMime,
  type LoadedSubmit,
  loadSubmit,
  type Prepared,
  type PreparePorts,
  prepareSubmit,
  referencesFor,
} from './prepare.ts';

/** The thread lock: wait 250 ms between tries, for at most 10 s. */
export const LOCK_RETRY_MS = 250;
export const LOCK_WAIT_MAX_MS = 10_000;

/** The ports a send takes (the pipeline's loads and the composition among them: send/prepare.ts). */
export type SubmitPorts = PreparePorts & Pick<Deps, 'dispatcher' | 'log'>;

/** The ports of the count and the writes. */
type WritePorts = Pick<Deps, 'db' | 'blobs' | 'clock' | 'log'>;

/** A submit operation as the handler hands it over: what the first read asks for, and the checks on it. */
export interface SubmitRequest {
  operation: Operation;
  /** reply, reply_all, forward: the message answered or forwarded. */
  targetMessageId?: string;
  requestId: string;
  /** The items the first read asks for beside the identity's counters (store/submit-read.store.ts). */
  read: Pick<FirstReadArgs, 'apiKeyHash' | 'identityId' | 'idempotencyKeyHash'>;
  /**
   * The caller's checks on what the first read found: authentication, the permission, the
   * identity's scope, and the request's own checks (the Idempotency-Key header, the body).
   */
  admit: (first: FirstRead) => Promise<AdmittedSend>;
}

/** What the caller's checks on the first read hand back. */
export interface AdmittedSend {
  /**
   * How to read the identity's tenant, given the pipeline's batched reads: read in one BatchGetItem
   * with the pipeline's first reads, beside the reservation (one round trip).
   */
  tenant: (db: Db) => Promise<Tenant>;
  identity: Identity;
  /** Checked by the caller: present unless this is a dry run. */
  idempotencyKey: string | undefined;
  /** The body, parsed and validated by the caller; `raw` is what the fingerprint hashes. */
  request: ParsedSend;
  dryRun?: boolean;
  /** The calling key is draft-only: every send through it waits for approval (core/approval.ts). */
  sendsNeedApproval?: boolean;
}

/** A send past its first read: the rate window was not full and the key was free. */
interface SubmitInput extends AdmittedSend {
  operation: Operation;
  targetMessageId?: string;
  requestId: string;
  /** The identity's day counts and lease by local day, as the first read found them. */
  counters: Record<string, { sends: number; lease: number }>;
}

/** The part of a send the first read can decide: the rate window, and a duplicate's stored answer. */
export interface FirstReadFacts {
  rateFull: boolean;
  idempotency?: IdempotencyItem;
}

/**
 * The rate window and the key's stored answer, on the first read alone: 429 rate_limited when
 * the identity's window is full (replays included: a replay counts against it too), the stored answer of a
 * duplicate (or 409 for a conflict or a request still running); undefined when the send goes on.
 */
function decideOnFirstRead(
  input: Pick<SubmitInput, 'operation' | 'targetMessageId' | 'idempotencyKey' | 'request' | 'dryRun'> & {
    identityId: string;
  },
  first: FirstReadFacts,
  now: number,
): SubmitResult | undefined {
  if (first.rateFull) throw rateLimited(rateRetryAfter(now));
  if (input.dryRun || input.idempotencyKey === undefined) return undefined;
  const fingerprint = sendFingerprint(
    input.operation,
    sendTarget(input.operation, input.identityId, input.targetMessageId),
    input.request.raw,
  );
  const seen = storedAnswer(evaluate(first.idempotency, fingerprint, now));
  return seen === undefined ? undefined : replayed(seen);
}

export type SubmitResult =
  | { type: 'accepted'; message: ApiMessage; deduplicated: boolean }
  | { type: 'dry_run'; result: DryRunResult };

export interface DryRunResult {
  would_send: true;
  recipients: { address: string; field: string; status: 'queued' | 'suppressed'; reason?: string }[];
}

/**
 * POST …/messages, …/reply, …/reply-all, …/forward (docs/architecture.md › One send, file by
 * file): the first read, the caller's checks on it (`admit`), and what the first read decides alone
 * (the rate window, a duplicate's stored answer); a new send goes on (`submitNew`).
 */
export async function submit(deps: SubmitPorts, req: SubmitRequest): Promise<SubmitResult> {
  const now = deps.clock();
  const first = await readFirst(deps.db, { ...req.read, days: possibleLocalDays(now), now });
  const admitted = await req.admit(first);
  const { operation, targetMessageId, requestId } = req;
  const input: SubmitInput = { ...admitted, operation, targetMessageId, requestId, counters: first.counters };
  const out =
    decideOnFirstRead({ ...input, identityId: input.identity.id }, first, now) ??
    (await submitNew(deps, input));
  return currentIfPending(deps, input.identity.id, out);
}

/**
 * A send the first read did not answer: reserve and load, then `write` (decide, compose, count,
 * thread, commit, complete) through a commit plan that owns every give-back, then dispatch
 * (`afterCommit`). A dry run decides and composes, and writes nothing.
 */
async function submitNew(deps: SubmitPorts, input: SubmitInput): Promise<SubmitResult> {
  const { identity, operation } = input;
  const { body } = input.request;
  const load = () =>
    loadSubmit(deps, {
      tenant: input.tenant,
      identity,
      operation,
      targetMessageId: input.targetMessageId,
      body,
    });

  if (input.dryRun) {
    return { type: 'dry_run', result: dryRunResult(await prepareSubmit(deps, await load(), deps.newId())) };
  }

  const ref = keyRefOf(input);

  // A scheduled send: in the future, at most 30 days ahead (checked after the replay: a stored
  // answer is replayed even once its send_at has passed).
  checkSendAt(body.send_at, deps.clock());

  // Reserve, beside the pipeline's first reads and the tenant's (one BatchGetItem): one round
  // trip. The reservation mints the message id (an earlier owner's, kept, when its lease passed);
  // its answer is decided on first, so a refusal comes in the same order as if read after.
  const owner = input.requestId;
  const [loaded, reservation] = await Promise.allSettled([
    load(),
    reserveKey(deps, { ...ref, operation, owner, messageId: `msg_${deps.newId()}` }),
  ]);
  if (reservation.status === 'rejected') throw reservation.reason;
  if (reservation.value.type === 'replay') return replayed(reservation.value.response);
  const key: HeldKey = {
    ...ref,
    owner,
    attempt: reservation.value.attempt,
    messageId: reservation.value.message_id!,
  };

  const plan = commitPlan(deps, key);
  const failed = async (err: unknown): Promise<never> => {
    await plan.compensate({ type: 'failed', err });
    throw err;
  };
  const out = await write(deps, input, loaded, key, plan).catch(failed);
  // What the writes took and this end does not keep goes back.
  await plan.compensate({ type: out.type });
  if (out.type === 'found') {
    // The message is the send: complete the key from it (its outbox event again, its dispatch).
    return replayed(await adoptWritten(deps, key, out.existing).catch(failed));
  }
  // Dispatch, the contacts' counts and the quota warnings: none can undo the accepted send.
  await afterCommit(deps, { identity, ...out });
  const mine = out.answer === out.response;
  return { type: 'accepted', message: JSON.parse(out.answer) as ApiMessage, deduplicated: !mine };
}

/** The key's reference: the identity, the key's hash, the fingerprint over the body as received. */
function keyRefOf(input: SubmitInput): KeyRef {
  const { identity, operation } = input;
  const target = sendTarget(operation, identity.id, input.targetMessageId);
  return {
    identityId: identity.id,
    keyHash: sha256Hex(input.idempotencyKey!),
    fingerprint: sendFingerprint(operation, target, input.request.raw),
  };
}

/** The Idempotency-Key this request holds: its reference, owner, attempt and the message id minted. */
type HeldKey = KeyRef & { owner: string; attempt: number; messageId: string };

/**
 * What the writes have taken so far that a failure gives back (docs/lost-answers.md), each set by
 * the write that takes it, each given back only by `compensate`.
 */
interface Taken {
  /** A block of the tenant's allowance leased ahead: goes back unless the count took it. */
  early?: EarlyLease;
  /** The day's counts: the rate window, and the daily caps when `daily`. */
  counts?: SendCounters & { daily: boolean };
  /** The objects this request wrote, named by no message until its put lands. */
  objects?: { messageId: string; keys: string[] };
  /** The message's put was sent: from then on it may exist. */
  putSent?: boolean;
  /** The message as written: the send is accepted whatever follows. */
  written?: MessageRecord;
}

/** How the writes ended: the message written (`stored`), an earlier owner's `found`, or a failure. */
type WriteEnd = { type: 'stored' } | { type: 'found' } | { type: 'failed'; err: unknown };

interface CommitPlan {
  taken: Taken;
  /** Gives back what the writes took and this end does not keep; each give-back once. */
  compensate(end: WriteEnd): Promise<void>;
}

/**
 * The give-backs of one send's writes, in one place:
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
function commitPlan(
  deps: Pick<Deps, 'db' | 'blobs' | 'dispatcher' | 'clock' | 'log'>,
  key: HeldKey,
): CommitPlan {
  const taken: Taken = {};
  const logged = (what: string, fields: Record<string, string>) => (e: unknown) =>
    deps.log.error(what, { ...fields, ...errorFields(e) });
  const identity_id = key.identityId;
  return {
    taken,
    async compensate(end) {
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
    },
  };
}

/**
 * The writes after the reservation: the block leased ahead, then, for a takeover, the message an
 * earlier owner may have written before it stopped; else the pipeline's decision and the
 * composition, and the count and the writes (`store`).
 */
async function write(
  deps: SubmitPorts,
  input: SubmitInput,
  loaded: PromiseSettledResult<LoadedSubmit>,
  key: HeldKey,
  plan: CommitPlan,
): Promise<Stored | Found> {
  const snapshot = loaded.status === 'fulfilled' ? loaded.value : await Promise.reject(loaded.reason);
  const { tenant } = snapshot;
  plan.taken.early = leaseEarly(deps, input, tenant);
  const found = key.attempt > 0 ? await getMessage(deps.db, key.identityId, key.messageId, true) : undefined;
  if (found) return { type: 'found', existing: found };
  const prepared = await prepareSubmit(deps, snapshot, key.messageId.slice('msg_'.length));
  return store(
    deps,
    {
      tenant,
      identity: input.identity,
      body: input.request.body,
      prepared,
      operation: input.operation,
      key,
      sendsNeedApproval: input.sendsNeedApproval === true,
    },
    plan,
  );
}

/**
 * The identity's lease was used up when the first read found it (`lease ≤ sends` on the tenant's
 * local day): lease the next block now that the tenant is read (its time zone and caps decide the
 * day and the block), beside the pipeline's decision and the composition, so the count that starts
 * a block is one write like any other (store/quota.store.ts `leaseAhead`).
 */
function leaseEarly(
  deps: Pick<Deps, 'db' | 'clock'>,
  input: SubmitInput,
  tenant: Tenant,
): EarlyLease | undefined {
  if (input.dryRun || alwaysNeedsApproval(input.identity, keyFlags(input))) return undefined;
  const now = deps.clock();
  const tz = tenant.timezone || 'UTC';
  const day = localDay(now, tz);
  const c = input.counters[day] ?? { sends: 0, lease: 0 };
  if (c.lease > c.sends) return undefined;
  return leaseAhead(deps.db, {
    tenantId: tenant.id,
    day,
    expiresAt: nextLocalMidnight(now, tz) + 48 * 3600_000,
    caps: capsFor(tenant, input.identity),
    seen: c.lease,
  });
}

/**
 * A request that took the key over found its message written (its earlier owner stopped between
 * the message and the key's completion, or won the put): re-put the message's own outbox event
 * (deterministic id: a no-op if it was written), complete the key from the message, start its named
 * execution if it is still queued and unclaimed (a second execution for it is refused at its
 * transport's claim write: one claim per message). The answer is what the key holds.
 */
async function adoptWritten(
  deps: Pick<Deps, 'db' | 'clock' | 'dispatcher' | 'log'>,
  held: KeyRef & { messageId: string },
  m: MessageRecord,
): Promise<string> {
  if (m.status === 'suppressed') await appendEvent(deps.db, suppressedEvent(m), deps.clock());
  if (m.status === 'pending_approval') await appendEvent(deps.db, pendingApprovalEvent(m), deps.clock());
  const answer = await completeKey(deps, held, JSON.stringify(toApiMessage(m)));
  if (m.status === 'queued' && !m.claim) await startDispatch(deps, m);
  return answer;
}

const keyFlags = (input: Pick<AdmittedSend, 'sendsNeedApproval'>) => ({
  sends_need_approval: input.sendsNeedApproval === true,
});

function checkSendAt(sendAt: string | undefined, now: number): void {
  if (sendAt === undefined) return;
  const at = Date.parse(sendAt);
  if (at > now && at <= now + MAX_SCHEDULE_MS) return;
  throw new PmailError('invalid_request', 'send_at must be in the future and at most 30 days ahead.', {
    details: { errors: [{ path: 'send_at', message: 'in the future, at most 30 days ahead' }] },
  });
}

export function rateLimited(retryAfter: number): PmailError {
  return new PmailError(
    'rate_limited',
    'Too many sends for this identity; wait and retry with the same key.',
    {
      retryAfter,
      details: { retry_after: retryAfter },
    },
  );
}

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

function replayed(response: string): SubmitResult {
  return { type: 'accepted', message: JSON.parse(response) as ApiMessage, deduplicated: true };
}

/**
 * Dry run: 200 with each recipient's fate, or 422 when a recipient is on the send-block
 * list (recipient_blocked) or nobody would receive it (all_recipients_suppressed).
 */
function dryRunResult(p: Prepared): DryRunResult {
  const recipients = p.recipients.map((r, i) => {
    const d = p.decisions[i];
    return d.status === 'queued'
      ? { address: r.address, field: r.field, status: 'queued' as const }
      : { address: r.address, field: r.field, status: 'suppressed' as const, reason: d.reason };
  });
  const blocked = recipients.filter((r) => r.reason === 'send_block');
  if (blocked.length > 0) {
    throw new PmailError('recipient_blocked', 'A recipient is on the send-block list.', {
      details: { recipients: blocked.map(({ address, field }) => ({ address, field })) },
    });
  }
  if (recipients.every((r) => r.status === 'suppressed')) {
    throw new PmailError(
      'all_recipients_suppressed',
      'Every recipient is suppressed; nothing would be sent.',
      {
        details: { recipients },
      },
    );
  }
  return { would_send: true, recipients };
}

interface StoreArgs {
  tenant: Tenant;
  identity: Identity;
  body: SendCommand;
  prepared: Prepared;
  operation: Operation;
  key: HeldKey;
  sendsNeedApproval: boolean;
}

/** The day's counts before and after a send's reservation (quota.warning). */
type QuotaCounts = {
  before: { tenant: number; identity: number };
  after: { tenant: number; identity: number };
};

/**
 * An accepted send as stored, the day's counts before it (for quota.warning), the answer this
 * request stored (`response`) and the one the key holds (`answer`: another's, if it completed first).
 */
interface Stored {
  type: 'stored';
  tenant: Tenant;
  message: MessageRecord;
  prepared: Prepared;
  counts?: QuotaCounts;
  response: string;
  answer: string;
}

/** The message an earlier owner of the key wrote: that is the send. */
interface Found {
  type: 'found';
  existing: MessageRecord;
}

/** How a send is written: when its thread was read, whether it is counted and on which day. */
interface StoreTerms {
  started: number;
  suppressedAll: boolean;
  quotaDay?: string;
  pending?: boolean;
}

/**
 * Count, then the writes (docs/architecture.md › The submit path). The count takes the rate window
 * and both daily caps, or nothing, as one reservation of the tenant's quota; a send waiting for a
 * person's approval counts nothing (approval takes the count, send/approval.ts, on the day it
 * approves). The counts taken are the plan's to give back.
 */
async function store(deps: WritePorts, args: StoreArgs, plan: CommitPlan): Promise<Stored | Found> {
  const { tenant, identity, prepared } = args;
  const started = deps.clock();
  const suppressedAll = prepared.decisions.every((d) => d.status === 'suppressed');
  const day = localDay(started, tenant.timezone || 'UTC');
  const queued = prepared.decisions.filter((d) => d.status === 'queued').map((d) => d.address);
  const approval = approvalNeeded(identity, keyFlags(args), queued, prepared.contacts);
  if (!suppressedAll && approval) {
    return storeCounted(deps, args, plan, { started, suppressedAll, pending: true });
  }
  const resetsAt = nextLocalMidnight(started, tenant.timezone || 'UTC');
  // The rate window and the daily caps (identity, tenant) in the tenant's time zone.
  const counters = {
    tenantId: tenant.id,
    identityId: identity.id,
    day,
    now: started,
    expiresAt: resetsAt + 48 * 3600_000,
  };
  const reserved = await reserveSend(deps.db, {
    ...counters,
    ...(suppressedAll ? {} : { caps: prepared.caps, early: plan.taken.early }),
  });
  if (!reserved.ok) {
    if (reserved.refused === 'rate') throw rateLimited(rateRetryAfter(started));
    throw capReached(reserved.refused, prepared.caps, resetsAt, started);
  }
  plan.taken.counts = { ...counters, daily: !suppressedAll };
  return storeCounted(
    deps,
    args,
    plan,
    // The day counted is stored on the message: cancel gives the count back to exactly that day.
    { started, suppressedAll, quotaDay: suppressedAll ? undefined : day },
    suppressedAll ? undefined : { before: reserved.before, after: reserved.after },
  );
}

/**
 * Thread, then commit: the thread's lock and chain (a lost race, the lock taken or the chain moved,
 * is retried after the holder), then the objects and the message (`commit`).
 */
async function storeCounted(
  deps: WritePorts,
  args: StoreArgs,
  plan: CommitPlan,
  t: StoreTerms,
  counts?: QuotaCounts,
): Promise<Stored | Found> {
  let prepared = args.prepared;
  for (let attempt = 0; ; attempt++) {
    const now = deps.clock();
    if (prepared.threaded) {
      const followed = await followThread(deps, args.identity, prepared, t.started, attempt, now);
      if (!followed) continue;
      prepared = followed;
    }
    const message = messageRecord({
      tenantId: args.tenant.id,
      identityId: args.identity.id,
      operation: args.operation,
      body: args.body,
      send: prepared,
      attempt: args.key.attempt,
      rawKey: outboundKey(args.tenant.id, args.identity.id, prepared.messageId, args.key.attempt),
      now,
      quotaDay: t.quotaDay,
      pending: t.pending === true,
    });
    // The thread's lock and chain, before the message: a message is never queued in a thread
    // without the lock.
    if (prepared.threaded && !(await lockThread(deps, prepared, message, now, t))) continue;
    return commit(deps, args, plan, { prepared, message, t, counts });
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
      const retryAfter = Math.min(60, Math.max(1, Math.ceil(((thread!.lock_until ?? now) - now) / 1000)));
      throw new PmailError('thread_busy', 'Another message of this thread is being sent.', {
        retryAfter,
        details: { retry_after: retryAfter },
      });
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
  t: StoreTerms,
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
    lock: !t.suppressedAll && !prepared.undispatched && !t.pending,
  });
}

/**
 * Commit: the objects first, so the message never points to a missing object (each request of the
 * key writes its own MIME object, `raw_n`, so the message's writer's is the one); then the message
 * under the id the reservation minted, the commit point; then its event and the key's completion.
 */
async function commit(
  deps: WritePorts,
  args: StoreArgs,
  plan: CommitPlan,
  w: { prepared: Prepared; message: MessageRecord; t: StoreTerms; counts?: QuotaCounts },
): Promise<Stored | Found> {
  const { prepared, message, t } = w;
  plan.taken.objects = {
    messageId: message.id,
    keys: [message.raw_key, ...prepared.links.map((l) => l.key)],
  };
  for (const l of prepared.links) await deps.blobs.put(l.key, l.bytes, l.metadata, l.contentType);
  await deps.blobs.put(message.raw_key, prepared.mime, {
    tenant: args.tenant.id,
    identity: args.identity.id,
    message: message.id,
    idem_key_sha256: args.key.keyHash,
    fingerprint: args.key.fingerprint,
    operation: args.operation,
  });
  plan.taken.putSent = true;
  // The message's place in the identity's feed is taken here, at the commit, after any wait for
  // the thread's lock (docs/design/ordering.md).
  const put = await putAcceptedMessage(deps.db, message, deps.clock());
  // An earlier owner of the key wrote it: that is the send.
  if (!put.written) return { type: 'found', existing: put.existing };
  plan.taken.written = message;
  if (t.suppressedAll) await appendEvent(deps.db, suppressedEvent(message), deps.clock());
  if (t.pending) await appendEvent(deps.db, pendingApprovalEvent(message), deps.clock());
  const response = JSON.stringify(toApiMessage(message));
  const answer = await completeWritten(deps, args.key, response, message, prepared);
  return { type: 'stored', tenant: args.tenant, message, prepared, counts: w.counts, response, answer };
}

/**
 * After the message's put, in one round trip: the key's completion, the thread list's summary and
 * the sent body's item (docs/design/cost.md › Sent bodies). The summary and the body are
 * unconditional and idempotent (store/thread-list.store.ts, store/message-bodies.store.ts); a
 * failure of either is logged and never undoes the send (a body never written is read back from
 * the MIME).
 */
async function completeWritten(
  deps: WritePorts,
  key: HeldKey,
  response: string,
  message: MessageRecord,
  prepared: Prepared,
): Promise<string> {
  const logged = (what: string) => (e: unknown) =>
    deps.log.error(`${what} failed`, { message_id: message.id, ...errorFields(e) });
  const [answer] = await Promise.all([
    completeKey(deps, key, response),
    noteThreadMessage(deps.db, message, {
      now: deps.clock(),
      // A transactional template's text (a sign-in link, a code) is not kept in the thread's summary either.
      snippet: storesSentBody(message) ? snippetOf(prepared.compose.text) : '',
    }).catch(logged('thread summary')),
    storesSentBody(message) ? storeSentBody(deps, message, prepared).catch(logged('sent body')) : undefined,
  ]);
  return answer;
}

/** The sent body as the composition sent it (core/compose.ts › composePlan), stored once. */
async function storeSentBody(deps: WritePorts, message: MessageRecord, prepared: Prepared): Promise<void> {
  const plan = composePlan({
    ...prepared.compose,
    inReplyTo: prepared.inReplyTo,
    references: prepared.references,
  });
  const body = await sentBodyOf(plan);
  // Its search document beside it (functions/search/index-message.ts), with the same resends.
  await Promise.all([
    putSentBody(deps.db, message.identity_id, message.id, body),
    indexMessage(tableSearchIndex(deps.db), message, bodyOf(message, body)),
  ]);
}

export function capReached(
  scope: 'identity' | 'tenant',
  caps: Prepared['caps'],
  resetsAt: number,
  now: number,
): PmailError {
  return new PmailError('daily_cap_reached', `The ${scope}'s daily send cap is reached.`, {
    retryAfter: Math.max(1, Math.ceil((resetsAt - now) / 1000)),
    details: {
      cap: scope,
      limit: scope === 'identity' ? caps.identity : caps.tenant,
      resets_at: new Date(resetsAt).toISOString(),
    },
  });
}

/** Start the execution the message names; a failure leaves it to the sweeper. */
async function startDispatch(deps: Pick<Deps, 'dispatcher' | 'log'>, message: MessageRecord): Promise<void> {
  try {
    await startExecution(deps.dispatcher, message);
  } catch (err) {
    deps.log.error('dispatch failed; the sweeper will retry', {
      message_id: message.id,
      ...errorFields(err),
    });
  }
}

type AfterCommitArgs = {
  tenant: Tenant;
  identity: Identity;
  message: MessageRecord;
  prepared: Prepared;
  counts?: QuotaCounts;
};

/**
 * After commit: start the execution the message names (if that fails the message stays queued and
 * the sweeper dispatches it), count the contacts, emit quota warnings once per
 * scope, threshold and day. None of these can undo the accepted send.
 */
async function afterCommit(
  deps: Pick<Deps, 'db' | 'clock' | 'dispatcher' | 'log' | 'newId'>,
  args: AfterCommitArgs,
): Promise<void> {
  const { identity, message, prepared } = args;
  if (message.status === 'queued') await startDispatch(deps, message);
  // A send waiting for approval makes no contact: its approval counts them (send/approval.ts).
  if (message.status === 'pending_approval') return;
  // A contact is written when it changes: a recipient already known (outbound_count > 0, read by
  // the pipeline) is not written again; only whether one was ever sent to is read. An
  // unconditional count (docs/lost-answers.md): never sent twice; a lost answer is logged, and the
  // next send to an address whose count it did not reach finds it at zero and writes it then.
  const queued = (message.deliveries ?? [])
    .filter((d) => d.status === 'queued')
    .map((d) => d.address)
    .filter((a) => (prepared.contacts.get(canonicalAddress(a))?.outbound_count ?? 0) <= 0);
  const side: Promise<unknown>[] = [
    ...countOutbound(deps.db, identity.id, queued, message.created_at),
    ...(args.counts ? quotaWarnings(deps, args, args.counts) : []),
  ];
  const results = await Promise.allSettled(side);
  for (const r of results) {
    if (r.status === 'rejected')
      deps.log.error('after-commit step failed', { message_id: message.id, ...errorFields(r.reason) });
  }
}

/** A `quota.warning` for each threshold this send's count crossed, once per scope, threshold and day. */
function quotaWarnings(
  deps: Pick<Deps, 'db' | 'clock' | 'newId'>,
  args: AfterCommitArgs,
  counts: QuotaCounts,
): Promise<unknown>[] {
  const { tenant, identity, message, prepared } = args;
  const { before, after } = counts;
  const day = localDay(message.created_at, tenant.timezone || 'UTC');
  const expiresAt = nextLocalMidnight(message.created_at, tenant.timezone || 'UTC') + 48 * 3600_000;
  const scopes = [
    {
      scope: `identity:${identity.id}`,
      from: before.identity,
      to: after.identity,
      cap: prepared.caps.identity,
    },
    // The tenant's warnings follow its allowance leased to identities (it moves by blocks).
    { scope: 'tenant', from: before.tenant, to: after.tenant, cap: prepared.caps.tenant },
  ];
  return scopes.flatMap(({ scope, from, to, cap }) =>
    crossedThresholds(from, to, cap).map((threshold) =>
      markWarned(deps.db, { tenantId: tenant.id, day, scope, threshold, expiresAt }).then((first) =>
        first
          ? appendEvent(
              deps.db,
              {
                id: `evt_${deps.newId()}`,
                type: 'quota.warning',
                tenant_id: tenant.id,
                created_at: message.created_at,
                data: {
                  scope: scope.split(':')[0],
                  identity_id: scope.startsWith('identity') ? identity.id : null,
                  metric: 'sends',
                  threshold,
                  cap,
                  day,
                },
              },
              deps.clock(),
            )
          : false,
      ),
    ),
  );
}
