/**
 * Domain errors with stable codes. The core never mentions HTTP: functions/api/http.ts
 * maps each code to a status. Match with `instanceof PmailError` and `code`, never on messages.
 */
export type ErrorCode =
  | 'unauthenticated'
  | 'key_revoked'
  | 'key_expired'
  | 'key_not_found'
  | 'key_scope_exceeded'
  | 'tenant_exists'
  | 'policy_version_conflict'
  | 'address_taken'
  | 'client_id_conflict'
  | 'domain_unavailable'
  | 'permission_denied'
  | 'scope_denied'
  | 'route_not_found'
  | 'method_not_allowed'
  | 'identity_not_found'
  | 'message_not_found'
  | 'rate_limited'
  | 'idempotency_key_required'
  | 'invalid_idempotency_key'
  | 'payload_too_large'
  | 'invalid_request'
  | 'idempotency_conflict'
  | 'request_in_progress'
  | 'tenant_suspended'
  | 'identity_paused'
  | 'identity_owner_required'
  | 'address_invalid'
  | 'address_unsupported'
  | 'too_many_recipients'
  | 'test_mode_recipient'
  | 'message_too_large'
  | 'header_not_allowed'
  | 'marketing_requirements_missing'
  | 'auto_reply_not_allowed'
  | 'domain_not_ready'
  | 'transport_unavailable'
  | 'daily_cap_reached'
  | 'billing_limit'
  | 'thread_busy'
  | 'thread_not_found'
  | 'all_recipients_suppressed'
  | 'recipient_blocked'
  | 'tenant_not_found'
  | 'suppression_not_found'
  | 'list_entry_not_found'
  | 'attachment_not_found'
  | 'not_cancelable'
  | 'not_pending_approval'
  | 'not_uncertain'
  | 'not_retryable'
  | 'resolve_required'
  | 'webhook_not_found'
  | 'webhook_limit_reached'
  | 'domain_not_found'
  | 'domain_exists'
  | 'template_not_found'
  | 'template_exists'
  | 'template_limit_reached'
  | 'invalid_template'
  | 'invalid_payload'
  | 'unavailable'
  | 'internal_error';

export class PmailError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown> | undefined;
  /** Seconds a client should wait before retrying, when the error says so (Retry-After). */
  readonly retryAfter: number | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    opts: { details?: Record<string, unknown>; retryAfter?: number; cause?: unknown } = {},
  ) {
    super(message, { cause: opts.cause });
    this.name = 'PmailError';
    this.code = code;
    this.details = opts.details;
    this.retryAfter = opts.retryAfter;
  }
}

export interface FieldError {
  path: string;
  message: string;
}

export function invalidRequest(errors: FieldError[], message = 'The request body is not valid.'): PmailError {
  return new PmailError('invalid_request', message, { details: { errors } });
}
