import type { MessageRecord } from '../core/model.ts';
import { canonicalAddress, domainOf } from '../core/recipients.ts';
import { sendingRefusal } from '../core/send-attempt.ts';
import type { TransportTaskResult } from '../core/transport-result.ts';
import type { Deps } from '../deps.ts';
import { failDomainOnRelayRefusal } from '../domains/relay-refusal.ts';
import { writeToken } from '../store/db.ts';
import { getDomain } from '../store/directory.store.ts';
import { adapterBudgetMs, type TransportTaskSpec } from '../transports/tasks.ts';
import type { Transport, TransportDomain, TransportRequest } from '../transports/transport.ts';
import type { SendAttemptInput } from './dispatcher.ts';
import { claimUnlessAnswered, type UnlessReplyCheck } from './unless-reply.ts';

/** What a transport task reads and writes: the message (its claim), its domain and its stored copy. */
export type TransportTaskDeps = Pick<Deps, 'db' | 'blobs' | 'clock' | 'log' | 'newId'>;

export type TransportTaskInput = SendAttemptInput & {
  claim: { token: string; return_paths?: Record<string, string>; unless_reply?: UnlessReplyCheck };
};

/**
 * One transport task of the send-attempt machine (one Lambda per provider). Claim only read and
 * decided; here the claim is written with its `sending` mark in one conditional write
 * (store/messages.store.ts › claimSending), and only then comes the single provider call. The two
 * rules of a provider call: the mark comes before the call, and a second invocation for the
 * same claim finds it and reports unknown without calling the provider. A write refused because
 * another decision won (a duplicate execution's claim, a cancel) reports `not_claimed`: the
 * provider is not called and the machine records nothing. The adapter gets a deadline inside the
 * task's timeout and an abort signal at it.
 */
export async function runTransport(
  deps: TransportTaskDeps,
  transport: Transport,
  spec: TransportTaskSpec,
  input: TransportTaskInput,
): Promise<TransportTaskResult> {
  const token = input.claim.token;
  // This invocation's own nonce on the claim: a duplicate invocation of the same execution carries
  // the same token, so only this tells the claim write's own outcome after a lost answer.
  // A follow-up that waits for no answer is claimed, or canceled, on its thread's answers.
  const claimed = await claimUnlessAnswered(
    deps,
    input,
    { token, by: writeToken(), at: deps.clock() },
    input.claim.unless_reply,
  );
  if (!claimed.written) {
    if ('answered' in claimed)
      return {
        type: 'not_claimed',
        detail: 'an answer arrived in its thread first: canceled (reply_received)',
      };
    return claimRefused(deps, input, 'current' in claimed ? claimed.current : undefined);
  }
  const message = claimed.message;
  const domainName = domainOf(message.from.address);
  const stored = await getDomain(deps.db, domainName);
  const domain: TransportDomain = stored ?? {
    domain: domainName,
    tenant_id: message.tenant_id,
    transport: 'test',
  };
  const budget = adapterBudgetMs(spec);
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error('transport deadline')), budget);
  try {
    const result = await transport.send(
      transportRequest(deps, message, input.claim, domain, {
        deadline: deps.clock() + budget,
        signal: controller.signal,
      }),
    );
    // A relay that refused the login fails its domain now, not at the next probe (never throws).
    if (stored?.tenant_id === message.tenant_id) await failDomainOnRelayRefusal(deps, stored, result);
    return result;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The claim-and-mark write was refused (core/send-attempt.ts › sendingRefusal): this token's claim
 * already on the message is a repeated invocation whose provider call may have happened
 * (`unknown`); anything else is another decision that won (`not_claimed`). The provider is not called.
 */
function claimRefused(
  deps: Pick<Deps, 'log'>,
  input: TransportTaskInput,
  current: MessageRecord | undefined,
): TransportTaskResult {
  if (sendingRefusal(current, input.claim.token) === 'repeated') {
    deps.log.warn('transport found its claim already sending; provider not called', {
      message_id: input.message_id,
    });
    return {
      type: 'unknown',
      reason: 'transport_connection_lost',
      detail:
        'the claim was already sending: a repeated transport invocation did not call the provider again',
    };
  }
  deps.log.info('transport found the message claimed or decided by another; provider not called', {
    message_id: input.message_id,
    status: current?.status ?? 'gone',
  });
  return {
    type: 'not_claimed',
    detail: 'another execution claimed the message, or it left queued, before this attempt could claim it',
  };
}

/** The one provider call's request: the claimed message's queued recipients and its stored copy. */
function transportRequest(
  deps: Pick<Deps, 'blobs'>,
  message: MessageRecord,
  claim: TransportTaskInput['claim'],
  domain: TransportDomain,
  limit: Pick<TransportRequest, 'deadline' | 'signal'>,
): TransportRequest {
  return {
    tenant_id: message.tenant_id,
    identity_id: message.identity_id,
    message_id: message.id,
    claim_token: claim.token,
    attempt: (message.backoff?.n ?? 0) + 1,
    mime: {
      key: message.raw_key,
      size: message.raw_size,
      load: async () => {
        const raw = await deps.blobs.get(message.raw_key);
        if (!raw) throw new Error(`the stored copy of ${message.id} is missing`);
        return raw.body;
      },
    },
    rfc_message_id: message.rfc_message_id,
    subject: message.subject,
    kind: message.kind,
    from: message.from.address,
    envelope_from: message.from.address,
    recipients: (message.deliveries ?? [])
      .filter((d) => d.status === 'queued')
      .map((d) => {
        const returnPath = claim.return_paths?.[canonicalAddress(d.address)];
        return { address: d.address, field: d.field, ...(returnPath ? { return_path: returnPath } : {}) };
      }),
    domain,
    ...limit,
  };
}
