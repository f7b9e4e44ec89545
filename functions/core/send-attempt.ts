import { rollUp } from './deliveries.ts';
import { executionName } from './dispatch.ts';
import { consentKindOf } from './job-kind.ts';
import type { Delivery, MessageRecord, RecordedClaim } from './model.ts';
import { canonicalAddress, type Suppression, suppressedResponse, suppressionBlocks } from './suppressions.ts';
import type { RecipientUncertain, RetryClass, TransportResult } from './transport-result.ts';

/** A claim older than this belongs to a dead attempt. */
export const CLAIM_STALE_MS = 5 * 60 * 1000;

export type ClaimDecision =
  | { type: 'claim' }
  | { type: 'not_queued' }
  | { type: 'already_claimed' }
  /**
   * The previous attempt died holding the claim: the claim is written with its `sending` mark, so
   * its provider call may have happened.
   */
  | { type: 'stale'; token: string };

/**
 * Claim (docs/architecture.md › The attempt's writes, step by step): Claim reads and decides; the
 * claim itself is written by the transport task, with its `sending` mark, in one conditional write
 * (store/messages.store.ts › claimSending). A queued message with no claim, or with our own claim,
 * may be sent by us. A foreign claim younger than 5 minutes stops this attempt (another execution
 * is calling the provider); an older one is a dead attempt (`stale`): the transport writes every
 * claim with its `sending` mark.
 */
export function decideClaim(message: MessageRecord, token: string, now: number): ClaimDecision {
  if (message.status !== 'queued') return { type: 'not_queued' };
  const claim = message.claim;
  if (!claim || claim.token === token) return { type: 'claim' };
  if (now - claim.at < CLAIM_STALE_MS) return { type: 'already_claimed' };
  return { type: 'stale', token: claim.token };
}

/**
 * The sender re-check at Claim: why the sender sends nothing more, or undefined when it may send.
 * A suspended tenant (or none) stops it first, then an identity that is not active (or none).
 */
export function senderStop(
  tenant: { status: string } | undefined,
  identity: { status: string } | undefined,
): string | undefined {
  if (!tenant || tenant.status === 'suspended') return 'tenant_suspended';
  if (identity?.status !== 'active') return `identity_${identity?.status ?? 'deleted'}`;
  return undefined;
}

/**
 * The mark before the call and one write admitting one call: when the claim-and-mark write was refused
 * (`current`: the message as it was, if it still exists): our own token on it means this claim was
 * written already — a repeated invocation of the same transport task, whose provider call may have
 * happened — so the answer is `unknown` (Record makes it uncertain, **I1**). Anything else (another
 * execution's claim, a cancel, the message no longer queued or gone) means another decision won:
 * `lost`, the provider is not called and nothing is recorded under this token.
 */
export function sendingRefusal(current: MessageRecord | undefined, token: string): 'repeated' | 'lost' {
  return current?.claim?.token === token ? 'repeated' : 'lost';
}

/**
 * The claim-and-mark write's outcome, read back from the message (`current`, read consistently)
 * after its answer was lost (docs/lost-answers.md › owned transition). `claim.by` is this transport
 * invocation's own nonce: a duplicate invocation of the same execution carries the same token, so
 * only the nonce tells this write from that one's.
 * - `mine`: the claim with this nonce is on the message: this invocation holds it and has not
 *   called the provider yet, so it goes on to the call.
 * - `again`: the write did not land and nothing stands in its way (queued, no claim): the same
 *   write is sent again.
 * - `refused`: another decision won, answered as a refused write (`sendingRefusal`): another
 *   execution's claim or a cancel (`lost`), or this token's claim under another invocation's nonce
 *   (`repeated`: that invocation may be calling the provider).
 */
export function claimWriteSeen(
  current: MessageRecord | undefined,
  claim: { token: string; by: string },
): 'mine' | 'again' | 'refused' {
  if (current?.claim?.token === claim.token && current.claim.by === claim.by) return 'mine';
  if (current?.status !== 'queued') return 'refused';
  return current.claim ? 'refused' : 'again';
}

/**
 * The message queued again under the next execution name, minted in this write (the caller starts
 * that execution after it): a lost dispatch, whose message carries no claim. `executionFor(n)` names
 * the n-th dispatch.
 */
export function redispatch(
  message: MessageRecord,
  now: number,
  executionFor: (n: number) => string,
): MessageRecord {
  const n = (message.dispatch?.n ?? 0) + 1;
  return {
    ...message,
    claim: undefined,
    dispatch: { execution: executionFor(n), at: now, n },
    updated_at: now,
  };
}

/**
 * Suppression is checked at enqueue as well as at send: the send is the authority. At
 * claim time each still-queued recipient is checked again with the message's kind (the same
 * accessor and rule as at enqueue); a recipient suppressed since enqueue becomes a `suppressed`
 * delivery (an outcome, not a failure), and when none is left the message ends `suppressed` and
 * the provider is never called. `found` holds the suppressions read for the queued recipients,
 * keyed by canonical address. Undefined when nothing changes.
 */
export function suppressAtSend(
  message: MessageRecord,
  found: ReadonlyMap<string, Pick<Suppression, 'reason' | 'expires_at' | 'elective'>>,
  now: number,
): RecordedOutcome | undefined {
  const kind = consentKindOf(message);
  let changed = false;
  const deliveries = (message.deliveries ?? []).map((d): Delivery => {
    const s = d.status === 'queued' ? found.get(canonicalAddress(d.address)) : undefined;
    if (!s || !suppressionBlocks(s, kind, now)) return d;
    changed = true;
    return { ...d, status: 'suppressed', smtp_response: suppressedResponse(s.reason), updated_at: now };
  });
  if (!changed) return undefined;
  const base = { ...message, deliveries, updated_at: now, version: message.version + 1 };
  if (deliveries.some((d) => d.status === 'queued')) {
    return { message: base, next: { type: 'done' }, releaseLock: false };
  }
  return withLockDecision(message, {
    message: {
      ...base,
      status: 'suppressed',
      status_reason: 'suppressed_at_send',
      status_at: now,
      claim: undefined,
      dispatch: undefined,
      backoff: undefined,
    },
    next: { type: 'done' },
  });
}

export interface RecordedOutcome {
  message: MessageRecord;
  next: { type: 'done' } | { type: 'wait'; seconds: number };
  /** The message held its thread's lock and no longer needs it. */
  releaseLock: boolean;
}

/**
 * The thread lock is released when the message leaves queued, and when it enters a back-off
 * (it is then definitely unsent and may wait for hours).
 */
export function withLockDecision(
  before: MessageRecord,
  out: Omit<RecordedOutcome, 'releaseLock'>,
): RecordedOutcome {
  const release = !!before.holds_lock && (out.message.status !== 'queued' || out.next.type === 'wait');
  return {
    ...out,
    message: release ? { ...out.message, holds_lock: undefined } : out.message,
    releaseLock: release,
  };
}

/**
 * Record: apply one transport result to the message. Only deliveries that
 * are still queued take part: an event may already have moved a recipient on (events can overtake
 * the record), and a roll-up never moves a delivery back.
 */
export function recordOutcome(
  message: MessageRecord,
  result: TransportResult,
  now: number,
  jitter = 0,
): RecordedOutcome {
  const out = applyResult(withProviderSuppressions(message, result, now), result, now, jitter);
  // Back-off bookkeeping (docs/architecture.md › The send machines): backoff is cleared when the
  // message leaves queued, and with it the back-off's reason (`status_reason` names why a message was rejected, failed or uncertain).
  if (out.message.status !== 'queued') {
    const dispatchN = message.dispatch?.n ?? message.dispatch_n;
    out.message = {
      ...withoutBackoffReason(out.message),
      backoff: undefined,
      dispatch: undefined,
      ...(dispatchN !== undefined ? { dispatch_n: dispatchN } : {}),
    };
  }
  if (out.message.status !== message.status && ATTEMPT_END_STATUSES.has(out.message.status)) {
    out.message = { ...out.message, status_at: now };
  }
  return withLockDecision(message, out);
}

/**
 * Provider suppressions and resending: the recipients the provider suppressed
 * leave the attempt as `suppressed` ("provider: suppressed ({reason})"); the outcome applies to the
 * others. (Record also adds pmail's `provider` suppressions: functions/send/attempt.ts.)
 */
function withProviderSuppressions(
  message: MessageRecord,
  result: TransportResult,
  now: number,
): MessageRecord {
  const list = result.provider_suppressed;
  if (!list?.length) return message;
  const by = new Map(list.map((p) => [canonicalAddress(p.address), p]));
  return {
    ...message,
    deliveries: (message.deliveries ?? []).map((d): Delivery => {
      const p = d.status === 'queued' ? by.get(canonicalAddress(d.address)) : undefined;
      if (!p) return d;
      return {
        ...d,
        status: 'suppressed',
        smtp_response: `provider: suppressed (${p.reason ?? 'unknown'})`,
        updated_at: now,
      };
    }),
  };
}

/**
 * A claim whose attempt died (older than 5 minutes), for Claim and the sweeper alike: every claim
 * carries the `sending` mark, so its provider call may have happened and the message becomes
 * uncertain, never retried.
 */
export function deadAttemptOutcome(message: MessageRecord, now: number, detail: string): RecordedOutcome {
  return recordOutcome(message, { type: 'unknown', reason: 'transport_connection_lost', detail }, now);
}

/**
 * What a Record keeps on the message for a retry of itself: the claim it recorded, the
 * `next` it answered, and whether it released the thread lock.
 */
export function recordedClaim(
  token: string,
  out: RecordedOutcome,
  next: RecordedClaim['next'],
): RecordedClaim {
  return {
    token,
    next,
    ...(out.next.type === 'wait' && next === 'wait' ? { seconds: out.next.seconds } : {}),
    ...(out.releaseLock ? { release: true } : {}),
  };
}

/** What Record decides with, besides the message: its claim, the result, and the executions. */
export interface RecordContext {
  /** Claim's answer: its token, and `provider: 'none'` when no transport ran. */
  claim: { token: string; provider?: string };
  result: TransportResult;
  now: number;
  jitter: number;
  /** The parent Standard execution (it waits and loops), unless it hands off before its history limit. */
  parent?: string;
  handOff?: boolean;
}

/**
 * Record's decision on the message as read (docs/architecture.md › The attempt's writes, step by
 * step): under its claim, the result applied (`recordOutcome`) with what a retry of this Record
 * replays (`recordedClaim`); a back-off names the execution coming for the message: the parent
 * when there is one and it does not hand off (`wait`), else the next Standard execution (`start`).
 * Not under its claim: no write, and the answer this token recorded, or `done`.
 */
export function decideRecord(
  m: MessageRecord,
  c: RecordContext,
): { next?: MessageRecord; result: RecordedClaim['next'] } {
  const token = c.claim.token;
  if (!recordsUnder(m, c.claim, c.now))
    return { result: m.recorded?.token === token ? m.recorded.next : 'done' };
  const recorded = recordOutcome(m, c.result, c.now, c.jitter);
  if (recorded.next.type !== 'wait') {
    return {
      next: { ...recorded.message, recorded: recordedClaim(token, recorded, 'done') },
      result: 'done',
    };
  }
  const at = recorded.message.dispatch!.at;
  const n = m.dispatch?.n ?? 1;
  if (c.parent && !c.handOff) {
    const dispatch = { execution: c.parent, at, n };
    return {
      next: { ...recorded.message, dispatch, recorded: recordedClaim(token, recorded, 'wait') },
      result: 'wait',
    };
  }
  const dispatch = { execution: executionName(m.id, n + 1, 'send'), at, n: n + 1 };
  return {
    next: { ...recorded.message, dispatch, recorded: recordedClaim(token, recorded, 'start') },
    result: 'start',
  };
}

/**
 * Whether a Record may write its result on `m`: under its own claim, which its transport task wrote
 * with the `sending` mark. A result Claim decided itself (`provider: 'none'`: no transport ran and
 * the provider was never called, so no claim was written) is recorded under Claim's decision instead,
 * checked again on the message as written: still queued, with no other execution's claim on it.
 */
export function recordsUnder(
  m: MessageRecord,
  claim: { token: string; provider?: string },
  now: number,
): boolean {
  if (m.claim?.token === claim.token) return true;
  // Recorded already (a retry, or the same put after its answer was lost): replayed, not again.
  if (m.recorded?.token === claim.token) return false;
  return claim.provider === 'none' && decideClaim(m, claim.token, now).type === 'claim';
}

/** The statuses an attempt's outcome can end a message in, each announced by an event. */
export const ATTEMPT_END_STATUSES: ReadonlySet<string> = new Set([
  'uncertain',
  'rejected',
  'failed',
  'suppressed',
]);

/** The `status_reason` of a queued message waiting in a back-off of class `{class}`. */
const BACKOFF_REASON = 'retry_later:';

/**
 * The message without a back-off's `retry_later:{class}` reason: for a message leaving queued
 * (submitted, canceled, or an outcome that names its own reason).
 */
export function withoutBackoffReason(m: MessageRecord): MessageRecord {
  return m.status_reason?.startsWith(BACKOFF_REASON) ? { ...m, status_reason: undefined } : m;
}

/** Back-off bookkeeping: every back-off ends 24 hours after submit (or an operator retry). */
export const BACKOFF_END_MS = 24 * 3600 * 1000;

/**
 * A back-off of class `cls`: the next retry `seconds` from now, or — when that retry would fall more
 * than 24 hours after submit — the queued deliveries `failed` (`quota_exhausted`) instead.
 */
function backOff(
  message: MessageRecord,
  base: MessageRecord,
  cls: RetryClass,
  now: number,
  jitter: number,
): Omit<RecordedOutcome, 'releaseLock'> {
  const n = (message.backoff?.n ?? 0) + 1;
  const seconds = backoffSeconds(cls, n, jitter);
  const retryAt = now + seconds * 1000;
  const deliveries = base.deliveries ?? [];
  // An operator retry starts a new 24 hours (core/message-actions.ts › retryMessage).
  if (retryAt > (message.retry?.at ?? message.created_at) + BACKOFF_END_MS) {
    const next = settleQueued(
      deliveries,
      'failed',
      now,
      'quota_exhausted: retries ended 24 hours after submit',
    );
    return {
      message: {
        ...base,
        deliveries: next,
        status: rollUp('failed', next),
        status_reason: 'quota_exhausted',
        status_detail: `${cls} back-off reached the 24-hour limit after ${n - 1} retries`,
      },
      next: { type: 'done' },
    };
  }
  return {
    message: {
      ...base,
      status: 'queued',
      backoff: { n, first_at: message.backoff?.first_at ?? now },
      dispatch: message.dispatch
        ? { ...message.dispatch, at: retryAt }
        : { execution: '', at: retryAt, n: 0 },
      status_reason: `${BACKOFF_REASON}${cls}`,
    },
    next: { type: 'wait', seconds },
  };
}

/**
 * One transport result on the message (its claim cleared, one version on), by the result's type:
 * the deliveries still queued take the outcome; a back-off keeps the message queued.
 */
function applyResult(
  message: MessageRecord,
  result: TransportResult,
  now: number,
  jitter: number,
): Omit<RecordedOutcome, 'releaseLock'> {
  const base: MessageRecord = { ...message, claim: undefined, updated_at: now, version: message.version + 1 };
  switch (result.type) {
    case 'accepted':
      return applyAccepted(message, base, result, now, jitter);
    case 'rejected':
      return applyRejected(base, result, now);
    case 'unknown':
      return applyUnknown(message, base, result, now);
    case 'retry_later':
      return backOff(message, base, result.class, now, jitter);
  }
}

/**
 * Accepted: each queued recipient is `submitted`, or `rejected` when the provider refused it, or
 * stays queued when the provider deferred it (SMTP): then the message backs off (Relay) and
 * retries only those, with the same Message-ID. A recipient whose own envelope's answer was lost
 * (SMTP) becomes `uncertain` and is never resent; once nothing is queued, a message with an
 * uncertain delivery is `uncertain` (docs/guides/domains.md › SMTP relay).
 */
function applyAccepted(
  message: MessageRecord,
  base: MessageRecord,
  result: Extract<TransportResult, { type: 'accepted' }>,
  now: number,
  jitter: number,
): Omit<RecordedOutcome, 'releaseLock'> {
  const refused = new Map(result.refused.map((r) => [canonicalAddress(r.address), r]));
  const deferred = new Set(result.deferred.map((a) => canonicalAddress(a)));
  const uncertain = new Map((result.uncertain ?? []).map((u) => [canonicalAddress(u.address), u]));
  const next = (message.deliveries ?? []).map((d): Delivery => {
    if (d.status !== 'queued') return d;
    const key = canonicalAddress(d.address);
    const lost = uncertain.get(key);
    if (lost) return { ...d, status: 'uncertain', smtp_response: uncertainLine(lost), updated_at: now };
    const refusal = refused.get(key);
    if (refusal) {
      return {
        ...d,
        status: 'rejected',
        smtp_code: refusal.code,
        smtp_response: refusal.detail,
        updated_at: now,
      };
    }
    if (deferred.has(key)) return d;
    return { ...d, status: 'submitted', updated_at: now };
  });
  const sent: MessageRecord = {
    ...base,
    deliveries: next,
    provider: result.provider as MessageRecord['provider'],
    provider_message_id: result.provider_message_id,
    rfc_message_id: result.rfc_message_id ?? message.rfc_message_id,
  };
  if (next.some((d) => d.status === 'queued')) return backOff(message, sent, 'Relay', now, jitter);
  const lost = next.find((d) => d.status === 'uncertain');
  if (!lost) {
    const status = rollUp(message.status === 'queued' ? 'submitted' : message.status, next);
    return { message: { ...sent, status }, next: { type: 'done' } };
  }
  // The reason of the first lost envelope, this attempt's or (after a retry of the untried) an earlier one's.
  const why = result.uncertain?.[0] ?? uncertainOf(lost.smtp_response);
  return {
    message: {
      ...sent,
      status: 'uncertain',
      ...(why ? { status_reason: why.reason, status_detail: why.detail.slice(0, 512) } : {}),
    },
    next: { type: 'done' },
  };
}

/** An uncertain delivery's `smtp_response`: `{reason}: {detail}`. */
const uncertainLine = (u: RecipientUncertain) => `${u.reason}: ${u.detail}`.slice(0, 512);

function uncertainOf(line: string | undefined): RecipientUncertain | undefined {
  const m = /^(transport_timeout|transport_connection_lost): (.*)$/s.exec(line ?? '');
  return m ? { address: '', reason: m[1] as RecipientUncertain['reason'], detail: m[2] } : undefined;
}

/** Rejected: the queued recipients take the rejection's status; with no recipient left, `suppressed`. */
function applyRejected(
  base: MessageRecord,
  result: Extract<TransportResult, { type: 'rejected' }>,
  now: number,
): Omit<RecordedOutcome, 'releaseLock'> {
  const status = result.status ?? 'rejected';
  const next = settleQueued(base.deliveries ?? [], status, now, result.detail);
  const allSuppressed = next.length > 0 && next.every((d) => d.status === 'suppressed');
  return {
    message: {
      ...base,
      deliveries: next,
      status: allSuppressed ? 'suppressed' : rollUp(status, next),
      status_reason: result.reason,
      status_detail: `${result.code}: ${result.detail}`.slice(0, 512),
    },
    next: { type: 'done' },
  };
}

/**
 * Unknown: the queued recipients become `uncertain` (an uncertain send is never resent
 * automatically). When events overtook the record and settled every recipient, they say what the
 * provider did, and the message keeps the status they rolled up to.
 */
function applyUnknown(
  message: MessageRecord,
  base: MessageRecord,
  result: Extract<TransportResult, { type: 'unknown' }>,
  now: number,
): Omit<RecordedOutcome, 'releaseLock'> {
  const deliveries = message.deliveries ?? [];
  if (!deliveries.some((d) => d.status === 'queued')) {
    return { message: { ...base, status: rollUp(message.status, deliveries) }, next: { type: 'done' } };
  }
  return {
    message: {
      ...base,
      deliveries: settleQueued(deliveries, 'uncertain', now),
      status: 'uncertain',
      status_reason: result.reason,
      status_detail: result.detail.slice(0, 512),
    },
    next: { type: 'done' },
  };
}

function settleQueued(
  deliveries: Delivery[],
  status: Delivery['status'],
  now: number,
  detail?: string,
): Delivery[] {
  return deliveries.map((d) =>
    d.status === 'queued'
      ? { ...d, status, updated_at: now, ...(detail ? { smtp_response: detail.slice(0, 512) } : {}) }
      : d,
  );
}

/**
 * Back-off: RateLimit 10 s × n (max 60 s); Quota, Paused, Relay 60 s × 2^(n−1) (max 3,600 s); with
 * `jitter` in [−0.1, 0.1] (the caller draws it: the core has no randomness) the delay moves by ±10 %.
 */
export function backoffSeconds(cls: RetryClass, n: number, jitter = 0): number {
  const base = cls === 'RateLimit' ? Math.min(10 * n, 60) : Math.min(60 * 2 ** (n - 1), 3600);
  const j = Math.max(-0.1, Math.min(0.1, jitter));
  return Math.max(1, Math.round(base * (1 + j)));
}
