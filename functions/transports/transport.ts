import type { DomainRecord, MessageKind, Provider, RecipientField, TransportDomain } from '../core/model.ts';
import { isSimulatorAddress } from '../core/simulator.ts';
import type { TransportResult } from '../core/transport-result.ts';

/**
 * The transport port (the ASL's `ByProvider` picks one). Every
 * adapter — simulator, loopback, SES, the SMTP relay and Cloudflare — takes
 * one `TransportRequest` and answers one `TransportResult`, making at most one provider call. An
 * adapter gets narrow injected clients (never the whole `Deps`), never writes the store, never
 * retries, and classifies every provider answer with the pure tables of functions/core/. It may
 * throw only for what it cannot classify; the task around it (functions/send/transport-task.ts) and
 * the ASL's Catch turn that into `unknown` → `uncertain`.
 */

/** The providers the send-attempt machine can choose between (one transport task each). */
export type TransportProvider = Extract<Provider, 'simulator' | 'loopback' | 'ses' | 'smtp' | 'cloudflare'>;

/** A recipient still queued on the message: the only ones a transport sends to. */
export interface TransportRecipient {
  address: string;
  /** Bcc recipients travel only in the envelope (never as a header: the stored .eml has none). */
  field: RecipientField;
  /** The SMTP relay only: this recipient's envelope sender, a signed return path (core/return-path.ts). */
  return_path?: string;
}

/** The composed MIME as stored (`t/{ten}/i/{idn}/out/{msg}.eml`): its key, size and a reader. */
export interface StoredMime {
  key: string;
  size: number;
  /** Reads the stored bytes (S3 in AWS, the blob folder locally). */
  load(): Promise<Uint8Array>;
}

export type { TransportDomain } from '../core/model.ts';

export interface TransportRequest {
  tenant_id: string;
  identity_id: string;
  message_id: string;
  /** The claim this provider call belongs to (already marked `sending`). */
  claim_token: string;
  /** 1 for the first attempt, n + 1 after n back-offs (the simulator's scripts read it). */
  attempt: number;
  mime: StoredMime;
  /** The composed Message-ID (without brackets), as in the stored copy. */
  rfc_message_id: string;
  subject: string;
  kind: MessageKind;
  /** The header From address. */
  from: string;
  /** The envelope sender (MAIL FROM / SES FromEmailAddress). */
  envelope_from: string;
  /** The queued recipients, in the order of the message (to, cc, bcc). */
  recipients: TransportRecipient[];
  domain: TransportDomain;
  /** Epoch ms by which the adapter must have answered (inside the ASL task's timeout). */
  deadline: number;
  /** Aborted at the deadline: pass it to every network call. */
  signal: AbortSignal;
}

/** One adapter: one provider call per request (a resend is decided above it, never inside). */
export interface Transport {
  readonly provider: TransportProvider;
  send(request: TransportRequest): Promise<TransportResult>;
}

export type TransportChoice =
  | { provider: TransportProvider }
  /** Nothing can be sent (no transport, a failing or removed domain): Record applies `result`. */
  | { provider: 'none'; result: Extract<TransportResult, { type: 'rejected' }> };

/**
 * The resolver: which transport sends a message, from the sending domain's `transport`. A `test`
 * domain (test tenants) sends through the simulator when any queued recipient is a simulator
 * address (its other recipients go to loopback within the same call), else through loopback.
 */
export function chooseTransport(
  domain: Pick<DomainRecord, 'transport'> | undefined,
  recipients: readonly { address: string }[],
  available: readonly TransportProvider[],
): TransportChoice {
  const transport = domain?.transport ?? 'test';
  const provider: TransportProvider =
    transport === 'test'
      ? recipients.some((r) => isSimulatorAddress(r.address))
        ? 'simulator'
        : 'loopback'
      : transport;
  if (!available.includes(provider))
    return noTransport(`no ${provider} transport is deployed for this sending domain`);
  return { provider };
}

/** Nothing can send the message: Record rejects it as `sender_domain_unavailable`. */
export function noTransport(detail: string): TransportChoice {
  return {
    provider: 'none',
    result: { type: 'rejected', reason: 'sender_domain_unavailable', code: 'E_NO_TRANSPORT', detail },
  };
}
