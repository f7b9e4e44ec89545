/**
 * The API's error codes (each answer's `error.code`). A test checks this list against the server's
 * own list, so a code added there fails the client's suite until it is added here.
 */
export const ERROR_CODES = [
  'unauthenticated',
  'key_revoked',
  'key_expired',
  'key_not_found',
  'key_scope_exceeded',
  'tenant_exists',
  'policy_version_conflict',
  'address_taken',
  'client_id_conflict',
  'domain_unavailable',
  'permission_denied',
  'scope_denied',
  'guardrail_locked',
  'route_not_found',
  'method_not_allowed',
  'identity_not_found',
  'message_not_found',
  'rate_limited',
  'idempotency_key_required',
  'invalid_idempotency_key',
  'payload_too_large',
  'invalid_request',
  'idempotency_conflict',
  'request_in_progress',
  'tenant_suspended',
  'identity_paused',
  'identity_owner_required',
  'address_invalid',
  'address_unsupported',
  'too_many_recipients',
  'test_mode_recipient',
  'message_too_large',
  'header_not_allowed',
  'marketing_requirements_missing',
  'auto_reply_not_allowed',
  'domain_not_ready',
  'transport_unavailable',
  'daily_cap_reached',
  'billing_limit',
  'thread_busy',
  'thread_not_found',
  'all_recipients_suppressed',
  'recipient_blocked',
  'tenant_not_found',
  'suppression_not_found',
  'list_entry_not_found',
  'list_entry_conflict',
  'attachment_not_found',
  'not_cancelable',
  'not_pending_approval',
  'message_not_held',
  'invalid_label',
  'invalid_query',
  'too_many_labels',
  'not_uncertain',
  'not_retryable',
  'resolve_required',
  'webhook_not_found',
  'webhook_limit_reached',
  'webhook_disabled',
  'domain_not_found',
  'domain_exists',
  'template_not_found',
  'template_exists',
  'template_limit_reached',
  'invalid_template',
  'invalid_payload',
  'not_attempted',
  'unavailable',
  'internal_error',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/**
 * An error answer of the API. Match on `code` (stable), never on `message`. `requestId` is the
 * answer's Request-Id: quote it when reporting a problem. `retryAfter` is in seconds.
 */
export class PmailError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: Record<string, unknown>;
  readonly requestId: string | undefined;
  readonly retryable: boolean;
  readonly fix: string | undefined;
  readonly retryAfter: number | undefined;

  constructor(init: {
    code: ErrorCode;
    message: string;
    status: number;
    details?: Record<string, unknown>;
    requestId?: string;
    retryable?: boolean;
    fix?: string;
    retryAfter?: number;
  }) {
    super(init.message);
    this.name = 'PmailError';
    this.code = init.code;
    this.status = init.status;
    this.details = init.details ?? {};
    this.requestId = init.requestId;
    this.retryable = init.retryable ?? false;
    this.fix = init.fix;
    this.retryAfter = init.retryAfter;
  }
}

/** `messages.wait` saw no status it waits for within `timeoutMs`; `lastStatus` is the last one read. */
export class PmailWaitTimeoutError extends Error {
  readonly lastStatus: string;
  constructor(messageId: string, lastStatus: string, timeoutMs: number) {
    super(`message ${messageId} is still ${lastStatus} after ${timeoutMs} ms`);
    this.name = 'PmailWaitTimeoutError';
    this.lastStatus = lastStatus;
  }
}

/** A webhook delivery that does not verify: no or a wrong signature, or a timestamp out of range. */
export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

/** The PmailError of an error answer (the `Error` envelope), or a generic one for a foreign body. */
export function errorFromResponse(response: Response, body: unknown): PmailError {
  const env = (body as { error?: Record<string, unknown> } | undefined)?.error;
  const requestId = response.headers.get('request-id') ?? undefined;
  const retryAfter = parseRetryAfterSeconds(response.headers.get('retry-after'));
  if (env && typeof env.code === 'string') {
    return new PmailError({
      code: env.code as ErrorCode,
      message: typeof env.message === 'string' ? env.message : env.code,
      status: response.status,
      details: (env.details as Record<string, unknown> | undefined) ?? {},
      requestId: typeof env.request_id === 'string' ? env.request_id : requestId,
      retryable: env.retryable === true,
      fix: typeof env.fix === 'string' ? env.fix : undefined,
      retryAfter,
    });
  }
  // An answer without pmail's envelope (a proxy, a gateway): classified by its status alone.
  return new PmailError({
    code: response.status >= 500 ? 'unavailable' : 'invalid_request',
    message: `HTTP ${response.status} without an error body`,
    status: response.status,
    requestId,
    retryable: response.status >= 500 || response.status === 429,
    retryAfter,
  });
}

/** Retry-After in seconds: delta-seconds only (what pmail sends); anything else is ignored. */
export function parseRetryAfterSeconds(value: string | null): number | undefined {
  if (value === null || !/^\d+$/.test(value.trim())) return undefined;
  return Number(value.trim());
}
