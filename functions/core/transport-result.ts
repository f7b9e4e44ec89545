/**
 * What a transport reports for one provider call. Transports never throw for
 * a classified provider answer; an exception or a timeout in the transport task is `unknown`.
 */
export interface RecipientRefusal {
  address: string;
  code: string;
  detail: string;
}

/** Loopback: one recipient's mailbox that receives the composed message as inbound mail. */
export interface LoopbackCopy {
  recipient: string;
  tenant_id: string;
  identity_id: string;
}

export type RejectReason =
  | 'provider_validation'
  | 'domain_failing_no_fallback'
  | 'sender_domain_unavailable'
  | 'recipient_suppressed_by_provider';
export type RetryClass = 'RateLimit' | 'Quota' | 'Paused' | 'Relay';
export type UncertainReason = 'transport_timeout' | 'transport_connection_lost';

/**
 * A recipient whose own provider call's answer was lost (the SMTP relay sends one envelope per
 * recipient): Record makes that delivery `uncertain` and never resends it; the call's other
 * recipients take their own outcomes.
 */
export interface RecipientUncertain {
  address: string;
  reason: UncertainReason;
  detail: string;
}

/**
 * A recipient the provider refused to send to
 * because it is on the provider's own suppression list. The transport only reports it; Record marks
 * the delivery `suppressed` and adds pmail's suppression with reason `provider`.
 */
export interface ProviderSuppression {
  address: string;
  /** The provider's reason (`hard_bounce`, `complaint`, `manual`, `policy`, …), if it said. */
  reason?: string;
}

export type TransportResult = TransportOutcome & {
  /** Recipients the provider suppressed (Cloudflare's rounds); the outcome covers the others. */
  provider_suppressed?: ProviderSuppression[];
};

type TransportOutcome =
  | {
      type: 'accepted';
      provider: string;
      provider_message_id: string;
      rfc_message_id?: string;
      refused: RecipientRefusal[];
      /**
       * SMTP only: recipients answered 4xx (to RCPT TO, or to their own envelope's final dot), or
       * never tried after an earlier envelope lost the connection; they stay queued for a retry.
       */
      deferred: string[];
      /** SMTP only: recipients whose own envelope's answer was lost after its final dot. */
      uncertain?: RecipientUncertain[];
      /** Loopback only: the inbound copies to deliver (written by Record, never by the transport). */
      loopback?: LoopbackCopy[];
    }
  | {
      type: 'rejected';
      provider?: string;
      reason: RejectReason;
      code: string;
      detail: string;
      /** Definitely not sent; `failed` when nothing was wrong with the message (a failing domain). */
      status?: 'rejected' | 'failed';
    }
  | { type: 'retry_later'; provider?: string; class: RetryClass; code: string; refused: RecipientRefusal[] }
  | { type: 'unknown'; provider?: string; reason: UncertainReason; detail: string };

/**
 * The transport task's answer when its claim-and-mark write was refused because another decision
 * won (core/send-attempt.ts › sendingRefusal: a duplicate execution's claim, a cancel): the provider
 * was not called and there is nothing to record. The send-attempt machine ends there (`Sent?`);
 * Record ignores it too, since the claim is not this token's.
 */
export interface NotClaimed {
  type: 'not_claimed';
  detail: string;
}

/** What a transport task answers the send-attempt machine. */
export type TransportTaskResult = TransportResult | NotClaimed;
