import type { TransportResult } from './transport-result.ts';

/**
 * Amazon SES v2 `SendEmail` (raw): every answer of one SendEmail call,
 * classified. Sources: the SendEmail reference, "Errors" section (AccountSuspendedException,
 * BadRequestException, LimitExceededException, MailFromDomainNotVerifiedException, MessageRejected,
 * NotFoundException, SendingPausedException, TooManyRequestsException) —
 * https://docs.aws.amazon.com/goto/WebAPI/sesv2-2019-09-27/SendEmail — and the SES sending-quota page
 * (a daily quota reached answers "Daily message quota exceeded"). An answer the table does not
 * classify as definitive is unknown: `uncertain` is preferred over a retry that could send twice.
 */

/** What one SendEmail call produced, as the adapter observed it. */
export type SesAnswer =
  /** 200 with a MessageId. */
  | { type: 'ok'; message_id: string }
  /** An HTTP answer with an error: the SDK's error name (x-amzn-ErrorType or body code) and status. */
  | { type: 'error'; name: string; status: number; message?: string }
  /** No answer: a connection error, a reset after the request was written, a timeout, an abort. */
  | { type: 'no_answer'; timeout: boolean; detail: string };

/** What pmail does besides recording the result (operators' alerts; the domain's health check). */
export type SesFollowUp = 'domain_check' | 'provider_quota' | 'operator_alert';

export interface SesOutcome {
  result: TransportResult;
  follow_up?: SesFollowUp;
}

const SENDER_UNAVAILABLE = new Set(['MailFromDomainNotVerifiedException', 'NotFoundException']);
const RATE_LIMITED = new Set(['TooManyRequestsException', 'Throttling', 'ThrottlingException']);
const PAUSED = new Set(['AccountSuspendedException', 'SendingPausedException']);
/** Names the SDK gives an error it could not read a type from: not a classified answer. */
const UNTYPED = new Set(['', 'Error', 'UnknownError', 'SESv2ServiceException']);

/**
 * `senderDomain`: the From address's domain. A MessageRejected naming it as "not verified" is the
 * sender's identity (sender_domain_unavailable); any other MessageRejected is about the message or
 * its recipients (provider_validation), e.g. the sandbox's unverified recipients.
 */
export function classifySesAnswer(answer: SesAnswer, senderDomain: string): SesOutcome {
  if (answer.type === 'ok') {
    return {
      result: {
        type: 'accepted',
        provider: 'ses',
        provider_message_id: answer.message_id,
        refused: [],
        deferred: [],
      },
    };
  }
  if (answer.type === 'no_answer') return unknown(answer.timeout, answer.detail);
  const { name, status } = answer;
  const message = (answer.message ?? '').slice(0, 300);
  const detail = message ? `${name}: ${message}` : name;
  if (status >= 500 || status < 400) return unknown(false, `SES answered ${status} ${detail}`);
  if (status === 429 || RATE_LIMITED.has(name)) {
    const daily = /daily message quota/i.test(message);
    return {
      result: {
        type: 'retry_later',
        provider: 'ses',
        class: daily ? 'Quota' : 'RateLimit',
        code: name,
        refused: [],
      },
      ...(daily ? { follow_up: 'provider_quota' as const } : {}),
    };
  }
  if (name === 'LimitExceededException') {
    return {
      result: { type: 'retry_later', provider: 'ses', class: 'Quota', code: name, refused: [] },
      follow_up: 'provider_quota',
    };
  }
  if (PAUSED.has(name)) {
    return {
      result: { type: 'retry_later', provider: 'ses', class: 'Paused', code: name, refused: [] },
      follow_up: 'operator_alert',
    };
  }
  if (
    SENDER_UNAVAILABLE.has(name) ||
    (name === 'MessageRejected' && senderNotVerified(message, senderDomain))
  ) {
    return {
      result: { type: 'rejected', provider: 'ses', reason: 'sender_domain_unavailable', code: name, detail },
      follow_up: 'domain_check',
    };
  }
  if (UNTYPED.has(name)) return unknown(false, `SES answered ${status} without an error type`);
  return {
    result: { type: 'rejected', provider: 'ses', reason: 'provider_validation', code: name, detail },
  };
}

function senderNotVerified(message: string, senderDomain: string): boolean {
  const m = message.toLowerCase();
  return m.includes('not verified') && senderDomain !== '' && m.includes(senderDomain.toLowerCase());
}

function unknown(timeout: boolean, detail: string): SesOutcome {
  return {
    result: {
      type: 'unknown',
      provider: 'ses',
      reason: timeout ? 'transport_timeout' : 'transport_connection_lost',
      detail: detail.slice(0, 512),
    },
  };
}
