import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { type ErrorCode, PmailError, payloadTooLarge } from '../core/errors.ts';
import { MAX_BODY_BYTES } from '../core/limits.ts';
import type { Logger } from '../log.ts';
import { errorFields } from '../log.ts';
import { isTransient } from '../store/db.ts';
import { type Route, routes } from './routes.ts';

export type ApiEvent = APIGatewayProxyEventV2;
export type ApiResult = APIGatewayProxyStructuredResultV2 & { headers: Record<string, string> };

/** One table from error code to HTTP status, retryability and the one-sentence fix. */
export const ERRORS: Record<ErrorCode, { status: number; retryable: boolean; fix: string }> = {
  unauthenticated: {
    status: 401,
    retryable: false,
    fix: 'Send a valid API key as "Authorization: Bearer <key>".',
  },
  key_revoked: {
    status: 401,
    retryable: false,
    fix: 'This key was revoked; use another key or mint a new one with POST /v1/keys.',
  },
  key_expired: {
    status: 401,
    retryable: false,
    fix: 'This key (or this secret, replaced by a rotation) has expired; use its newest secret or a new key.',
  },
  key_not_found: {
    status: 404,
    retryable: false,
    fix: 'Check the key id and that your key reaches it.',
  },
  key_scope_exceeded: {
    status: 403,
    retryable: false,
    fix: 'A key can only mint, read, rotate or revoke keys no wider than itself; use a wider key.',
  },
  tenant_exists: {
    status: 409,
    retryable: false,
    fix: 'Choose another slug; details.tenant_id names the tenant that has it, when your key reaches it.',
  },
  policy_version_conflict: {
    status: 409,
    retryable: false,
    fix: 'Read the policy again (details.policy_version is the current one) and retry your change on it.',
  },
  address_taken: {
    status: 409,
    retryable: false,
    fix: 'Choose another username (or domain): this address belongs to another identity or was retired.',
  },
  client_id_conflict: {
    status: 409,
    retryable: false,
    fix: 'This client_id made an identity with other fields; resend the same body or use another client_id.',
  },
  domain_unavailable: {
    status: 422,
    retryable: false,
    fix: 'Use a sending domain of this tenant that is not being removed (details.reason), or the test domain of a test tenant.',
  },
  permission_denied: {
    status: 403,
    retryable: false,
    fix: 'Use a key that holds the permission in details.required.',
  },
  scope_denied: {
    status: 403,
    retryable: false,
    fix: 'Use a key of a wider level (details.required_level); an identity key cannot do this.',
  },
  guardrail_locked: {
    status: 403,
    retryable: false,
    fix: 'Ask a person with a key of details.required_level to make this change: an identity key never changes the guardrails of its identity (docs/security.md).',
  },
  route_not_found: { status: 404, retryable: false, fix: 'Check the method and path against openapi.yaml.' },
  method_not_allowed: { status: 405, retryable: false, fix: 'Use one of the methods in the Allow header.' },
  identity_not_found: {
    status: 404,
    retryable: false,
    fix: 'Check the identity id and that your key covers it.',
  },
  message_not_found: {
    status: 404,
    retryable: false,
    fix: 'Check the message id and the identity it belongs to.',
  },
  rate_limited: {
    status: 429,
    retryable: true,
    fix: 'Wait for the number of seconds in the Retry-After header, then retry with the same Idempotency-Key.',
  },
  idempotency_key_required: {
    status: 400,
    retryable: false,
    fix: 'Add an Idempotency-Key header and reuse it on every retry of this message.',
  },
  invalid_idempotency_key: {
    status: 400,
    retryable: false,
    fix: 'Use 1–255 printable ASCII characters (0x20–0x7E) as the Idempotency-Key.',
  },
  payload_too_large: {
    status: 413,
    retryable: false,
    fix: 'Send a request body of at most details.max_bytes (7 MiB; a batch of sends 4 MiB: split it).',
  },
  invalid_request: {
    status: 400,
    retryable: false,
    fix: 'Correct the fields listed in details.errors and retry.',
  },
  idempotency_conflict: {
    status: 409,
    retryable: false,
    fix: 'Use a new Idempotency-Key for a different message, or resend the original body unchanged.',
  },
  request_in_progress: {
    status: 409,
    retryable: true,
    fix: "Retry shortly with the same Idempotency-Key and body; you will get the first request's result.",
  },
  tenant_suspended: {
    status: 403,
    retryable: false,
    fix: 'Ask the platform operator to reactivate the tenant.',
  },
  identity_paused: {
    status: 409,
    retryable: false,
    fix: 'Resume the identity (see details.reason) before sending.',
  },
  identity_owner_required: {
    status: 409,
    retryable: false,
    fix: 'Set owner_name and owner_email on the identity before it sends.',
  },
  address_invalid: { status: 400, retryable: false, fix: 'Correct the address named in details.errors.' },
  address_unsupported: { status: 400, retryable: false, fix: 'Use an address with an ASCII local part.' },
  too_many_recipients: {
    status: 400,
    retryable: false,
    fix: 'Split the message; see details.max_recipients.',
  },
  test_mode_recipient: {
    status: 403,
    retryable: false,
    fix: 'In test mode send to *@simulator.invalid or to an identity on this deployment.',
  },
  message_too_large: {
    status: 413,
    retryable: false,
    fix: 'Send smaller attachments, or set large_attachments to "link" to send them as signed links.',
  },
  header_not_allowed: {
    status: 400,
    retryable: false,
    fix: 'Use an X- header (not X-Pmail-* or X-AI-Generated) or one of Importance, Priority, Sensitivity, Keywords, Comments, Organization.',
  },
  marketing_requirements_missing: {
    status: 400,
    retryable: false,
    fix: 'Give a marketing send an HTTPS unsubscribe.url and the consent it relies on.',
  },
  auto_reply_not_allowed: {
    status: 409,
    retryable: false,
    fix: 'Send an auto-reply only as a reply to a normal message, where policy allows it and under the exchange cap.',
  },
  domain_not_ready: {
    status: 409,
    retryable: true,
    fix: 'Wait until the sending domain is verified, then retry with the same Idempotency-Key.',
  },
  transport_unavailable: {
    status: 422,
    retryable: false,
    fix: 'Configure a transport for the sending domain (marketing needs ses or smtp); see details.reason.',
  },
  daily_cap_reached: {
    status: 429,
    retryable: true,
    fix: 'Retry after details.resets_at with the same Idempotency-Key, or raise the daily cap.',
  },
  billing_limit: { status: 402, retryable: false, fix: 'Raise the plan or allowance of this tenant.' },
  thread_busy: {
    status: 409,
    retryable: true,
    fix: 'Another message of this thread is being sent; retry after details.retry_after seconds with the same key.',
  },
  thread_not_found: {
    status: 404,
    retryable: false,
    fix: 'Check the thread id and the identity it belongs to.',
  },
  all_recipients_suppressed: {
    status: 422,
    retryable: false,
    fix: 'Every recipient is suppressed; see recipients[].reason. Remove the suppression or the recipients.',
  },
  recipient_blocked: {
    status: 422,
    retryable: false,
    fix: 'A recipient is on the send-block list; remove the entry or the recipient.',
  },
  tenant_not_found: {
    status: 404,
    retryable: false,
    fix: 'Check the tenant id and that your key belongs to it.',
  },
  suppression_not_found: { status: 404, retryable: false, fix: 'Check the address; it is not suppressed.' },
  list_entry_not_found: { status: 404, retryable: false, fix: 'Check the list entry; it does not exist.' },
  attachment_not_found: {
    status: 404,
    retryable: false,
    fix: "Use an id of the message's attachments; a signed link may have expired: ask for a new one.",
  },
  not_cancelable: {
    status: 409,
    retryable: false,
    fix: 'Only a queued message with no transport attempt under way can be canceled.',
  },
  list_entry_conflict: {
    status: 409,
    retryable: false,
    fix: 'The entry is on the list with another `unauthenticated`: delete it, then put it again.',
  },
  message_not_held: {
    status: 409,
    retryable: false,
    fix: 'Only a held message can be released or deleted; read its current state.',
  },
  invalid_label: {
    status: 400,
    retryable: false,
    fix: 'Use 1–64 characters: letters, digits and . _ : / - , starting with a letter or digit (details.errors).',
  },
  invalid_query: {
    status: 400,
    retryable: false,
    fix: 'Give q 1–256 characters with at least one word and at most 16 words in all (docs/guides/receiving.md › Search).',
  },
  too_many_labels: {
    status: 409,
    retryable: false,
    fix: 'Remove labels in the same change, or first: at most details.max_labels per message or thread.',
  },
  not_pending_approval: {
    status: 409,
    retryable: false,
    fix: 'Only a message waiting for approval can be approved or rejected; read its current state.',
  },
  not_uncertain: { status: 409, retryable: false, fix: 'Only an uncertain message can be resolved.' },
  not_retryable: {
    status: 409,
    retryable: false,
    fix: 'Only a failed message whose failure was not a refusal by the recipient’s server can be retried.',
  },
  resolve_required: {
    status: 409,
    retryable: false,
    fix: 'The message is or was uncertain: it may have been sent. Use POST …/resolve, never retry.',
  },
  webhook_not_found: {
    status: 404,
    retryable: false,
    fix: "Check the webhook id; list the tenant's endpoints with GET /v1/webhooks.",
  },
  webhook_limit_reached: {
    status: 422,
    retryable: false,
    fix: 'Delete an endpoint you no longer use (see details.limit) before adding another.',
  },
  webhook_disabled: {
    status: 409,
    retryable: false,
    fix: 'The endpoint is disabled (see disabled_reason): create a new endpoint for the URL.',
  },
  domain_not_found: {
    status: 404,
    retryable: false,
    fix: 'Check the domain id (GET /v1/tenants/{tenant_id}/domains).',
  },
  domain_exists: {
    status: 409,
    retryable: false,
    fix: 'The domain is already a sending domain; remove it there first, or use another name.',
  },
  template_not_found: {
    status: 404,
    retryable: false,
    fix: "Check the template name (GET /v1/tenants/{tenant_id}/templates); templates belong to the identity's tenant.",
  },
  template_exists: {
    status: 409,
    retryable: false,
    fix: 'A template with this name exists; change it with PUT …/templates/{name}, or choose another name.',
  },
  template_limit_reached: {
    status: 422,
    retryable: false,
    fix: 'Delete a template you no longer use (see details.limit) before adding another.',
  },
  invalid_template: {
    status: 400,
    retryable: false,
    fix: 'Correct the template sources or its variables_schema as details.errors says (the schema is compiled with Ajv in strict mode).',
  },
  invalid_payload: {
    status: 400,
    retryable: false,
    fix: "Send variables that match the template's variables_schema; details.errors gives each failing instance_path and keyword.",
  },

  not_attempted: {
    status: 503,
    retryable: true,
    fix: 'Send this message again with the same idempotency_key, alone or in a new batch: the batch ran out of time before it.',
  },
  unavailable: {
    status: 503,
    retryable: true,
    fix: 'Retry with exponential back-off and the same Idempotency-Key.',
  },
  internal_error: {
    status: 500,
    retryable: true,
    fix: 'Retry with the same Idempotency-Key; quote the request_id if it persists.',
  },
};

export function json(
  status: number,
  body: unknown,
  requestId: string,
  headers: Record<string, string> = {},
): ApiResult {
  return {
    statusCode: status,
    headers: { 'content-type': 'application/json', 'request-id': requestId, ...headers },
    body: JSON.stringify(body),
  };
}

/** 204 No Content: the answer of a DELETE that leaves nothing to show. */
export function noContent(requestId: string): ApiResult {
  return { statusCode: 204, headers: { 'request-id': requestId } };
}

export function errorResponse(err: unknown, requestId: string, log: Logger): ApiResult {
  const e =
    err instanceof PmailError
      ? err
      : isTransient(err)
        ? new PmailError('unavailable', 'The service is briefly unavailable.', { cause: err, retryAfter: 1 })
        : new PmailError('internal_error', 'Something went wrong on our side.', { cause: err });
  if (e.code === 'internal_error' || e.code === 'unavailable') {
    log.error('request failed', { request_id: requestId, code: e.code, ...errorFields(e.cause ?? e) });
  }
  const spec = ERRORS[e.code];
  const headers: Record<string, string> = {};
  if (e.retryAfter !== undefined) headers['retry-after'] = String(e.retryAfter);
  if (e.code === 'method_not_allowed' && Array.isArray(e.details?.allow))
    headers.allow = (e.details.allow as string[]).join(', ');
  return json(
    spec.status,
    {
      error: {
        code: e.code,
        message: e.message,
        retryable: spec.retryable,
        fix: spec.fix,
        request_id: requestId,
        details: e.details ?? {},
      },
    },
    requestId,
    headers,
  );
}

export function header(event: ApiEvent, name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [k, v] of Object.entries(event.headers ?? {})) if (k.toLowerCase() === wanted) return v;
  return undefined;
}

/**
 * The request body as text, at most 7 MiB (MAX_BODY_BYTES) on every route, the send and the
 * control-plane routes alike, or `maxBytes` (a batch of sends: MAX_BATCH_BODY_BYTES): a larger one
 * is 413 payload_too_large before it is parsed.
 */
export function bodyOf(event: ApiEvent, maxBytes = MAX_BODY_BYTES): string {
  if (!event.body) return '';
  const raw = event.isBase64Encoded ? Buffer.from(event.body, 'base64') : undefined;
  const size = raw ? raw.length : Buffer.byteLength(event.body);
  if (size > maxBytes) {
    throw payloadTooLarge(maxBytes);
  }
  return raw ? raw.toString('utf8') : event.body;
}

export interface RouteCall {
  event: ApiEvent;
  route: Route;
  params: Record<string, string>;
  requestId: string;
}

/**
 * A route group's Lambda handler: a request id, the route and its parameters, and every error turned
 * into the error envelope of openapi.yaml. `handle` is the group's own work.
 */
export function routeGroup(
  deps: { newId: () => string; log: Logger },
  handle: (call: RouteCall) => Promise<ApiResult>,
): (event: ApiEvent) => Promise<ApiResult> {
  return async (event) => {
    const requestId = `req_${deps.newId()}`;
    try {
      const { route, params } = matchRoute(
        event.requestContext.http.method,
        event.requestContext.http.path ?? event.rawPath,
      );
      return await handle({ event, route, params, requestId });
    } catch (err) {
      return errorResponse(err, requestId, deps.log);
    }
  };
}

const compiled = routes.map((r) => ({
  route: r,
  names: [...r.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]),
  re: new RegExp(`^${r.path.replace(/\{\w+\}/g, '([^/]+)')}$`),
}));

/** Match a request against the routes table: the route and its path parameters, or 404/405. */
/** A path that matches no route (or cannot be decoded). */
const noRouteFor = (path: string) => new PmailError('route_not_found', `No route for ${path}.`);

export function matchRoute(method: string, path: string): { route: Route; params: Record<string, string> } {
  const hits = compiled.filter((c) => c.re.test(path));
  if (hits.length === 0) throw noRouteFor(path);
  const hit = hits.find((c) => c.route.method === method);
  if (!hit) {
    throw new PmailError('method_not_allowed', `${method} is not allowed on ${path}.`, {
      details: { allow: hits.map((c) => c.route.method) },
    });
  }
  let values: string[];
  try {
    values = hit.re.exec(path)!.slice(1).map(decodeURIComponent);
  } catch {
    // A malformed %-escape names no resource.
    throw noRouteFor(path);
  }
  return { route: hit.route, params: Object.fromEntries(hit.names.map((n, i) => [n, values[i]])) };
}
