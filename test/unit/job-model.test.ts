import { describe, expect, it } from 'vitest';
import { type CfAnswer, classifyCloudflare } from '../../functions/core/cf-outcome.ts';
import { canDispatchHeld, transportGap } from '../../functions/core/domains.ts';
import { bornStatus, dispatchHeld } from '../../functions/core/enqueue.ts';
import { consentKindOf } from '../../functions/core/job-kind.ts';
import { RETRYABLE_FAILURES, retryMessage } from '../../functions/core/message-actions.ts';
import type { MessageRecord } from '../../functions/core/model.ts';
import { BACKOFF_END_MS, recordOutcome, suppressAtSend } from '../../functions/core/send-attempt.ts';
import { classifySesAnswer, type SesAnswer } from '../../functions/core/ses-outcome.ts';
import { simulate } from '../../functions/core/simulator.ts';
import { classifySmtp, type SmtpEnd } from '../../functions/core/smtp-outcome.ts';
import { type SuppressionReason, suppressionBlocks } from '../../functions/core/suppressions.ts';
import type { TransportResult } from '../../functions/core/transport-result.ts';
import { outboundMessage } from '../support/records.ts';

/**
 * The job model (docs/guides/sending.md › The job model) as tables: kind, suppression by kind, born
 * status, retry, undispatched.
 */

const message = (over: Partial<MessageRecord> = {}): MessageRecord =>
  outboundMessage({
    claim: { token: 'mine', at: 100 },
    dispatch: { execution: 'msg_1-d1', at: 0, n: 1 },
    deliveries: [
      { address: 'Ada@example.net', field: 'to', status: 'queued', updated_at: 0 },
      { address: 'bo@example.net', field: 'cc', status: 'queued', updated_at: 0 },
    ],
    ...over,
  });

describe('the consent kind accessor', () => {
  it.each([
    ['a template’s elective kind', { kind: 'transactional', consent_kind: 'elective' }, 'elective'],
    [
      'a template’s transactional kind on marketing-category mail',
      { kind: 'marketing', consent_kind: 'transactional' },
      'transactional',
    ],
    ['a plain transactional send', { kind: 'transactional' }, 'transactional'],
    ['a plain auto reply', { kind: 'auto_reply' }, 'transactional'],
    ['a plain marketing send', { kind: 'marketing' }, 'elective'],
  ] as const)('reads %s', (_, m, expected) => {
    expect(consentKindOf(m)).toBe(expected);
  });
});

describe('which suppression blocks which kind (one rule, at enqueue and at send)', () => {
  const rows: [SuppressionReason, { elective?: boolean }, boolean, boolean][] = [
    // reason, extra, blocks transactional, blocks elective
    ['unsubscribe', {}, false, true],
    ['manual', { elective: true }, false, true],
    ['manual', {}, true, true],
    ['hard_bounce', {}, true, true],
    ['complaint', {}, true, true],
    ['provider', {}, true, true],
  ];
  it.each(rows)('%s %o: transactional blocked %s, elective blocked %s', (reason, extra, tx, el) => {
    const s = { reason, ...extra };
    expect(suppressionBlocks(s, 'transactional', 10)).toBe(tx);
    expect(suppressionBlocks(s, 'elective', 10)).toBe(el);
  });
  it('blocks nothing once expired', () => {
    expect(suppressionBlocks({ reason: 'hard_bounce', expires_at: 10 }, 'elective', 10)).toBe(false);
  });
});

describe('suppression at send (suppressAtSend)', () => {
  const found = (entries: [string, SuppressionReason][]) =>
    new Map(entries.map(([a, reason]) => [a, { reason }]));

  it('changes nothing when no queued recipient is blocked for this kind', () => {
    expect(suppressAtSend(message(), found([['ada@example.net', 'unsubscribe']]), 5)).toBeUndefined();
    expect(suppressAtSend(message(), found([]), 5)).toBeUndefined();
  });

  it('suppresses the blocked recipient (matched on the canonical key) and keeps the message queued for the rest', () => {
    const out = suppressAtSend(message(), found([['ada@example.net', 'hard_bounce']]), 5)!;
    expect(out.message.status).toBe('queued');
    expect(out.message.claim).toEqual({ token: 'mine', at: 100 });
    expect(out.message.deliveries!.map((d) => [d.status, d.smtp_response])).toEqual([
      ['suppressed', 'policy: suppression (hard_bounce)'],
      ['queued', undefined],
    ]);
  });

  it('ends the message suppressed, claim and dispatch gone, lock released, when nobody is left', () => {
    const out = suppressAtSend(
      message({ kind: 'marketing', holds_lock: true }),
      found([
        ['ada@example.net', 'unsubscribe'],
        ['bo@example.net', 'complaint'],
      ]),
      5,
    )!;
    expect(out.message).toMatchObject({
      status: 'suppressed',
      status_reason: 'suppressed_at_send',
      status_at: 5,
    });
    expect(out.message.claim).toBeUndefined();
    expect(out.message.dispatch).toBeUndefined();
    expect(out.releaseLock).toBe(true);
  });
});

describe('the status a send is born with (bornStatus)', () => {
  const q = { status: 'queued' as const };
  const x = { status: 'suppressed' as const };
  it.each([
    [[q, x], false, 'queued'],
    [[x, x], false, 'suppressed'],
    [[q], true, 'undispatched'],
    [[x], true, 'suppressed'],
  ] as const)('%o, held %s → %s', (decisions, held, expected) => {
    expect(bornStatus(decisions, held)).toBe(expected);
  });
});

describe('operator retry (retryMessage)', () => {
  const name = (n: number) => `msg_1-d${n}`;
  const failed = (status_reason: string, over: Partial<MessageRecord> = {}) =>
    message({
      status: 'failed',
      status_reason,
      status_at: 50,
      claim: undefined,
      dispatch: undefined,
      dispatch_n: 2,
      deliveries: [
        { address: 'ada@example.net', field: 'to', status: 'failed', smtp_response: 'quota', updated_at: 1 },
        { address: 'bo@example.net', field: 'cc', status: 'submitted', updated_at: 1 },
      ],
      ...over,
    });

  it('names the retryable failures: nothing reached a recipient’s server', () => {
    expect([...RETRYABLE_FAILURES].sort()).toEqual(['domain_failing_no_fallback', 'quota_exhausted']);
  });

  it('re-queues a retryable failure under the next execution name, in the same record', () => {
    const out = retryMessage(failed('quota_exhausted', { backoff: { n: 4, first_at: 1 } }), 1000, name);
    expect(out.type).toBe('requeue');
    const m = (out as { message: MessageRecord }).message;
    expect(m).toMatchObject({
      status: 'queued',
      dispatch: { execution: 'msg_1-d3', at: 1000, n: 3 },
      dispatch_n: 3,
      retry: { n: 1, at: 1000 },
      version: 4,
    });
    expect(m.status_reason).toBeUndefined();
    expect(m.status_at).toBeUndefined();
    expect(m.backoff).toBeUndefined();
    expect(m.deliveries!.map((d) => d.status)).toEqual(['queued', 'submitted']);
  });

  it.each([
    ['uncertain', 'transport_timeout', 'resolve_required'],
    ['failed', 'resolved_not_sent', 'resolve_required'],
    ['failed', 'provider_failed', 'not_retryable'],
    ['rejected', 'provider_validation', 'not_retryable'],
    ['delivered', undefined, 'not_retryable'],
    ['queued', undefined, 'not_retryable'],
    ['suppressed', undefined, 'not_retryable'],
  ] as const)('refuses a %s message (%s) with %s', (status, reason, code) => {
    expect(() => retryMessage(message({ status, status_reason: reason }), 1, name)).toThrow(
      expect.objectContaining({ code }),
    );
  });

  it('answers the current state of a message a retry already re-queued', () => {
    for (const status of ['queued', 'submitted', 'delivered'] as const) {
      expect(retryMessage(message({ status, retry: { n: 1, at: 1 } }), 2, name)).toEqual({ type: 'current' });
    }
  });

  it('starts the 24 hours of back-off again from the retry', () => {
    const retried = (
      retryMessage(failed('quota_exhausted'), 2 * BACKOFF_END_MS, name) as { message: MessageRecord }
    ).message;
    const claimed = { ...retried, claim: { token: 'c', at: 2 * BACKOFF_END_MS } };
    const limited: TransportResult = { type: 'retry_later', class: 'RateLimit', code: 'x', refused: [] };
    expect(recordOutcome(claimed, limited, 2 * BACKOFF_END_MS + 1000).next.type).toBe('wait');
    expect(recordOutcome(claimed, limited, 3 * BACKOFF_END_MS + 1000).message.status).toBe('failed');
  });

  it('keeps the last dispatch number when a message leaves queued', () => {
    const out = recordOutcome(
      message({ dispatch: { execution: 'msg_1-s4', at: 0, n: 4 } }),
      {
        type: 'rejected',
        reason: 'provider_validation',
        code: 'x',
        detail: 'y',
      },
      5,
    );
    expect(out.message.dispatch).toBeUndefined();
    expect(out.message.dispatch_n).toBe(4);
  });
});

describe('undispatched: the domain gap and the sweeper’s dispatch', () => {
  it.each([
    ['no domain record', undefined, false, { reason: 'domain_not_configured', holdable: true }],
    [
      'a domain without a transport',
      { state: 'healthy', transport: undefined },
      false,
      { reason: 'transport_not_configured', holdable: true },
    ],
    [
      'a domain with the test transport',
      { state: 'healthy', transport: 'test' },
      false,
      { reason: 'transport_not_configured', holdable: true },
    ],
    [
      'a domain being removed',
      { state: 'removing', transport: 'ses' },
      false,
      { reason: 'domain_not_configured', holdable: false },
    ],
    [
      'marketing through Cloudflare',
      { state: 'healthy', transport: 'cloudflare' },
      true,
      { reason: 'marketing_needs_ses', holdable: false },
    ],
    ['a configured SES domain', { state: 'healthy', transport: 'ses' }, false, undefined],
  ] as const)('%s', (_, domain, marketing, expected) => {
    expect(transportGap(domain as never, marketing)).toEqual(expected);
  });

  it('dispatches a held message only once the domain is configured and verified', () => {
    expect(canDispatchHeld(undefined, false)).toBe(false);
    expect(canDispatchHeld({ state: 'healthy', transport: 'test' }, false)).toBe(false);
    expect(canDispatchHeld({ state: 'verifying', transport: 'ses' }, false)).toBe(false);
    expect(canDispatchHeld({ state: 'healthy', transport: 'smtp' }, false)).toBe(true);
  });

  it('queues a held message under its first execution name; a scheduled one in the Standard machine', () => {
    const held = message({ status: 'undispatched', dispatch: undefined, claim: undefined });
    const exec = (n: number, scheduled: boolean) => `msg_1-${scheduled ? 's' : 'd'}${n}`;
    expect(dispatchHeld(held, 7, exec)).toMatchObject({
      status: 'queued',
      dispatch: { execution: 'msg_1-d1', at: 7, n: 1 },
    });
    expect(dispatchHeld({ ...held, send_at: 99 }, 7, exec)).toMatchObject({
      dispatch: { execution: 'msg_1-s1', at: 99, n: 1 },
    });
    expect(dispatchHeld({ ...held, status: 'canceled' }, 7, exec)).toBeUndefined();
  });
});

/**
 * What retries (docs/guides/sending.md › The job model), checked against each transport's classifier
 * (docs/reference/provider-answers.md): the transport's answer, classified, then recorded. Rate
 * limits and transient failures back off; refusals are terminal; an answer the tables do not
 * classify is never retried (pmail: `uncertain`, because the provider may have sent it); a
 * suppressed recipient is an outcome, not a failure.
 */
describe('what retries, through the classifiers and Record', () => {
  const sesErr = (name: string, status: number): SesAnswer => ({ type: 'error', name, status });
  const cfErr = (status: number, code: number): CfAnswer => ({
    type: 'http',
    status,
    body: { success: false, errors: [{ code, message: 'x' }], messages: [], result: null },
  });
  const smtp = (end: SmtpEnd) =>
    classifySmtp({ host: 'relay.example', rfc_message_id: 'id@x', rcpt: [], end });
  const ses = (a: SesAnswer) => classifySesAnswer(a, 'example.com').result;
  const cf = (a: CfAnswer) => {
    const out = classifyCloudflare(a, 'msg_1');
    if (out.type === 'recipient_suppressed') throw new Error('a suppression round, not a result');
    return out;
  };

  const rows: [string, TransportResult, 'back_off' | 'terminal' | 'never_resent', string][] = [
    ['SES throttled (429)', ses(sesErr('TooManyRequestsException', 429)), 'back_off', 'queued'],
    ['SES daily quota', ses(sesErr('LimitExceededException', 400)), 'back_off', 'queued'],
    ['SES account paused', ses(sesErr('SendingPausedException', 400)), 'back_off', 'queued'],
    ['SES MessageRejected', ses(sesErr('MessageRejected', 400)), 'terminal', 'rejected'],
    ['SES sender not verified (NotFound)', ses(sesErr('NotFoundException', 404)), 'terminal', 'rejected'],
    ['SES 5xx', ses(sesErr('InternalFailure', 500)), 'never_resent', 'uncertain'],
    ['SES an untyped error', ses(sesErr('Error', 400)), 'never_resent', 'uncertain'],
    ['SES no answer', ses({ type: 'no_answer', timeout: true, detail: 'x' }), 'never_resent', 'uncertain'],
    ['Cloudflare rate limit (429 10004)', cf(cfErr(429, 10004)), 'back_off', 'queued'],
    ['Cloudflare sending disabled (403 10203)', cf(cfErr(403, 10203)), 'back_off', 'queued'],
    ['Cloudflare validation (400 10001)', cf(cfErr(400, 10001)), 'terminal', 'rejected'],
    ['Cloudflare not found (404 10000)', cf(cfErr(404, 10000)), 'terminal', 'rejected'],
    ['Cloudflare 500 10002', cf(cfErr(500, 10002)), 'never_resent', 'uncertain'],
    ['Cloudflare an unrecognised code', cf(cfErr(400, 99999)), 'never_resent', 'uncertain'],
    [
      'SMTP 4xx before the dot',
      smtp({ type: 'reply', stage: 'mail', code: 451, text: 'x' }),
      'back_off',
      'queued',
    ],
    ['SMTP 451 to the dot', smtp({ type: 'dot_reply', code: 451, text: 'x' }), 'back_off', 'queued'],
    ['SMTP 554 to the dot', smtp({ type: 'dot_reply', code: 554, text: 'x' }), 'terminal', 'rejected'],
    [
      'SMTP the connection lost after the dot',
      smtp({ type: 'no_answer', dot_written: true, timed_out: false, detail: 'x' }),
      'never_resent',
      'uncertain',
    ],
    [
      'the simulator’s rate limit',
      simulate(['ratelimit@simulator.invalid'], 'p', 1).result,
      'back_off',
      'queued',
    ],
    ['the simulator’s reject', simulate(['reject@simulator.invalid'], 'p', 1).result, 'terminal', 'rejected'],
  ];

  it.each(rows)('%s → %s (%s)', (_, result, verdict, status) => {
    const out = recordOutcome(message(), result, 1_000);
    expect(out.message.status).toBe(status);
    expect(out.next.type).toBe(verdict === 'back_off' ? 'wait' : 'done');
    // Terminal and never-resent outcomes name no execution: nothing more is coming for the message.
    if (verdict !== 'back_off') expect(out.message.dispatch).toBeUndefined();
  });

  it('records a recipient the provider suppressed as an outcome, not a failure', () => {
    const out = recordOutcome(
      message(),
      {
        type: 'rejected',
        reason: 'recipient_suppressed_by_provider',
        code: 'E_RECIPIENT_SUPPRESSED',
        detail: 'x',
        provider_suppressed: [
          { address: 'ada@example.net', reason: 'hard_bounce' },
          { address: 'BO@example.net', reason: 'complaint' },
        ],
      },
      1_000,
    );
    expect(out.message.status).toBe('suppressed');
    expect(out.message.deliveries!.map((d) => d.status)).toEqual(['suppressed', 'suppressed']);
  });
});
