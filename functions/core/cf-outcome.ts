import type { RecipientRefusal, TransportResult } from './transport-result.ts';

/**
 * Cloudflare Email Sending REST answers → transport results (the
 * classification of core/transport-result.ts). Read 2026-12-03 from the Email Service docs:
 * "Send emails › REST API" (developers.cloudflare.com/email-service/api/send-emails/rest-api/,
 * cloudflare/cloudflare-docs `email-service/api/send-emails/rest-api.mdx`), "Suppression lists"
 * (`email-service/concepts/suppressions.mdx`) and the Workers API error codes
 * (`email-service/api/send-emails/workers-api.mdx`).
 *
 * The REST API answers `{ success, errors: [{ code, message }], messages, result }`; success carries
 * `result.{delivered[], permanent_bounces[], queued[]}` and no message id. Its error table, mapped to
 * the codes of the Workers binding (the Workers API error codes above):
 * | HTTP / code | message | binding equivalent | result |
 * | 400 10001 | invalid_request_schema | E_VALIDATION_ERROR, E_FIELD_MISSING, E_HEADER_* | Rejected provider_validation |
 * | 400 10200 | email.too_big | E_CONTENT_TOO_LARGE | Rejected provider_validation |
 * | 400 10201, 10202 | no_content_length, email.invalid | E_VALIDATION_ERROR | Rejected provider_validation |
 * | 401 10101, 10103; 403 10102, 10105; 404 10000 | authentication.*, not_found | E_SENDER_NOT_VERIFIED, E_SENDER_DOMAIN_NOT_AVAILABLE | Rejected sender_domain_unavailable |
 * | 403 10203 | email.sending_disabled | sending disabled | RetryLater Paused |
 * | 429 10004 | throttled | E_RATE_LIMIT_EXCEEDED | RetryLater RateLimit (a message naming the daily limit: Quota) |
 * | 500 10002, 10003; 503 10100; any other code | internal_server … | E_INTERNAL_SERVER_ERROR | Unknown |
 * The REST table has no code for a suppressed recipient: the suppression page says only that the
 * REST API "returns 400" and rejects the whole request when any recipient is suppressed. An error
 * whose code or message names a suppression (`E_RECIPIENT_SUPPRESSED`, `…suppress…`) is read as
 * that; any other unrecognised 400 code is Unknown like every unrecognised code (the table's rule).
 * Binding-style string codes in `errors[].code` or `message` (E_DELIVERY_FAILED, E_RECIPIENT_NOT_ALLOWED,
 * E_DAILY_LIMIT_EXCEEDED, …) are read as the binding column of the table says, should the REST API
 * ever answer with them.
 */
export type CfAnswer =
  | { type: 'http'; status: number; body: unknown }
  /** No HTTP answer: a timeout (the request signal), a reset, a refused connection. */
  | { type: 'no_answer'; timed_out: boolean; detail: string };

export type CfOutcome =
  | TransportResult
  /** The whole request was refused because a recipient is on Cloudflare's suppression list. */
  | { type: 'recipient_suppressed'; code: string; detail: string };

interface CfError {
  code?: number | string;
  message?: string;
}

interface CfBody {
  success?: boolean;
  errors?: CfError[];
  result?: {
    delivered?: unknown;
    permanent_bounces?: unknown;
    queued?: unknown;
    message_id?: unknown;
    messageId?: unknown;
  } | null;
}

const VALIDATION = new Set(['10001', '10200', '10201', '10202']);
const SENDER = new Set(['10000', '10101', '10102', '10103', '10105']);
const BINDING_VALIDATION =
  /^E_(VALIDATION_ERROR|FIELD_MISSING|TOO_MANY_RECIPIENTS|TOO_MANY_ATTACHMENTS|CONTENT_TOO_LARGE|HEADER|HEADERS_|DELIVERY_FAILED|RECIPIENT_NOT_ALLOWED)/;
const BINDING_SENDER = /^E_(SENDER_DOMAIN_NOT_AVAILABLE|SENDER_NOT_VERIFIED)/;

/** The provider id of a REST send: the answer has none (see cloudflare.transport.ts › events). */
export const cfRestProviderMessageId = (messageId: string): string => `cf-rest:${messageId}`;

/** A provider id that still waits for Cloudflare's own messageId (core/reconcile.ts › adoptCandidates). */
export const isCfRestProviderId = (pid: string | undefined): boolean => !!pid?.startsWith('cf-rest:');

const strings = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];

export function classifyCloudflare(answer: CfAnswer, messageId: string): CfOutcome {
  const provider = 'cloudflare';
  if (answer.type === 'no_answer') {
    return {
      type: 'unknown',
      provider,
      reason: answer.timed_out ? 'transport_timeout' : 'transport_connection_lost',
      detail: `no answer from the Cloudflare API: ${answer.detail}`.slice(0, 512),
    };
  }
  const body = (answer.body && typeof answer.body === 'object' ? answer.body : {}) as CfBody;
  const { status } = answer;
  if (status >= 200 && status < 300) return classifyAccepted(status, body, messageId);
  return classifyError(status, body);
}

/** A 2xx answer: accepted, with its permanent bounces refused; unreadable, the outcome is unknown. */
function classifyAccepted(status: number, body: CfBody, messageId: string): CfOutcome {
  const provider = 'cloudflare';
  const result = body.result;
  if (body.success === false || !result || typeof result !== 'object') {
    return {
      type: 'unknown',
      provider,
      reason: 'transport_connection_lost',
      detail: `HTTP ${status} without a readable result`,
    };
  }
  const bounced = strings(result.permanent_bounces);
  const refused: RecipientRefusal[] = bounced.map((address) => ({
    address,
    code: '550',
    detail: 'cloudflare: permanent bounce at submission',
  }));
  const id =
    typeof result.message_id === 'string'
      ? result.message_id
      : typeof result.messageId === 'string'
        ? result.messageId
        : undefined;
  return {
    type: 'accepted',
    provider,
    provider_message_id: id ?? cfRestProviderMessageId(messageId),
    refused,
    deferred: [],
  };
}

/** An error answer, by its code and message: the decision table of the contract. */
function classifyError(status: number, body: CfBody): CfOutcome {
  const provider = 'cloudflare';
  const err = body.errors?.[0] ?? {};
  const code = String(err.code ?? '');
  const message = String(err.message ?? '');
  const label = `${status} ${code} ${message}`.trim().slice(0, 300);
  const named = (re: RegExp) => re.test(code) || re.test(message);
  if (named(/E_RECIPIENT_SUPPRESSED/) || (status === 400 && /suppress/i.test(`${code} ${message}`))) {
    return { type: 'recipient_suppressed', code: code || 'E_RECIPIENT_SUPPRESSED', detail: label };
  }
  if (code === '10203' || /sending_disabled/.test(message)) {
    return { type: 'retry_later', provider, class: 'Paused', code: code || 'sending_disabled', refused: [] };
  }
  if (named(/E_DAILY_LIMIT_EXCEEDED/) || (status === 429 && /daily/i.test(message))) {
    return {
      type: 'retry_later',
      provider,
      class: 'Quota',
      code: code || 'E_DAILY_LIMIT_EXCEEDED',
      refused: [],
    };
  }
  if (code === '10004' || named(/E_RATE_LIMIT_EXCEEDED/)) {
    return {
      type: 'retry_later',
      provider,
      class: 'RateLimit',
      code: code || 'E_RATE_LIMIT_EXCEEDED',
      refused: [],
    };
  }
  if ((status === 400 && VALIDATION.has(code)) || BINDING_VALIDATION.test(code)) {
    return {
      type: 'rejected',
      provider,
      reason: 'provider_validation',
      code: code || String(status),
      detail: label,
    };
  }
  if (
    ((status === 401 || status === 403 || status === 404) && SENDER.has(code)) ||
    BINDING_SENDER.test(code)
  ) {
    return { type: 'rejected', provider, reason: 'sender_domain_unavailable', code, detail: label };
  }
  // 5xx, an unrecognised code, an error without a code: the message may have left.
  return { type: 'unknown', provider, reason: 'transport_connection_lost', detail: `cloudflare: ${label}` };
}
