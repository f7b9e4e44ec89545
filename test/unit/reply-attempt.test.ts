import { describe, expect, it } from 'vitest';
import type { MessageStatus } from '../../functions/core/model.ts';
import { attemptStateOf, seedRefusalOf, uncertainCodeOf } from '../../functions/core/reply-attempt.ts';

/**
 * The reply attempt's states and the refusal codes printed beside pmail's
 * (docs/guides/cli.md#attempts), derived from pmail's statuses and error codes.
 */
describe('reply attempt states', () => {
  it.each<[MessageStatus, string]>([
    ['queued', 'pending'],
    ['undispatched', 'pending'],
    ['submitted', 'sent'],
    ['delivered', 'sent'],
    ['deferred', 'sent'],
    ['bounced', 'sent'],
    ['complained', 'sent'],
    ['rejected', 'failed'],
    ['failed', 'failed'],
    ['suppressed', 'failed'],
    ['canceled', 'failed'],
    ['uncertain', 'uncertain'],
  ])('%s is %s', (status, state) => {
    expect(attemptStateOf(status)).toBe(state);
  });

  it('is sending only while the caller’s own request is in flight and nothing is settled', () => {
    expect(attemptStateOf('queued', true)).toBe('sending');
    expect(attemptStateOf('delivered', true)).toBe('sent');
    expect(attemptStateOf('uncertain', true)).toBe('uncertain');
  });

  it('names an uncertain reply REPLY_UNCERTAIN and any other send OUTBOUND_UNCERTAIN', () => {
    expect(uncertainCodeOf('reply', null)).toBe('REPLY_UNCERTAIN');
    expect(uncertainCodeOf('reply_all', null)).toBe('REPLY_UNCERTAIN');
    expect(uncertainCodeOf(undefined, '<a@b>')).toBe('REPLY_UNCERTAIN');
    expect(uncertainCodeOf('send', null)).toBe('OUTBOUND_UNCERTAIN');
    expect(uncertainCodeOf('forward', '<a@b>')).toBe('OUTBOUND_UNCERTAIN');
    expect(uncertainCodeOf(undefined, null)).toBe('OUTBOUND_UNCERTAIN');
  });
});

describe('refusal codes beside pmail’s', () => {
  it.each([
    ['invalid_idempotency_key', 'send', undefined, 'IDEMPOTENCY_KEY_INVALID'],
    ['idempotency_key_required', 'reply', undefined, 'IDEMPOTENCY_KEY_INVALID'],
    ['idempotency_conflict', 'reply', undefined, 'IDEMPOTENCY_KEY_REUSED'],
    ['request_in_progress', 'reply_all', undefined, 'IDEMPOTENCY_CONFLICT'],
    ['invalid_request', 'reply', 'text', 'REPLY_BODY_INVALID'],
    ['invalid_request', 'reply', 'labels', undefined],
    ['invalid_request', 'send', 'text', undefined],
    ['address_invalid', 'reply', undefined, 'MESSAGE_REPLY_TARGET_INVALID'],
    ['address_invalid', 'send', undefined, undefined],
    ['message_too_large', 'reply_all', undefined, 'REPLY_MESSAGE_INVALID'],
    ['header_not_allowed', 'reply', undefined, 'REPLY_MESSAGE_INVALID'],
    ['rate_limited', 'reply', undefined, undefined],
  ] as const)('%s on %s (%s) is %s', (code, operation, path, seed) => {
    expect(seedRefusalOf(code, operation, path)).toBe(seed);
  });
});
