import type { Operation } from './compose.ts';
import type { MessageStatus } from './model.ts';

/**
 * The reply-attempt model on pmail's messages: a five-state DeliveryStatus and its refusal
 * codes, derived from a message's status and from pmail's error codes. pmail keeps one record per
 * message (no separate attempt resource); the CLI and the MCP tools show these beside pmail's own
 * values so an agent written against that model reads the same states. Pure.
 */
export type AttemptState = 'pending' | 'sending' | 'sent' | 'failed' | 'uncertain';

/** The operations that send (the model covers reply and reply-all; send and forward are "outbound"). */
/** The send operations (core/compose.ts › Operation), by the name the API and the CLI use. */
export type SendOperationName = Operation;

const STATE: Record<MessageStatus, AttemptState> = {
  // Not yet accepted by a provider. The API does not expose the attempt's `sending` mark, so a
  // queued message is `pending` until its status moves; `sending` is shown only while the CLI itself
  // waits on a request it just made (see `attemptStateOf`).
  queued: 'pending',
  undispatched: 'pending',
  // Waiting for a person's approval (core/approval.ts): nothing left yet.
  pending_approval: 'pending',
  // The provider accepted it: the model's `sent` ("accepted, not proof of delivery").
  submitted: 'sent',
  delivered: 'sent',
  deferred: 'sent',
  bounced: 'sent',
  complained: 'sent',
  // Refused before or by the provider, or withdrawn: nothing went out.
  rejected: 'failed',
  failed: 'failed',
  suppressed: 'failed',
  canceled: 'failed',
  uncertain: 'uncertain',
  // An inbound copy is no attempt; shown as what arrived.
  received: 'sent',
};

/**
 * The reply-attempt state of a message. `inFlight` is true while the caller's own request is outstanding
 * (the CLI between sending and the answer): the model's `sending`.
 */
export function attemptStateOf(status: MessageStatus, inFlight = false): AttemptState {
  if (inFlight && STATE[status] === 'pending') return 'sending';
  return STATE[status];
}

/** The model's code of an `uncertain` message: REPLY_UNCERTAIN for an answer, else OUTBOUND_UNCERTAIN. */
export function uncertainCodeOf(operation: SendOperationName | undefined, inReplyTo: string | null): string {
  const isReply = operation === 'reply' || operation === 'reply_all' || (!operation && inReplyTo !== null);
  return isReply ? 'REPLY_UNCERTAIN' : 'OUTBOUND_UNCERTAIN';
}

/**
 * The model's refusal code beside one of pmail's error codes, for a send operation; undefined when the
 * model has none. `path` is the first invalid field of an `invalid_request` (details.errors[0].path).
 */
export function seedRefusalOf(code: string, operation: SendOperationName, path?: string): string | undefined {
  const reply = operation === 'reply' || operation === 'reply_all';
  switch (code) {
    case 'idempotency_key_required':
    case 'invalid_idempotency_key':
      return 'IDEMPOTENCY_KEY_INVALID';
    case 'idempotency_conflict':
      return 'IDEMPOTENCY_KEY_REUSED';
    case 'request_in_progress':
      return 'IDEMPOTENCY_CONFLICT';
    case 'invalid_request':
      return reply && (path === 'text' || path === 'html' || path === '') ? 'REPLY_BODY_INVALID' : undefined;
    case 'address_invalid':
    case 'address_unsupported':
      return reply ? 'MESSAGE_REPLY_TARGET_INVALID' : undefined;
    case 'message_too_large':
    case 'header_not_allowed':
      return reply ? 'REPLY_MESSAGE_INVALID' : undefined;
    default:
      return undefined;
  }
}
