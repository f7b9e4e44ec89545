import { describe, expect, it } from 'vitest';
import {
  allRecipientsSuppressed,
  dailyCapReached,
  idempotencyConflict,
  invalidDryRun,
  invalidSendAt,
  PmailError,
  rateLimited,
  recipientBlocked,
  refusedAtApproval,
  threadBusy,
} from '../../functions/core/errors.ts';

/** The submit path's refusals, each built by its factory in core/errors.ts: code, text, details, Retry-After. */
describe('submit refusals', () => {
  it('build the code, the text, the details and the Retry-After each answers', () => {
    const now = Date.parse('2026-12-03T23:30:00Z');
    const cases: [PmailError, Record<string, unknown>][] = [
      [
        idempotencyConflict('msg_1'),
        {
          code: 'idempotency_conflict',
          message: 'This Idempotency-Key was used for a different request.',
          details: { original_message_id: 'msg_1' },
        },
      ],
      [idempotencyConflict(), { code: 'idempotency_conflict', details: {} }],
      [
        invalidSendAt(),
        {
          code: 'invalid_request',
          message: 'send_at must be in the future and at most 30 days ahead.',
          details: { errors: [{ path: 'send_at', message: 'in the future, at most 30 days ahead' }] },
        },
      ],
      [
        invalidDryRun(),
        {
          code: 'invalid_request',
          message: 'dry_run must be true or false.',
          details: { errors: [{ path: 'dry_run', message: 'true or false' }] },
        },
      ],
      [
        rateLimited(7),
        {
          code: 'rate_limited',
          message: 'Too many sends for this identity; wait and retry with the same key.',
          retryAfter: 7,
          details: { retry_after: 7 },
        },
      ],
      [
        dailyCapReached('tenant', 500, now + 30 * 60_000 + 1, now),
        {
          code: 'daily_cap_reached',
          message: "The tenant's daily send cap is reached.",
          retryAfter: 1801,
          details: { cap: 'tenant', limit: 500, resets_at: '2026-12-04T00:00:00.001Z' },
        },
      ],
      [dailyCapReached('identity', 10, now, now), { retryAfter: 1, details: { cap: 'identity', limit: 10 } }],
      [
        threadBusy(3),
        {
          code: 'thread_busy',
          message: 'Another message of this thread is being sent.',
          retryAfter: 3,
          details: { retry_after: 3 },
        },
      ],
      [
        recipientBlocked([{ address: 'a@x.test', field: 'to' }]),
        { code: 'recipient_blocked', details: { recipients: [{ address: 'a@x.test', field: 'to' }] } },
      ],
      [
        allRecipientsSuppressed([{ address: 'a@x.test' }]),
        {
          code: 'all_recipients_suppressed',
          message: 'Every recipient is suppressed; nothing would be sent.',
          details: { recipients: [{ address: 'a@x.test' }] },
        },
      ],
      [
        refusedAtApproval(rateLimited(2), { id: 'msg_1' }),
        { code: 'rate_limited', retryAfter: 2, details: { retry_after: 2, message: { id: 'msg_1' } } },
      ],
    ];
    for (const [err, want] of cases) {
      expect(err).toBeInstanceOf(PmailError);
      expect(err).toMatchObject(want);
    }
  });
});
