import { sha256Hex } from '../core/fingerprint.ts';
import { type ClaimDecision, decideClaim, recordOutcome } from '../core/send-attempt.ts';
import type { TransportResult } from '../core/transport-result.ts';
import type { Deps } from '../deps.ts';
import { getTenant } from '../store/directory.store.ts';
import { markSending, mutateMessage } from '../store/messages.store.ts';
import { refreshThreadLock, releaseThreadLock } from '../store/threads.store.ts';
import { sendTest } from '../transports/test.transport.ts';
import type { SendAttemptInput } from './dispatcher.ts';

/** The tasks of statemachines/send-attempt.asl.json (DESIGN § 5.2): Claim → Transport → Record. */

export type ClaimOutput =
  | { outcome: 'claimed'; token: string; at: number }
  | { outcome: 'stop'; reason: Exclude<ClaimDecision['type'], 'claim'> | 'not_found' };

/**
 * The claim token is derived from the execution id: a retried Claim task of the same execution
 * recognises its own claim, while a duplicate Express execution (same name, another id) does not.
 */
export function claimToken(executionId: string): string {
  return sha256Hex(executionId).slice(0, 32);
}

export async function claim(
  deps: Deps,
  input: SendAttemptInput & { execution_id: string },
): Promise<ClaimOutput> {
  const token = claimToken(input.execution_id);
  const now = deps.clock();
  let release = false;
  const out = await mutateMessage<ClaimDecision>(deps.db, input.identity_id, input.message_id, (m) => {
    const decision = decideClaim(m, token, now);
    if (decision.type === 'claim') {
      if (m.claim?.token === token) return { result: decision };
      return { next: { ...m, claim: { token, at: now } }, result: decision };
    }
    if (decision.type === 'stale') {
      // The previous attempt died after claiming: its provider call may have happened.
      const recorded = recordOutcome(
        m,
        {
          type: 'unknown',
          reason: 'transport_connection_lost',
          detail: 'a previous attempt died holding the claim',
        },
        now,
      );
      release = recorded.releaseLock;
      return { next: recorded.message, result: decision };
    }
    return { result: decision };
  });
  if (!out.found) return { outcome: 'stop', reason: 'not_found' };
  const m = out.message;
  if (release) await releaseThreadLock(deps.db, m.identity_id, m.thread_id, m.id);
  if (out.result.type === 'claim') {
    // seed 000 › Thread lock › Holding: the attempt refreshes the lease to now + 60 s.
    if (m.holds_lock) await refreshThreadLock(deps.db, m.identity_id, m.thread_id, m.id, now + 60_000);
    return { outcome: 'claimed', token, at: m.claim!.at };
  }
  deps.log.info('claim stopped', { message_id: input.message_id, reason: out.result.type });
  return { outcome: 'stop', reason: out.result.type };
}

/**
 * One provider call per claim: mark `sending` first; a second invocation for the same claim finds
 * the mark and reports unknown without calling the provider (provider-outcomes.md, rule 2).
 */
export async function transport(
  deps: Deps,
  input: SendAttemptInput & { claim: { token: string } },
): Promise<TransportResult> {
  const message = await markSending(deps.db, input.identity_id, input.message_id, input.claim.token);
  if (!message) {
    deps.log.warn('transport found the claim already sending or gone; provider not called', {
      message_id: input.message_id,
    });
    return {
      type: 'unknown',
      reason: 'transport_connection_lost',
      detail:
        'the claim was already sending: a repeated transport invocation did not call the provider again',
    };
  }
  const tenant = await getTenant(deps.db, input.tenant_id);
  if (tenant?.mode === 'test') return sendTest(deps, message);
  // Live transports (Cloudflare, SES, SMTP) come with the domains work; nothing was sent.
  return {
    type: 'rejected',
    reason: 'sender_domain_unavailable',
    code: 'E_NO_TRANSPORT',
    detail: 'no transport is configured for this sending domain',
  };
}

export interface RecordOutput {
  next: 'done' | 'wait';
  seconds?: number;
  status?: string;
}

/** Apply the result under our claim; a claim that is no longer ours means someone else decided. */
export async function record(
  deps: Deps,
  input: SendAttemptInput & { claim: { token: string }; result: TransportResult },
): Promise<RecordOutput> {
  const now = deps.clock();
  let release = false;
  const out = await mutateMessage<RecordOutput>(deps.db, input.identity_id, input.message_id, (m) => {
    if (m.claim?.token !== input.claim.token) return { result: { next: 'done' as const } };
    const recorded = recordOutcome(m, input.result, now);
    release = recorded.releaseLock;
    return {
      next: recorded.message,
      result:
        recorded.next.type === 'wait'
          ? { next: 'wait' as const, seconds: recorded.next.seconds }
          : { next: 'done' as const },
    };
  });
  if (!out.found) return { next: 'done' };
  if (release && out.written) {
    await releaseThreadLock(deps.db, out.message.identity_id, out.message.thread_id, out.message.id);
  }
  deps.log.info('attempt recorded', {
    message_id: input.message_id,
    result: input.result.type,
    status: out.message.status,
    written: out.written,
  });
  return { ...out.result, status: out.message.status };
}
