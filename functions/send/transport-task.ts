import { domainOf } from '../core/recipients.ts';
import type { TransportResult } from '../core/transport-result.ts';
import type { Deps } from '../deps.ts';
import { getDomain, getTenant } from '../store/directory.store.ts';
import { markSending } from '../store/messages.store.ts';
import { adapterBudgetMs, DEPLOYED_PROVIDERS, type TransportTaskSpec } from '../transports/tasks.ts';
import {
  chooseTransport,
  type Transport,
  type TransportChoice,
  type TransportDomain,
  type TransportRequest,
} from '../transports/transport.ts';
import type { SendAttemptInput } from './dispatcher.ts';

/** What a transport task reads and marks: the message, its domain and its stored copy. */
export type TransportTaskDeps = Pick<Deps, 'db' | 'blobs' | 'clock' | 'log'>;

export type TransportTaskInput = SendAttemptInput & { claim: { token: string } };

/**
 * One transport task of the send-attempt machine (one Lambda per provider). The two rules of
 * provider-outcomes.md: the conditional `sending` mark comes before the single provider call, and a
 * second invocation for the same claim finds the mark and reports unknown without calling the
 * provider. The adapter gets a deadline inside the task's timeout and an abort signal at it.
 */
export async function runTransport(
  deps: TransportTaskDeps,
  transport: Transport,
  spec: TransportTaskSpec,
  input: TransportTaskInput,
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
  const domainName = domainOf(message.from.address);
  const domain: TransportDomain = (await getDomain(deps.db, domainName)) ?? {
    domain: domainName,
    tenant_id: message.tenant_id,
    transport: 'test',
  };
  const budget = adapterBudgetMs(spec);
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error('transport deadline')), budget);
  const request: TransportRequest = {
    tenant_id: message.tenant_id,
    identity_id: message.identity_id,
    message_id: message.id,
    claim_token: input.claim.token,
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
      .map((d) => ({ address: d.address, field: d.field })),
    domain,
    deadline: deps.clock() + budget,
    signal: controller.signal,
  };
  try {
    return await transport.send(request);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Claim's choice of transport task (the ASL's `ByProvider`): a test tenant sends through the test
 * transports whatever its domain says; a live tenant through its sending domain's transport, which
 * must be deployed.
 */
export async function chooseClaimTransport(
  deps: Pick<Deps, 'db'>,
  message: {
    tenant_id: string;
    from: { address: string };
    deliveries?: { address: string; status: string }[];
  },
): Promise<TransportChoice> {
  const [tenant, domain] = await Promise.all([
    getTenant(deps.db, message.tenant_id),
    getDomain(deps.db, domainOf(message.from.address)),
  ]);
  const queued = (message.deliveries ?? []).filter((d) => d.status === 'queued');
  if (tenant?.mode !== 'live') return chooseTransport({ transport: 'test' }, queued, DEPLOYED_PROVIDERS);
  if (!domain || domain.tenant_id !== message.tenant_id || domain.transport === 'test' || !domain.transport) {
    return {
      provider: 'none',
      reason: 'sender_domain_unavailable',
      detail: 'the sender address is not on a sending domain of this tenant',
    };
  }
  return chooseTransport(domain, queued, DEPLOYED_PROVIDERS);
}
