import { describe, expect, it } from 'vitest';
import { type CfAnswer, classifyCloudflare } from '../../functions/core/cf-outcome.ts';
import type { MessageRecord } from '../../functions/core/model.ts';
import { recordOutcome } from '../../functions/core/send-attempt.ts';

const err = (status: number, code: number | string, message: string): CfAnswer => ({
  type: 'http',
  status,
  body: { success: false, errors: [{ code, message }], messages: [], result: null },
});
const ok = (result: Record<string, string[]>): CfAnswer => ({
  type: 'http',
  status: 200,
  body: { success: true, errors: [], messages: [], result },
});

/** One case per answer of docs/reference/provider-answers.md › Cloudflare Email Sending. */
describe('classifyCloudflare: docs/reference/provider-answers.md › Cloudflare', () => {
  it.each<[string, CfAnswer, Record<string, unknown>]>([
    [
      'success: delivered[] / queued[] → Accepted',
      ok({ delivered: ['a@x'], queued: ['b@x'], permanent_bounces: [] }),
      {
        type: 'accepted',
        provider: 'cloudflare',
        provider_message_id: 'cf-rest:msg_1',
        refused: [],
        deferred: [],
      },
    ],
    [
      'permanent_bounces[] → those deliveries refused',
      ok({ delivered: ['a@x'], queued: [], permanent_bounces: ['gone@x'] }),
      { type: 'accepted', refused: [{ address: 'gone@x', code: '550' }] },
    ],
    [
      'validation (400 10001)',
      err(400, 10001, 'email.sending.error.invalid_request_schema'),
      { type: 'rejected', reason: 'provider_validation', code: '10001' },
    ],
    [
      'too big (400 10200)',
      err(400, 10200, 'email.sending.error.email.too_big'),
      { reason: 'provider_validation' },
    ],
    [
      'invalid email (400 10202)',
      err(400, 10202, 'email.sending.error.email.invalid'),
      { reason: 'provider_validation' },
    ],
    [
      'E_DELIVERY_FAILED',
      err(400, 'E_DELIVERY_FAILED', 'x'),
      { type: 'rejected', reason: 'provider_validation' },
    ],
    ['E_RECIPIENT_NOT_ALLOWED', err(400, 'E_RECIPIENT_NOT_ALLOWED', 'x'), { reason: 'provider_validation' }],
    [
      'auth (401 10101)',
      err(401, 10101, 'email.sending.error.authentication.unauthorized'),
      { type: 'rejected', reason: 'sender_domain_unavailable' },
    ],
    ['forbidden (403 10102)', err(403, 10102, 'x'), { reason: 'sender_domain_unavailable' }],
    ['not entitled (403 10105)', err(403, 10105, 'x'), { reason: 'sender_domain_unavailable' }],
    [
      'not found (404 10000)',
      err(404, 10000, 'email.sending.error.not_found'),
      { reason: 'sender_domain_unavailable' },
    ],
    [
      'E_SENDER_NOT_VERIFIED',
      err(400, 'E_SENDER_NOT_VERIFIED', 'x'),
      { reason: 'sender_domain_unavailable' },
    ],
    [
      'E_RECIPIENT_SUPPRESSED / a REST 400 naming a suppression',
      err(400, 10001, 'email.sending.error.recipient_suppressed'),
      { type: 'recipient_suppressed' },
    ],
    [
      'E_RECIPIENT_SUPPRESSED (binding code)',
      err(400, 'E_RECIPIENT_SUPPRESSED', 'x'),
      { type: 'recipient_suppressed' },
    ],
    [
      'rate limit (429 10004)',
      err(429, 10004, 'email.sending.error.throttled'),
      { type: 'retry_later', class: 'RateLimit' },
    ],
    [
      'E_DAILY_LIMIT_EXCEEDED',
      err(429, 'E_DAILY_LIMIT_EXCEEDED', 'x'),
      { type: 'retry_later', class: 'Quota' },
    ],
    [
      'sending disabled (403 10203)',
      err(403, 10203, 'email.sending.error.email.sending_disabled'),
      { type: 'retry_later', class: 'Paused' },
    ],
    [
      'internal error (500 10002)',
      err(500, 10002, 'email.sending.error.internal_server'),
      { type: 'unknown', reason: 'transport_connection_lost' },
    ],
    ['an unrecognised code', err(400, 19999, 'email.sending.error.new_thing'), { type: 'unknown' }],
    [
      'an error without a code',
      { type: 'http', status: 502, body: undefined },
      { type: 'unknown', reason: 'transport_connection_lost' },
    ],
    ['a 200 without a result', { type: 'http', status: 200, body: 'not json' }, { type: 'unknown' }],
    [
      'timeout',
      { type: 'no_answer', timed_out: true, detail: 'AbortError' },
      { type: 'unknown', reason: 'transport_timeout' },
    ],
    [
      'reset',
      { type: 'no_answer', timed_out: false, detail: 'ECONNRESET' },
      { type: 'unknown', reason: 'transport_connection_lost' },
    ],
  ])('%s', (_, answer, expected) => {
    expect(classifyCloudflare(answer, 'msg_1')).toMatchObject(expected);
  });
});

describe('recordOutcome with provider suppressions', () => {
  const message = (addresses: string[]): MessageRecord =>
    ({
      id: 'msg_1',
      tenant_id: 'ten_1',
      identity_id: 'idn_1',
      status: 'queued',
      version: 1,
      created_at: 0,
      updated_at: 0,
      flags: [],
      deliveries: addresses.map((address) => ({ address, field: 'to', status: 'queued', updated_at: 0 })),
    }) as unknown as MessageRecord;

  it('marks the provider-suppressed deliveries suppressed and applies the outcome to the rest', () => {
    const out = recordOutcome(
      message(['a@x', 'b@x']),
      {
        type: 'accepted',
        provider: 'cloudflare',
        provider_message_id: 'cf-rest:msg_1',
        refused: [],
        deferred: [],
        provider_suppressed: [{ address: 'B@x', reason: 'hard_bounce' }],
      },
      10,
    );
    expect(out.message.status).toBe('submitted');
    expect(out.message.deliveries?.map((d) => [d.address, d.status, d.smtp_response])).toEqual([
      ['a@x', 'submitted', undefined],
      ['b@x', 'suppressed', 'provider: suppressed (hard_bounce)'],
    ]);
  });

  it('ends the message suppressed when every recipient was suppressed by the provider', () => {
    const out = recordOutcome(
      message(['a@x']),
      {
        type: 'rejected',
        provider: 'cloudflare',
        reason: 'recipient_suppressed_by_provider',
        code: 'E_RECIPIENT_SUPPRESSED',
        detail: 'every recipient is suppressed',
        provider_suppressed: [{ address: 'a@x' }],
      },
      10,
    );
    expect(out.message.status).toBe('suppressed');
    expect(out.message.status_at).toBe(10);
  });
});
