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
  | 'guardrail_locked'
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
  | 'list_entry_conflict'
  | 'attachment_not_found'
  | 'not_cancelable'
  | 'not_pending_approval'
  | 'message_not_held'
  | 'invalid_label'
  | 'invalid_query'
  | 'too_many_labels'
  | 'not_uncertain'
  | 'not_retryable'
  | 'resolve_required'
  | 'webhook_not_found'
  | 'webhook_limit_reached'
  | 'webhook_disabled'
  | 'domain_not_found'
  | 'domain_exists'
  | 'template_not_found'
  | 'template_exists'
  | 'template_limit_reached'
  | 'invalid_template'
  | 'invalid_payload'
  | 'not_attempted'
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

/*
 * Named errors: a refusal raised in more than one place is built here, so its text is written once.
 */

export const routeNotFound = () => new PmailError('route_not_found', 'No such route.');

export const messageNotFound = () =>
  new PmailError('message_not_found', 'No message with this id in this identity.');

export const threadNotFound = () =>
  new PmailError('thread_not_found', 'No thread with this id in this identity.');

export const identityNotFound = () =>
  new PmailError('identity_not_found', 'No identity with this id is visible to this key.');

export const tenantNotFound = () =>
  new PmailError('tenant_not_found', 'No tenant with this id is visible to this key.');

export const keyNotFound = () =>
  new PmailError('key_not_found', 'No key with this id is visible to this key.');

export const listEntryNotFound = () => new PmailError('list_entry_not_found', 'No such entry on this list.');

export const templateNotFound = (template: string) =>
  new PmailError('template_not_found', 'No template with this name in this tenant.', {
    details: { template },
  });

/** A domain being removed or removed: nothing changes or checks it any more. */
export const domainRemoved = () => new PmailError('domain_not_found', 'This domain was removed.');

export const webhookNotFound = () => new PmailError('webhook_not_found', 'No webhook endpoint with this id.');

/** The Idempotency-Key's first request still holds it. */
export const requestInProgress = () =>
  new PmailError('request_in_progress', 'A request with this Idempotency-Key is still running.');

/** A body that does not parse as JSON. */
export const invalidJson = () =>
  invalidRequest([{ path: '', message: 'not valid JSON' }], 'The request body is not valid JSON.');

/** A query string that its schema refuses. */
export const invalidQuery = (errors: FieldError[]) => invalidRequest(errors, 'The query is not valid.');

/** A search `q` outside its limits (core/search-text.ts › parseSearchQuery). */
export const invalidSearchQuery = (message: string) =>
  new PmailError('invalid_query', `The search query is not valid: ${message}`, {
    details: { errors: [{ path: 'q', message }] },
  });

/** A cursor that no page handed out. */
export const invalidCursor = () =>
  invalidRequest(
    [{ path: 'cursor', message: 'use next_cursor from a previous page' }],
    'The cursor is not valid.',
  );

/** A body above the route's limit (`core/limits.ts`: MAX_BODY_BYTES, a batch's MAX_BATCH_BODY_BYTES). */
export const payloadTooLarge = (maxBytes: number) =>
  new PmailError('payload_too_large', `The request body is larger than ${maxBytes / (1024 * 1024)} MiB.`, {
    details: { max_bytes: maxBytes },
  });

/** A batch of sends with an Idempotency-Key header: each message carries its own key (core/batch.ts). */
export const batchKeyHeader = () =>
  invalidRequest(
    [{ path: 'Idempotency-Key', message: 'not on a batch: give each message its idempotency_key' }],
    'A batch takes no Idempotency-Key header; each message carries its own idempotency_key.',
  );

/** A message of a batch not reached within the batch's time budget: nothing of it was done. */
export const notAttempted = () =>
  new PmailError(
    'not_attempted',
    'The batch ran out of time before this message; nothing of it was done. Send it again with the same idempotency_key.',
  );

/** The composed MIME above the transport's limit. */
export const messageTooLarge = (sizeBytes: number, maxBytes: number) =>
  new PmailError('message_too_large', 'The composed message is larger than the transport limit.', {
    details: { size_bytes: sizeBytes, max_bytes: maxBytes },
  });

/** An item that kept moving under a read-then-write; the client retries (`what`: "key", "tenant", …). */
export const keptChanging = (what: string) =>
  new PmailError('unavailable', `The ${what} kept changing; retry.`, { retryAfter: 1 });

export const policyVersionConflict = (policyVersion: number) =>
  new PmailError('policy_version_conflict', 'The policy changed since policy_version.', {
    details: { policy_version: policyVersion },
  });

/** The key lacks the permission a route or a change needs (`details.required`). */
export const permissionDenied = (permission: string) =>
  new PmailError('permission_denied', `This key lacks the ${permission} permission.`, {
    details: { required: permission },
  });

/**
 * A change the calling key's level may not make (functions/core/guardrails.ts): `change` names it,
 * `what` says it in words, `required_level` is the narrowest level that may.
 */
export const guardrailLocked = (change: string, what: string, requiredLevel: string, keyLevel: string) =>
  new PmailError(
    'guardrail_locked',
    `${keyLevel === 'identity' ? 'An' : 'A'} ${keyLevel} key cannot ${what}; that needs a ${requiredLevel}-level key or wider.`,
    { details: { change, required_level: requiredLevel, key_level: keyLevel } },
  );

/** A key below platform level setting an identity's `send_policy.daily_cap` above the tenant's ceiling. */
export const identityCapAboveCeiling = (ceiling: number) =>
  new PmailError('scope_denied', 'Only a platform key can set a daily cap above the tenant’s.', {
    details: { field: 'send_policy.daily_cap', ceiling, required_level: 'platform' },
  });

/** A new key that would outlive the identity key minting it. */
export const keyOutlivesCaller = (expiresAt: number) =>
  new PmailError('key_scope_exceeded', 'The new key would outlive the calling key.', {
    details: { reason: 'expires_after_caller', max_expires_at: new Date(expiresAt).toISOString() },
  });

/** This deployment has no store for SMTP relay credentials. */
export const relayCredentialsUnavailable = () =>
  new PmailError('unavailable', 'Relay credentials cannot be stored by this deployment.');

/**
 * A cancel refused (the message is past queued, claimed, or partly sent). A class, so a caller that
 * cancels on its own account (the claim's re-check) steers on it rather than on the code.
 */
export class NotCancelableError extends PmailError {
  constructor(status: string) {
    super('not_cancelable', 'Only a queued message that no attempt is sending can be canceled.', {
      details: { status },
    });
  }
}

/** A label a change would add outside the label alphabet (core/labels.ts › LABEL_PATTERN). */
export const invalidLabel = (errors: FieldError[]) =>
  new PmailError('invalid_label', 'A label is outside the label alphabet or length.', {
    details: { errors },
  });

/** A change that would leave a message or thread with more than `max` labels (core/labels.ts). */
export const tooManyLabels = (max: number, would: number) =>
  new PmailError('too_many_labels', `At most ${max} labels per message or thread.`, {
    details: { max_labels: max, would_have: would },
  });
