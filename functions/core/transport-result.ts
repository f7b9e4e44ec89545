/**
 * seed 000 › Transports: what a transport reports for one provider call. Transports never throw for
 * a classified provider answer; an exception or a timeout in the transport task is `unknown`.
 */
export interface RecipientRefusal {
  address: string;
  code: string;
  detail: string;
}

/** seed 000 › Loopback: one recipient's mailbox that receives the composed message as inbound mail. */
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

export type TransportResult =
  | {
      type: 'accepted';
      provider: string;
      provider_message_id: string;
      rfc_message_id?: string;
      refused: RecipientRefusal[];
      /** SMTP only: recipients answered 4xx to RCPT TO; they stay queued for a retry. */
      deferred: string[];
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
