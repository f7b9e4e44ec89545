import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  classifyResponse,
  formatSecret,
  loggableUrl,
  MAX_ATTEMPTS,
  MAX_QUEUE_DELAY_S,
  nextAttempt,
  openSecret,
  RETRY_SCHEDULE_S,
  remainingDelaySeconds,
  retryDelaySeconds,
  sealSecret,
  signWebhook,
  verifyWebhook,
  wantsEvent,
  webhookEnvelope,
  webhookHeaders,
  webhookUrlProblem,
} from '../../functions/core/webhooks.ts';

const secret = formatSecret(Buffer.from('0123456789abcdef0123456789abcdef'));
const job = { tenant_id: 'ten_x', webhook_id: 'whk_x', event_id: 'evt_x', attempt: 1 };

/** What a receiver does (Standard Webhooks): HMAC over "{id}.{ts}.{body}" with the decoded secret. */
function receiverSignature(whsec: string, id: string, ts: string, body: string): string {
  const key = Buffer.from(whsec.slice('whsec_'.length), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${ts}.${body}`).digest('base64')}`;
}

describe('webhook signatures', () => {
  it('formats the secret as whsec_ and the base64 of its bytes', () => {
    expect(secret).toBe(`whsec_${Buffer.from('0123456789abcdef0123456789abcdef').toString('base64')}`);
  });

  it('signs "{id}.{timestamp}.{body}" as a receiver recomputes it', () => {
    const body = '{"id":"evt_1","data":{"a":"é"}}';
    const headers = webhookHeaders(secret, 'evt_1', 1_791_540_000, body);
    expect(headers['webhook-id']).toBe('evt_1');
    expect(headers['webhook-timestamp']).toBe('1791540000');
    expect(headers['webhook-signature']).toBe(receiverSignature(secret, 'evt_1', '1791540000', body));
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
  });

  it('changes the signature when the body, the id, the timestamp or the secret changes', () => {
    const base = signWebhook(secret, 'evt_1', 100, '{}');
    expect(signWebhook(secret, 'evt_1', 100, '{ }')).not.toBe(base);
    expect(signWebhook(secret, 'evt_2', 100, '{}')).not.toBe(base);
    expect(signWebhook(secret, 'evt_1', 101, '{}')).not.toBe(base);
    expect(signWebhook(formatSecret(Buffer.alloc(32, 1)), 'evt_1', 100, '{}')).not.toBe(base);
  });

  it('verifies as a receiver would: any v1 signature, a timestamp within five minutes', () => {
    const body = '{"x":1}';
    const signature = signWebhook(secret, 'evt_1', 1000, body);
    const h = { id: 'evt_1', timestamp: '1000', signature: `v1,bm90IGl0 ${signature}` };
    expect(verifyWebhook(secret, h, body, 1000)).toBe(true);
    expect(verifyWebhook(secret, h, body, 1300)).toBe(true);
    expect(verifyWebhook(secret, h, body, 1301)).toBe(false);
    expect(verifyWebhook(secret, h, '{"x":2}', 1000)).toBe(false);
    expect(verifyWebhook(secret, { ...h, id: 'evt_2' }, body, 1000)).toBe(false);
  });
});

describe('the retry schedule', () => {
  it('waits about 30 s, 2 min, 10 min, 30 min, 1 h, 2 h, 4 h, 8 h, 12 h, 12 h, 12 h, 19 h: 13 attempts', () => {
    expect(RETRY_SCHEDULE_S.map((s) => retryDelaySeconds(RETRY_SCHEDULE_S.indexOf(s) + 1, 0.5))).toEqual([
      ...RETRY_SCHEDULE_S,
    ]);
    expect(RETRY_SCHEDULE_S).toEqual([
      30, 120, 600, 1800, 3600, 7200, 14400, 28800, 43200, 43200, 43200, 68400,
    ]);
    expect(MAX_ATTEMPTS).toBe(13);
    expect(retryDelaySeconds(13, 0.5)).toBeUndefined();
    const total = RETRY_SCHEDULE_S.reduce((a, b) => a + b, 0) / 3600;
    expect(total).toBeGreaterThan(70);
    expect(total).toBeLessThan(74);
  });

  it.each([1, 2, 6, 12])('keeps the jitter of attempt %i within ±10 %', (attempt) => {
    const base = RETRY_SCHEDULE_S[attempt - 1];
    expect(retryDelaySeconds(attempt, 0)).toBeCloseTo(base * 0.9);
    expect(retryDelaySeconds(attempt, 0.999_999)!).toBeGreaterThan(base * 1.0999);
    expect(retryDelaySeconds(attempt, 0.999_999)!).toBeLessThanOrEqual(base * 1.1);
    for (const j of [0, 0.1, 0.37, 0.5, 0.83, 0.9999]) {
      const d = retryDelaySeconds(attempt, j)!;
      expect(d).toBeGreaterThanOrEqual(base * 0.9);
      expect(d).toBeLessThanOrEqual(base * 1.1);
    }
    // Out-of-range jitter is clamped, never stretching the bounds.
    expect(retryDelaySeconds(attempt, 7)).toBeCloseTo(base * 1.1);
    expect(retryDelaySeconds(attempt, -3)).toBeCloseTo(base * 0.9);
  });

  it('makes the next job with the next attempt and its due time, the queue delay capped at 15 minutes', () => {
    const now = 1_000_000;
    const first = nextAttempt(job, now, 0.5);
    expect(first).toEqual({ job: { ...job, attempt: 2, due_at: now + 30_000 }, delaySeconds: 30 });
    const long = nextAttempt({ ...job, attempt: 5 }, now, 0.5);
    expect(long).toEqual({
      job: { ...job, attempt: 6, due_at: now + 3_600_000 },
      delaySeconds: MAX_QUEUE_DELAY_S,
    });
    expect(nextAttempt({ ...job, attempt: 13 }, now, 0.5)).toEqual({ dead: true });
    expect(nextAttempt(job, now, 0.5, 0.001)).toEqual({
      job: { ...job, attempt: 2, due_at: now + 30 },
      delaySeconds: 0.03,
    });
  });

  it('holds a job that arrives before its due time for the rest, at most 15 minutes at once', () => {
    expect(remainingDelaySeconds(job, 5)).toBe(0);
    expect(remainingDelaySeconds({ ...job, due_at: 5_000 }, 5_000)).toBe(0);
    expect(remainingDelaySeconds({ ...job, due_at: 65_000 }, 5_000)).toBe(60);
    expect(remainingDelaySeconds({ ...job, due_at: 5_000 + 3_600_000 }, 5_000)).toBe(900);
  });

  it.each([
    [200, 'delivered'],
    [204, 'delivered'],
    [299, 'delivered'],
    [410, 'gone'],
    [301, 'failed'],
    [404, 'failed'],
    [429, 'failed'],
    [500, 'failed'],
    [undefined, 'failed'],
  ])('classifies an answer %s as %s', (status, verdict) => {
    expect(classifyResponse(status)).toBe(verdict);
  });
});

describe('the envelope', () => {
  it('carries the outbox event id, type, api version, time, tenant, identity and data', () => {
    const data = { message_id: 'msg_1', identity_id: 'idn_1', recipient: 'a@example.com' };
    expect(
      webhookEnvelope({
        id: 'evt_1',
        type: 'message.delivered',
        tenant_id: 'ten_1',
        created_at: Date.UTC(2026, 9, 9),
        data,
      }),
    ).toEqual({
      id: 'evt_1',
      type: 'message.delivered',
      api_version: '2026-10-01',
      occurred_at: '2026-10-09T00:00:00.000Z',
      tenant_id: 'ten_1',
      identity_id: 'idn_1',
      sequence: null,
      data,
    });
    expect(
      webhookEnvelope({ id: 'e', type: 't.x', tenant_id: 't', created_at: 0, data: {} }).identity_id,
    ).toBeNull();
  });

  it('filters by event type only when the endpoint lists types, and never for a disabled one', () => {
    expect(wantsEvent({ status: 'active' }, 'message.sent')).toBe(true);
    expect(wantsEvent({ status: 'active', event_types: ['message.sent'] }, 'message.sent')).toBe(true);
    expect(wantsEvent({ status: 'active', event_types: ['message.sent'] }, 'message.delivered')).toBe(false);
    expect(wantsEvent({ status: 'disabled' }, 'message.sent')).toBe(false);
  });

  it('sends message.held only to an endpoint that names it: held mail is not for whatever takes every type', () => {
    expect(wantsEvent({ status: 'active' }, 'message.held')).toBe(false);
    expect(wantsEvent({ status: 'active' }, 'message.received')).toBe(true);
    expect(wantsEvent({ status: 'active', event_types: ['message.held'] }, 'message.held')).toBe(true);
  });
});

describe('endpoint URLs', () => {
  it.each([
    ['https://hooks.example.com/pmail?x=1', false, undefined],
    ['http://hooks.example.com/pmail', true, 'must be an https URL'],
    ['http://127.0.0.1:9999/hook', false, 'must be an https URL'],
    ['http://127.0.0.1:9999/hook', true, undefined],
    ['http://localhost:9999/hook', true, undefined],
    ['http://10.0.0.1/hook', true, 'must be an https URL'],
    ['ftp://example.com/x', true, 'must be an https URL'],
    ['https://user:pw@example.com/x', false, 'must not carry credentials'],
    ['https://example.com/x#frag', false, 'must not have a fragment'],
    ['not a url', true, 'must be an absolute URL'],
    ['https://169.254.169.254/latest/meta-data', false, 'must not name an internal address (linkLocal)'],
    ['https://10.1.2.3/hook', false, 'must not name an internal address (private)'],
    ['https://172.20.0.1/hook', false, 'must not name an internal address (private)'],
    ['https://192.168.1.1/hook', false, 'must not name an internal address (private)'],
    ['https://127.0.0.1/hook', false, 'must not name an internal address (loopback)'],
    ['https://0x7f.1/hook', false, 'must not name an internal address (loopback)'],
    ['https://localhost/hook', false, 'must not name an internal address (.localhost name)'],
    ['https://localhost./hook', false, 'must not name an internal address (.localhost name)'],
    ['https://foo.localhost./hook', false, 'must not name an internal address (.localhost name)'],
    [
      'https://metadata.google.internal/computeMetadata/v1/',
      false,
      'must not name an internal address (.internal name)',
    ],
    ['https://printer.local/hook', false, 'must not name an internal address (.local name)'],
    ['https://intranet/hook', false, 'must not name an internal address (single-label name)'],
    ['https://[::1]/hook', false, 'must not name an internal address (loopback)'],
    ['https://[fd00::1]/hook', false, 'must not name an internal address (uniqueLocal)'],
    ['https://[::ffff:a00:1]/hook', false, 'must not name an internal address (private (inside ipv4Mapped))'],
    ['https://[::127.0.0.1]/hook', false, 'must not name an internal address (not global unicast)'],
    [
      'https://[64:ff9b::7f00:1]/hook',
      false,
      'must not name an internal address (loopback (inside rfc6052))',
    ],
    ['https://[fec0::1]/hook', false, 'must not name an internal address (deprecatedSiteLocal)'],
    ['https://[2002:7f00:1::]/hook', false, 'must not name an internal address (6to4)'],
    ['https://198.18.0.1/hook', false, 'must not name an internal address (reserved)'],
    ['https://224.0.0.1/hook', false, 'must not name an internal address (multicast)'],
    ['https://255.255.255.255/hook', false, 'must not name an internal address (broadcast)'],
    ['https://172.32.0.1/hook', false, undefined],
    ['https://8.8.8.8/hook', false, undefined],
    ['https://hooks.example.com./hook', false, undefined],
    ['https://[2a00:1450:4001:81c::201a]/hook', false, undefined],
    ['https://metadata.google.internal/x', true, undefined],
  ])('%s (local http allowed: %s) → %s', (url, allow, problem) => {
    expect(webhookUrlProblem(url, allow)).toBe(problem);
  });

  it('logs a URL without its query string', () => {
    expect(loggableUrl('https://hooks.example.com/p/q?token=secret')).toBe('https://hooks.example.com/p/q');
  });
});

describe('sealed secrets', () => {
  const iv = Buffer.alloc(12, 7);
  it('opens what it sealed, and refuses another hash key or another endpoint', () => {
    const sealed = sealSecret('key-1', 'ten_a/whk_a', secret, iv);
    expect(sealed).not.toContain(secret.slice(6, 20));
    expect(openSecret('key-1', 'ten_a/whk_a', sealed)).toBe(secret);
    expect(() => openSecret('key-2', 'ten_a/whk_a', sealed)).toThrow();
    expect(() => openSecret('key-1', 'ten_a/whk_b', sealed)).toThrow();
  });
});
