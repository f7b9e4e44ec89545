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
 * Named errors: every refusal is built here, one function per kind, so its code, text and details are
 * written once (test/unit/refusals-by-name.test.ts fails on one built elsewhere).
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

/** The Idempotency-Key was used for another request (its original message, when it names one). */
export const idempotencyConflict = (originalMessageId?: string) =>
  new PmailError('idempotency_conflict', 'This Idempotency-Key was used for a different request.', {
    details: originalMessageId ? { original_message_id: originalMessageId } : {},
  });

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

/** A send's `send_at` in the past or beyond the schedule limit (core/limits.ts › MAX_SCHEDULE_MS). */
export const invalidSendAt = () =>
  new PmailError('invalid_request', 'send_at must be in the future and at most 30 days ahead.', {
    details: { errors: [{ path: 'send_at', message: 'in the future, at most 30 days ahead' }] },
  });

/** A `dry_run` query parameter other than true or false. */
export const invalidDryRun = () =>
  new PmailError('invalid_request', 'dry_run must be true or false.', {
    details: { errors: [{ path: 'dry_run', message: 'true or false' }] },
  });

/** The identity's rate window is full; the same key may be retried after `retryAfter` seconds. */
export const rateLimited = (retryAfter: number) =>
  new PmailError('rate_limited', 'Too many sends for this identity; wait and retry with the same key.', {
    retryAfter,
    details: { retry_after: retryAfter },
  });

/** The identity's or the tenant's daily cap (`limit`) is reached until `resetsAt`, the local midnight. */
export const dailyCapReached = (scope: 'identity' | 'tenant', limit: number, resetsAt: number, now: number) =>
  new PmailError('daily_cap_reached', `The ${scope}'s daily send cap is reached.`, {
    retryAfter: Math.max(1, Math.ceil((resetsAt - now) / 1000)),
    details: { cap: scope, limit, resets_at: new Date(resetsAt).toISOString() },
  });

/** Another message of the thread held its lock for longer than a send waits. */
export const threadBusy = (retryAfter: number) =>
  new PmailError('thread_busy', 'Another message of this thread is being sent.', {
    retryAfter,
    details: { retry_after: retryAfter },
  });

/** A dry run naming a recipient on the send-block list. */
export const recipientBlocked = (recipients: { address: string; field: string }[]) =>
  new PmailError('recipient_blocked', 'A recipient is on the send-block list.', { details: { recipients } });

/** A dry run whose every recipient is suppressed. */
export const allRecipientsSuppressed = (recipients: unknown[]) =>
  new PmailError('all_recipients_suppressed', 'Every recipient is suppressed; nothing would be sent.', {
    details: { recipients },
  });

/** A check's refusal at approval, answered with the message as the refusal left it. */
export const refusedAtApproval = (err: PmailError, message: unknown) =>
  new PmailError(err.code, err.message, {
    retryAfter: err.retryAfter,
    details: { ...(err.details ?? {}), message },
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

/* Authentication and keys. */

export const malformedAuthorization = () =>
  new PmailError('unauthenticated', 'Missing or malformed Authorization header.');

export const unknownApiKey = () => new PmailError('unauthenticated', 'Unknown API key.');

export const keyRevoked = () => new PmailError('key_revoked', 'This API key was revoked.');

export const keyExpired = () => new PmailError('key_expired', 'This API key has expired.');

/** A stream ticket unknown, used or expired (`used`: why, as redeemTicket says it). */
export const streamTicketUnusable = (used: string) =>
  new PmailError('unauthenticated', 'This stream ticket cannot be used.', {
    details: { reason: `ticket_${used}` },
  });

/** One field refused, its message the error's message too. */
export const invalidField = (path: string, message: string) =>
  new PmailError('invalid_request', message, { details: { errors: [{ path, message }] } });

/** Permissions a key of `level` may not hold (core/keys.ts › PERMISSION_LEVELS). */
export const permissionsNotForLevel = (level: string, refused: readonly string[]) =>
  new PmailError('invalid_request', `A ${level} key cannot hold ${refused.join(', ')}.`, {
    details: {
      reason: 'permission_not_allowed_for_level',
      errors: refused.map((p) => ({ path: 'permissions', message: `${p} is not allowed on a ${level} key` })),
    },
  });

/** A new key wider than the key minting it (`level`: the new key's). */
export const newKeyTooWide = (level: string) =>
  new PmailError('key_scope_exceeded', 'The new key would be wider than the calling key.', {
    details: { level },
  });

/** A key to read, rotate or revoke that is wider than the calling key (`level`: its level). */
export const keyTooWide = (level: string) =>
  new PmailError('key_scope_exceeded', 'This key is wider than the calling key.', { details: { level } });

export const expiredKeyNotRotated = () =>
  invalidRequest(
    [{ path: 'key_id', message: 'the key has expired' }],
    'An expired key cannot be rotated; mint a new one.',
  );

/** A route for which the key's level is none of `levels` (`what` names the route's subject). */
export const levelRequired = (what: string, levels: readonly string[]) =>
  new PmailError('scope_denied', `${what} needs a ${levels.join(' or ')} key.`, {
    details: { required_level: levels[levels.length - 1] },
  });

/** An identity key asking for what only a tenant-level key may do (`details.required`). */
export const tenantKeyRequired = (permission: string) =>
  new PmailError('permission_denied', `The ${permission} permission needs a tenant-level key.`, {
    details: { required: permission, reason: 'tenant_key_required' },
  });

/** A draft-only key (its sends need approval) trying what would switch that off (core/guardrails.ts). */
export const draftOnlyLocked = (level: string, what: string) =>
  new PmailError('guardrail_locked', `A draft-only key cannot ${what}: its sends need approval.`, {
    details: { change: 'key.sends_need_approval', required_level: 'tenant', key_level: level },
  });

/* Requests and routes. */

export const noRouteFor = (path: string) => new PmailError('route_not_found', `No route for ${path}.`);

export const noConsoleFile = () => new PmailError('route_not_found', 'No such console file.');

export const methodNotAllowed = (method: string, path: string, allow: string[]) =>
  new PmailError('method_not_allowed', `${method} is not allowed on ${path}.`, { details: { allow } });

/** A failure a retry may get past (throttling, a timeout), as the API answers it. */
export const briefOutage = (cause: unknown) =>
  new PmailError('unavailable', 'The service is briefly unavailable.', { cause, retryAfter: 1 });

/** A failure of ours that is no refusal, as the API answers it (the cause is logged, never shown). */
export const internalError = (cause: unknown) =>
  new PmailError('internal_error', 'Something went wrong on our side.', { cause });

export const idempotencyKeyRequired = () =>
  new PmailError('idempotency_key_required', 'A send needs an Idempotency-Key header.');

export const invalidIdempotencyKey = (pattern: string) =>
  new PmailError('invalid_idempotency_key', 'The Idempotency-Key must be 1–255 printable ASCII characters.', {
    details: { pattern },
  });

/** A stream opened with a ticket asking, on its URL, for other than the ticket holds. */
export const ticketMismatch = (paths: readonly string[]) =>
  new PmailError('invalid_request', 'The query is not valid.', {
    details: {
      reason: 'ticket_mismatch',
      errors: paths.map((path) => ({ path, message: 'not as the ticket was issued' })),
    },
  });

/** An MCP tool call without identity_id from a key of more than one identity. */
export const identityIdRequired = () =>
  new PmailError('invalid_request', 'identity_id is required for a key of more than one identity.', {
    details: { errors: [{ path: 'identity_id', message: 'required' }] },
  });

/* Tenants, identities and lists. */

export const tenantExists = (slug: string, holder: string | undefined) =>
  new PmailError('tenant_exists', 'A tenant with this slug exists.', {
    details: { slug, ...(holder ? { tenant_id: holder } : {}) },
  });

export const tenantSuspended = () => new PmailError('tenant_suspended', 'The tenant is suspended.');

export const identityPaused = (reason: string) =>
  new PmailError('identity_paused', 'The identity is paused and cannot send.', { details: { reason } });

/** An identity without an owner's name or email (`missing`: which). */
export const identityOwnerRequired = (missing: string[]) =>
  new PmailError('identity_owner_required', 'The identity has no accountable owner.', {
    details: { missing },
  });

export const usernameNotAscii = () =>
  new PmailError('address_unsupported', 'The username must be ASCII.', {
    details: { errors: [{ path: 'username', message: 'must be ASCII' }] },
  });

/** A username outside the pattern, reserved, or with a `+` (`reserved`: it is a reserved name). */
export const usernameRefused = (reserved: boolean) =>
  new PmailError('address_invalid', 'This username cannot be used.', {
    details: {
      errors: [{ path: 'username', message: 'must match ^[a-z0-9][a-z0-9._-]{0,23}$ and not be reserved' }],
      ...(reserved ? { reason: 'reserved' } : {}),
    },
  });

export const addressTaken = (username: string, domain: string) =>
  new PmailError('address_taken', 'This address belongs to another identity or was retired.', {
    details: { username, domain },
  });

export const clientIdConflict = (identityId: string) =>
  new PmailError('client_id_conflict', 'This client_id made an identity with other fields.', {
    details: { identity_id: identityId },
  });

export const sendingDomainRequired = () =>
  new PmailError('domain_unavailable', 'A live tenant needs one of its sending domains.', {
    details: {
      reason: 'domain_required',
      errors: [{ path: 'domain', message: 'required for a live tenant' }],
    },
  });

export const noSuchSendingDomain = (domain: string) =>
  new PmailError('domain_unavailable', 'This tenant has no such sending domain.', {
    details: { reason: 'domain_not_found', domain },
  });

export const sendingDomainRemoved = (domain: string) =>
  new PmailError('domain_unavailable', 'This sending domain is being removed.', {
    details: { reason: 'domain_removed', domain },
  });

/** An address that does not parse (`message` says where, by `path`). */
export const addressInvalid = (path: string, message: string) =>
  new PmailError('address_invalid', message, { details: { errors: [{ path, message }] } });

/** An address this service cannot send to (a non-ASCII local part: no SMTPUTF8). */
export const addressUnsupported = (path: string, message: string) =>
  new PmailError('address_unsupported', message, { details: { errors: [{ path, message }] } });

export const invalidListEntry = (message: string) =>
  new PmailError('invalid_request', 'The list entry is not an address or @domain.', {
    details: { errors: [{ path: 'entry', message }] },
  });

export const listEntryConflict = (entry: unknown) =>
  new PmailError('list_entry_conflict', 'The entry is on the list with another unauthenticated.', {
    details: { entry },
  });

export const suppressionNotFound = () =>
  new PmailError('suppression_not_found', 'This address is not suppressed.');

/* Domains. */

export const domainNotFound = () =>
  new PmailError('domain_not_found', 'No domain with this id in this tenant.');

export const domainExists = (name: string) =>
  new PmailError('domain_exists', 'This domain is already a sending domain of a tenant.', {
    details: { name },
  });

/** The domain's item changed under a read-then-write; the client retries. */
export const domainBusy = () =>
  new PmailError('unavailable', 'The domain changed while this request ran; retry.', {
    details: { reason: 'domain_busy' },
  });

export const relaySecretNotStored = () =>
  new PmailError('unavailable', 'The relay credentials could not be stored; retry with PATCH.', {
    details: { reason: 'secret_store_unavailable' },
  });

export const relayProbeUnavailable = () =>
  new PmailError('unavailable', 'The SMTP relay probe is not available here.');

/* Webhooks and templates. */

export const webhookDisabled = (reason: string | null) =>
  new PmailError('webhook_disabled', 'This webhook endpoint is disabled; it receives no events.', {
    details: { disabled_reason: reason },
  });

export const webhookLimitReached = (limit: number) =>
  new PmailError('webhook_limit_reached', `A tenant has at most ${limit} webhook endpoints.`, {
    details: { limit },
  });

export const templateExists = (template: string) =>
  new PmailError('template_exists', 'A template with this name exists in this tenant.', {
    details: { template },
  });

export const templateLimitReached = (limit: number) =>
  new PmailError('template_limit_reached', 'This tenant has as many templates as it may keep.', {
    details: { limit },
  });

export const invalidTemplate = (errors: FieldError[]) =>
  new PmailError('invalid_template', 'The template is not valid.', { details: { errors } });

/** Variables the template's schema refuses (`errors`: already cut to what is answered). */
export const variablesRefused = (template: string, version: number, errors: unknown[]) =>
  new PmailError('invalid_payload', "The variables do not match the template's schema.", {
    details: { template, version, errors },
  });

/** A render that failed: terminal, and the engine's message is not passed on (it could quote a variable). */
export const renderFailed = (template: string, version: number) =>
  new PmailError('invalid_payload', 'The template could not render with these variables.', {
    details: {
      template,
      version,
      errors: [
        { instance_path: '', keyword: 'render', schema_path: '#', message: 'the template failed to render' },
      ],
    },
  });

export const marketingTemplateWithoutUnsubscribe = (template: string) =>
  new PmailError(
    'marketing_requirements_missing',
    'A marketing template cannot render without an HTTPS unsubscribe.url.',
    {
      details: { missing: ['unsubscribe.url'], template },
    },
  );

/* Sends and messages. */

export const noRecipients = () =>
  invalidRequest(
    [{ path: 'to', message: 'at least one recipient in to, cc or bcc is required' }],
    'A message needs at least one recipient.',
  );

export const tooManyRecipients = (max: number, count: number) =>
  new PmailError('too_many_recipients', `A message may have at most ${max} recipients.`, {
    details: { max_recipients: max, count },
  });

export const testModeRecipient = (fields: string[]) =>
  new PmailError(
    'test_mode_recipient',
    'A test tenant can send only to @simulator.invalid and to addresses of identities on this deployment.',
    { details: { fields } },
  );

/** A marketing send without an HTTPS unsubscribe URL or consent (`missing`: which). */
export const marketingSendIncomplete = (missing: string[]) =>
  new PmailError(
    'marketing_requirements_missing',
    'A marketing send needs unsubscribe.url (HTTPS) and consent.',
    {
      details: { missing },
    },
  );

/** An automatic reply refused (`reason`; the exchange cap when that is the reason). */
export const autoReplyNotAllowed = (reason: string, maxExchanges: number) =>
  new PmailError('auto_reply_not_allowed', 'This automatic reply is not allowed.', {
    details: {
      reason,
      ...(reason === 'exchange_cap_reached' ? { max_automatic_exchanges: maxExchanges } : {}),
    },
  });

export const domainNotReady = (domain: string, state: string) =>
  new PmailError('domain_not_ready', 'The sending domain is not verified yet.', {
    details: { domain, state },
  });

export const transportUnavailable = (reason: string) =>
  new PmailError('transport_unavailable', 'The sending domain cannot send this message.', {
    details: { reason },
  });

export const invalidContent = (errors: FieldError[]) =>
  invalidRequest(errors, 'The message content is not valid.');

export const headerNotAllowed = (errors: FieldError[]) =>
  new PmailError('header_not_allowed', 'A custom header is not allowed.', { details: { errors } });

export const invalidHeaders = (errors: FieldError[]) =>
  invalidRequest(errors, 'A custom header is not valid.');

/** A message list's filters given with `after` (a read on in commit order takes none). */
export const filtersWithAfter = () =>
  invalidRequest(
    [{ path: 'after', message: 'not with q, label, from, to, subject, since, until, has_attachment' }],
    'The filters select a page of the list, not a read on from `after`.',
  );

export const statusWithAfter = () =>
  invalidRequest(
    [{ path: 'status', message: 'not with after' }],
    'status filters the list, not a read on from `after`.',
  );

export const threadIdWithoutAfter = () =>
  invalidRequest(
    [{ path: 'thread_id', message: 'use with after' }],
    'thread_id filters a read on from `after`.',
  );

export const invalidAfter = () =>
  invalidRequest(
    [{ path: 'after', message: 'a message id, or `after` from a previous answer (not with cursor)' }],
    'after is not a message id or a cursor of a read on.',
  );

export const attachmentNotFound = () =>
  new PmailError('attachment_not_found', 'No attachment with this id on this message.');

/** A signed attachment link that leads nowhere (bad, expired, or its message gone): one answer for all. */
export const attachmentLinkNotFound = () =>
  new PmailError('attachment_not_found', 'No attachment is available at this link.', { details: {} });

/** A resolve refused (`providerReported`: a provider event already said the message was sent). */
export const notUncertain = (status: string, providerReported: boolean) =>
  new PmailError(
    'not_uncertain',
    status === 'uncertain' && providerReported
      ? 'A provider event already reported on this message: it was sent, and cannot be resolved as not sent.'
      : 'Only an uncertain message can be resolved.',
    { details: { status, ...(status === 'uncertain' ? { provider_reported: providerReported } : {}) } },
  );

export const resolveRequired = (status: string, statusReason: string | null) =>
  new PmailError('resolve_required', 'This message is or was uncertain: resolve it, never retry it.', {
    details: { status, status_reason: statusReason },
  });

export const notRetryable = (status: string, statusReason: string | null) =>
  new PmailError('not_retryable', 'Only a failed message whose failure was not a refusal can be retried.', {
    details: { status, status_reason: statusReason },
  });

export const notHeld = (direction: string, status: string) =>
  new PmailError('message_not_held', 'This message is not held.', { details: { direction, status } });

export const notPendingApproval = (status: string, statusReason: string | null) =>
  new PmailError('not_pending_approval', 'This message is not waiting for approval.', {
    details: { status, status_reason: statusReason },
  });

/* Bodies and paths refused as a whole (their fields in `details.errors`). */

/** A relay host or port outside what pmail connects to (core/relay-address.ts). */
export const relayRefused = (path: string, message: string) =>
  invalidRequest([{ path, message }], 'The relay is not allowed.');

export const suppressionExpiryPast = () =>
  invalidRequest(
    [{ path: 'expires_at', message: 'must be a time in the future' }],
    'expires_at must be in the future.',
  );

/** A `…/lists/{direction}/{kind}` path naming no list. */
export const invalidList = (errors: FieldError[]) => invalidRequest(errors, 'The list is not valid.');

/** A policy whose identity cap is above its tenant cap. */
export const identityCapAboveTenantCap = (tenantCap: number) =>
  invalidRequest(
    [{ path: 'identity_daily_send_cap', message: `must be at most ${tenantCap}` }],
    'identity_daily_send_cap cannot exceed daily_send_cap.',
  );

/** A batch refused whole: nothing of it was sent. */
export const invalidBatch = (errors: FieldError[]) =>
  invalidRequest(errors, 'The batch is not valid; no message of it was sent.');

/** A label change naming the same labels in `add` and in `remove`. */
export const labelAddedAndRemoved = (labels: string[]) =>
  invalidRequest(
    labels.map((l) => ({ path: 'remove', message: `"${l}" is also in add` })),
    'A label is both added and removed.',
  );

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
