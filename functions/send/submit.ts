import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { PmailError } from '../core/errors.ts';
import { sendFingerprint, sendTarget, sha256Hex } from '../core/fingerprint.ts';
import { MAX_SCHEDULE_MS } from '../core/limits.ts';
import { type ApiMessage, toApiMessage } from '../core/message-view.ts';
import type { Identity, MessageRecord, Tenant } from '../core/model.ts';
import { crossedThresholds, localDay, nextLocalMidnight } from '../core/quota.ts';
import type { ParsedSend, SendCommand } from '../core/send-command.ts';
import { canonicalAddress } from '../core/suppressions.ts';
import type { Deps } from '../deps.ts';
import { errorFields } from '../log.ts';
import { outboundKey } from '../store/blobs.ts';
import { contactCountUpdates } from '../store/contacts.store.ts';
import { failedConditions, isTransactionCanceled } from '../store/db.ts';
import { appendEvent, eventPutItem } from '../store/events.store.ts';
import { completeIdempotencyUpdate, evaluate, type IdempotencyItem } from '../store/idempotency.store.ts';
import { CommitLost, commitAccepted } from '../store/messages.store.ts';
import { markWarned, peekSendRate, rateRetryAfter, releaseSend, reserveSend } from '../store/quota.store.ts';
import { getThread, lockedByOther, threadSendItem } from '../store/threads.store.ts';
import { executionName } from './dispatcher.ts';
import { lookupKey, releaseKey, reserveKey, storedAnswer } from './idempotency.ts';
import { composeMime, type Operation, type Prepared, prepareSubmit, referencesFor } from './prepare.ts';

/** seed 000 › Thread lock: wait 250 ms between tries, for at most 10 s. */
export const LOCK_RETRY_MS = 250;
export const LOCK_WAIT_MAX_MS = 10_000;

export interface SubmitInput {
  /** The tenant, or how to read it (then read beside the reservation, in one round trip). */
  tenant: Tenant | (() => Promise<Tenant>);
  identity: Identity;
  operation: Operation;
  /** reply, reply_all, forward: the message answered or forwarded. */
  targetMessageId?: string;
  /** Checked by the handler (seed 000 › Handler step 3): present unless this is a dry run. */
  idempotencyKey: string | undefined;
  /** The body, parsed and validated by the handler (step 4); `raw` is what the fingerprint hashes. */
  request: ParsedSend;
  requestId: string;
  dryRun?: boolean;
  /**
   * What the handler's first read found (functions/store/submit-read.store.ts), already decided on
   * by `decideOnFirstRead`: the rate window was not full and the key was free, so neither is read
   * again.
   */
  firstRead?: boolean;
}

/** The part of a send the first read can decide: the rate window, and a duplicate's stored answer. */
export interface FirstReadFacts {
  rateFull: boolean;
  idempotency?: IdempotencyItem;
}

/**
 * seed 000 › Handler step 2 and reservation step 1 on the first read alone: 429 rate_limited when
 * the identity's window is full (replays included, as the seed orders it), the stored answer of a
 * duplicate (or 409 for a conflict or a request still running); undefined when the send goes on.
 */
export function decideOnFirstRead(
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
 * POST …/messages, …/reply, …/reply-all, …/forward: seed 000 › Handler steps 2–8 with the
 * reservation protocol of DESIGN § 5.1 and the policy pipeline of DESIGN § 8. Authentication and the
 * identity's scope (step 1) are the caller's. A dry run runs steps 1–17 and writes nothing.
 */
export async function submit(deps: Deps, input: SubmitInput): Promise<SubmitResult> {
  const { identity, operation } = input;
  const given = input.tenant;
  let known: Tenant | undefined = typeof given === 'function' ? undefined : given;
  const loadTenant = async () => {
    known ??= await (given as () => Promise<Tenant>)();
    return known;
  };

  // 2. Rate limit — a read here (or in the first read); counted with the daily caps (step 18) only
  // for a new send.
  if (!input.firstRead) {
    const peekedAt = deps.clock();
    const peek = await peekSendRate(deps.db, {
      identityId: identity.id,
      day: localDay(peekedAt, (await loadTenant()).timezone || 'UTC'),
      now: peekedAt,
    });
    if (peek.full) throw rateLimited(rateRetryAfter(peekedAt));
  }

  // 3–4 (the Idempotency-Key header and the body) were checked by the handler.
  const key = input.idempotencyKey;
  const { raw, body } = input.request;

  // Steps 1 (the rest), 5–17: the policy pipeline and the composition, nothing written.
  const prepare = async () =>
    prepareSubmit(deps, {
      tenant: await loadTenant(),
      identity,
      operation,
      targetMessageId: input.targetMessageId,
      body,
      ulid: deps.newId(),
    });

  if (input.dryRun) return { type: 'dry_run', result: dryRunResult(await prepare()) };

  // 5. Fingerprint over the body as received.
  const fingerprint = sendFingerprint(
    operation,
    sendTarget(operation, identity.id, input.targetMessageId),
    raw,
  );
  const keyHash = sha256Hex(key!);

  // Reservation step 1: the stored answer wins over everything that follows.
  const ref = { identityId: identity.id, keyHash, fingerprint };
  if (!input.firstRead) {
    const seen = await lookupKey(deps, ref);
    if (seen !== undefined) return replayed(seen);
  }

  // A scheduled send: in the future, at most 30 days ahead (checked after the replay: a stored
  // answer is replayed even once its send_at has passed).
  checkSendAt(body.send_at, deps.clock());

  // Reservation step 2, with the tenant's read when the handler left it to us (one round trip).
  const owner = input.requestId;
  const [loaded, reservation] = await Promise.allSettled([
    loadTenant(),
    reserveKey(deps, { ...ref, operation, owner }),
  ]);
  if (reservation.status === 'rejected') throw reservation.reason;
  if (reservation.value !== undefined) return replayed(reservation.value);
  if (loaded.status === 'rejected') {
    await releaseKey(deps, ref, owner);
    throw loaded.reason;
  }
  const tenant = loaded.value;

  let stored: {
    message: MessageRecord;
    prepared: Prepared;
    countsBefore?: { tenant: number; identity: number };
  };
  try {
    const prepared = await prepare();
    stored = await store(deps, { tenant, identity, body, prepared, keyHash, fingerprint, owner, operation });
  } catch (err) {
    // Step 5: only accepted sends are recorded; give the key back so a retry re-evaluates.
    await releaseKey(deps, ref, owner);
    if (err instanceof CommitLost) {
      const after = await lookupKey(deps, ref);
      if (after !== undefined) return replayed(after);
      throw new PmailError('request_in_progress', 'Another request with this Idempotency-Key is running.');
    }
    throw err;
  }

  await afterCommit(deps, { tenant, identity, ...stored });
  return { type: 'accepted', message: toApiMessage(stored.message), deduplicated: false };
}

function checkSendAt(sendAt: string | undefined, now: number): void {
  if (sendAt === undefined) return;
  const at = Date.parse(sendAt);
  if (at > now && at <= now + MAX_SCHEDULE_MS) return;
  throw new PmailError('invalid_request', 'send_at must be in the future and at most 30 days ahead.', {
    details: { errors: [{ path: 'send_at', message: 'in the future, at most 30 days ahead' }] },
  });
}

function rateLimited(retryAfter: number): PmailError {
  return new PmailError(
    'rate_limited',
    'Too many sends for this identity; wait and retry with the same key.',
    {
      retryAfter,
      details: { retry_after: retryAfter },
    },
  );
}

function replayed(response: string): SubmitResult {
  return { type: 'accepted', message: JSON.parse(response) as ApiMessage, deduplicated: true };
}

/**
 * seed 000 › Dry run: 200 with each recipient's fate, or 422 when a recipient is on the send-block
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
  keyHash: string;
  fingerprint: string;
  owner: string;
  operation: Operation;
}

/** An accepted send as stored, and the day's counts before it (for quota.warning). */
interface Stored {
  message: MessageRecord;
  prepared: Prepared;
  countsBefore?: { tenant: number; identity: number };
}

/**
 * Steps 18–19 and the storage transaction (seed 000 › Storage of an accepted send). Step 18 counts
 * the send first — rate window and both daily caps, or nothing — as the seed's TenantQuota Reserve
 * does; then the transaction writes the message, the completed idempotency item, the thread's lock
 * and chain, and for a fully suppressed send its event, all or nothing. A held thread lock is
 * waited for (250 ms steps, at most 10 s) and the message recomposed against the chain the holder
 * left. A send refused after step 18 gives its counts back (Release).
 */
async function store(deps: Deps, args: StoreArgs): Promise<Stored> {
  const { tenant, identity } = args;
  const prepared = args.prepared;
  const started = deps.clock();
  const suppressedAll = prepared.decisions.every((d) => d.status === 'suppressed');
  const day = localDay(started, tenant.timezone || 'UTC');
  const resetsAt = nextLocalMidnight(started, tenant.timezone || 'UTC');

  // 18: the rate window and the daily caps (identity, tenant) in the tenant's time zone.
  const counters = {
    tenantId: tenant.id,
    identityId: identity.id,
    day,
    now: started,
    expiresAt: resetsAt + 48 * 3600_000,
  };
  const reserved = await reserveSend(deps.db, {
    ...counters,
    ...(suppressedAll ? {} : { caps: prepared.caps }),
  });
  if (!reserved.ok) {
    if (reserved.refused === 'rate') throw rateLimited(rateRetryAfter(started));
    throw capReached(reserved.refused, prepared.caps, resetsAt, started);
  }
  try {
    return await storeReserved(
      deps,
      { ...args, prepared },
      // The day counted is stored on the message: cancel gives the count back to exactly that day.
      { started, suppressedAll, quotaDay: suppressedAll ? undefined : day },
      suppressedAll ? undefined : reserved.before,
    );
  } catch (err) {
    // Only a send that was certainly not stored gives its counts back. After an error whose outcome
    // is unknown (a timeout, a 5xx), the commit may have happened: keeping the count errs towards
    // refusing one send too many, never towards passing a cap.
    const refused = err instanceof PmailError || err instanceof CommitLost || isTransactionCanceled(err);
    if (refused) {
      await releaseSend(deps.db, { ...counters, daily: !suppressedAll }).catch((e) =>
        deps.log.error('send count release failed', { identity_id: identity.id, ...errorFields(e) }),
      );
    }
    throw err;
  }
}

async function storeReserved(
  deps: Deps,
  args: StoreArgs,
  t: { started: number; suppressedAll: boolean; quotaDay?: string },
  countsBefore?: { tenant: number; identity: number },
): Promise<Stored> {
  const { tenant, identity } = args;
  const { started, suppressedAll } = t;
  let prepared = args.prepared;
  for (let attempt = 0; ; attempt++) {
    const now = deps.clock();

    // 19: the thread lock.
    if (prepared.threaded) {
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
        continue;
      }
      if ((thread?.seq ?? 0) !== (prepared.thread?.seq ?? 0)) {
        // Someone sent on this thread since we composed: follow their message in References.
        const references = referencesFor(thread, prepared.target);
        const inReplyTo = prepared.target?.rfc_message_id ?? references.at(-1);
        prepared = {
          ...prepared,
          thread,
          references: references.length ? references : undefined,
          inReplyTo,
          mime: await composeMime(prepared.compose, inReplyTo, references),
        };
      }
    }

    const message = buildMessage(deps, args, prepared, now, suppressedAll, t.quotaDay);
    // seed 000 › Composition: objects first, so the row never points to a missing object.
    for (const l of prepared.links) await deps.blobs.put(l.key, l.bytes, l.metadata, l.contentType);
    await deps.blobs.put(message.raw_key, prepared.mime, {
      tenant: tenant.id,
      identity: identity.id,
      message: message.id,
      idem_key_sha256: args.keyHash,
      fingerprint: args.fingerprint,
      operation: args.operation,
    });

    const items: { kind: 'thread' | 'other'; item: unknown }[] = [
      {
        kind: 'other',
        item: completeIdempotencyUpdate(deps.db, {
          identityId: identity.id,
          keyHash: args.keyHash,
          owner: args.owner,
          messageId: message.id,
          response: JSON.stringify(toApiMessage(message)),
          now,
        }),
      },
    ];
    if (prepared.threaded) {
      items.push({
        kind: 'thread',
        item: threadSendItem(deps.db, {
          identityId: identity.id,
          threadId: prepared.threadId,
          messageId: message.id,
          now,
          seenSeq: prepared.thread?.seq ?? 0,
          refs: [...(prepared.references ?? []), message.rfc_message_id],
          autoStreak: prepared.autoStreak,
          fromAddress: prepared.from.address,
          lock: !suppressedAll,
        }),
      });
    }
    if (suppressedAll) {
      items.push({
        kind: 'other',
        item: eventPutItem(deps.db, {
          id: `evt_${deps.newId()}`,
          type: 'message.suppressed',
          tenant_id: tenant.id,
          created_at: now,
          data: {
            message_id: message.id,
            identity_id: identity.id,
            recipients: (message.deliveries ?? []).map((d) => ({
              address: d.address,
              reason: d.smtp_response,
            })),
          },
        }),
      });
    }

    try {
      await commitAccepted(
        deps.db,
        message,
        items.map((i) => i.item),
      );
      return { message, prepared, countsBefore };
    } catch (err) {
      // A commit whose answer was lost (a timeout, a 5xx) may have happened: the stored message
      // would point at its objects, so they stay (an orphaned object costs storage; a message
      // without its MIME would become uncertain). Only a cancelled transaction, which certainly
      // wrote nothing, takes its objects with it — as the counts are handled in store().
      if (!isTransactionCanceled(err)) throw err;
      await Promise.all(
        [message.raw_key, ...prepared.links.map((l) => l.key)].map((k) => deps.blobs.delete(k)),
      ).catch((e) => deps.log.error('blob clean-up failed', { message_id: message.id, ...errorFields(e) }));
      // The transaction is [message, ...items]; a lost race on the thread's lock alone is retried.
      const failed = failedConditions(err, ['message', ...items.map((i) => i.kind)]);
      if (failed.has('thread') && !failed.has('other') && !failed.has('message')) continue;
      throw err;
    }
  }
}

function capReached(
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

function buildMessage(
  deps: Deps,
  args: StoreArgs,
  p: Prepared,
  now: number,
  suppressedAll: boolean,
  quotaDay: string | undefined,
): MessageRecord {
  const { tenant, identity, body } = args;
  const byField = (f: 'to' | 'cc' | 'bcc') =>
    p.recipients
      .filter((r) => r.field === f)
      .map(({ address, name }) => (name ? { address, name } : { address }));
  return {
    id: p.messageId,
    tenant_id: tenant.id,
    identity_id: identity.id,
    thread_id: p.threadId,
    direction: 'outbound',
    status: suppressedAll ? 'suppressed' : 'queued',
    operation: args.operation,
    from: p.from,
    to: byField('to'),
    cc: byField('cc'),
    bcc: byField('bcc'),
    reply_to: p.replyTo ? [p.replyTo] : [],
    subject: p.subject,
    kind: body.kind,
    labels: body.labels ?? [],
    metadata: body.metadata,
    flags: [],
    rfc_message_id: p.compose.rfcMessageId,
    in_reply_to: p.inReplyTo,
    references: p.references,
    hop: p.hop,
    holds_lock: p.threaded && !suppressedAll ? true : undefined,
    raw_key: outboundKey(tenant.id, identity.id, p.messageId),
    raw_size: p.mime.length,
    // The Date header's instant: the stored copy and the record agree to the millisecond.
    created_at: p.compose.now,
    updated_at: now,
    version: 1,
    deliveries: p.recipients.map((r, i) => {
      const d = p.decisions[i];
      return d.status === 'queued'
        ? { address: r.address, field: r.field, status: 'queued' as const, updated_at: now }
        : {
            address: r.address,
            field: r.field,
            status: 'suppressed' as const,
            smtp_response: d.smtp_response,
            updated_at: now,
          };
    }),
    ...(body.send_at ? { send_at: Date.parse(body.send_at) } : {}),
    ...(quotaDay ? { quota_day: quotaDay } : {}),
    // DESIGN § 6: the execution coming for this message is named in the write that queues it; a
    // scheduled send waits in the Standard machine, dispatched for its send_at.
    ...(suppressedAll
      ? {}
      : body.send_at
        ? {
            dispatch: {
              execution: executionName(p.messageId, 1, 'send'),
              at: Date.parse(body.send_at),
              n: 1,
            },
          }
        : { dispatch: { execution: executionName(p.messageId, 1), at: now, n: 1 } }),
  };
}

/**
 * After commit: start the execution the message names (if that fails the message stays queued and
 * the sweeper dispatches it: DESIGN § 5.1 step 6), count the contacts, emit quota warnings once per
 * scope, threshold and day. None of these can undo the accepted send.
 */
async function afterCommit(
  deps: Deps,
  args: {
    tenant: Tenant;
    identity: Identity;
    message: MessageRecord;
    prepared: Prepared;
    countsBefore?: { tenant: number; identity: number };
  },
): Promise<void> {
  const { tenant, identity, message, prepared } = args;
  if (message.status === 'queued') {
    try {
      const ids = { tenant_id: tenant.id, identity_id: identity.id, message_id: message.id };
      if (message.send_at) {
        await deps.dispatcher.start(
          message.dispatch!.execution,
          { ...ids, send_at: new Date(message.send_at).toISOString() },
          'send',
        );
      } else {
        await deps.dispatcher.start(message.dispatch!.execution, ids);
      }
    } catch (err) {
      deps.log.error('dispatch failed; the sweeper will retry', {
        message_id: message.id,
        ...errorFields(err),
      });
    }
  }
  // A contact is written when it changes: a recipient already known (outbound_count > 0, read at
  // step 16) is not written again; only whether one was ever sent to is read.
  const queued = (message.deliveries ?? [])
    .filter((d) => d.status === 'queued')
    .map((d) => d.address)
    .filter((a) => (prepared.contacts.get(canonicalAddress(a))?.outbound_count ?? 0) <= 0);
  const side: Promise<unknown>[] = contactCountUpdates(deps.db, identity.id, queued, message.created_at).map(
    (u) =>
      deps.db.doc.send(
        new UpdateCommand((u as { Update: ConstructorParameters<typeof UpdateCommand>[0] }).Update),
      ),
  );
  if (args.countsBefore) {
    const day = localDay(message.created_at, tenant.timezone || 'UTC');
    const expiresAt = nextLocalMidnight(message.created_at, tenant.timezone || 'UTC') + 48 * 3600_000;
    const scopes = [
      { scope: `identity:${identity.id}`, before: args.countsBefore.identity, cap: prepared.caps.identity },
      { scope: 'tenant', before: args.countsBefore.tenant, cap: prepared.caps.tenant },
    ];
    for (const { scope, before, cap } of scopes) {
      for (const threshold of crossedThresholds(before, before + 1, cap)) {
        side.push(
          markWarned(deps.db, { tenantId: tenant.id, day, scope, threshold, expiresAt }).then((first) =>
            first
              ? appendEvent(deps.db, {
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
                })
              : false,
          ),
        );
      }
    }
  }
  const results = await Promise.allSettled(side);
  for (const r of results) {
    if (r.status === 'rejected')
      deps.log.error('after-commit step failed', { message_id: message.id, ...errorFields(r.reason) });
  }
}
