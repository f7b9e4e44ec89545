import { describe, expect, it } from 'vitest';
import { senderDomainDecision } from '../../functions/core/sender-domain.ts';
import { classifySesAnswer, type SesAnswer } from '../../functions/core/ses-outcome.ts';

const error = (name: string, status: number, message?: string): SesAnswer => ({
  type: 'error',
  name,
  status,
  message,
});

/**
 * docs/reference/provider-answers.md › Amazon SES v2 SendEmail: one row per line of its table (the
 * `answer` column in the words of that line), each with every answer the line names.
 */
const ROWS: { answer: string; cases: SesAnswer[]; expected: object; follow_up?: string }[] = [
  {
    answer: '200 with `MessageId`',
    cases: [{ type: 'ok', message_id: '0100018c-ses-id' }],
    expected: {
      type: 'accepted',
      provider: 'ses',
      provider_message_id: '0100018c-ses-id',
      refused: [],
      deferred: [],
    },
  },
  {
    answer: '`MessageRejected`, `BadRequestException`, any other 4xx with an error type',
    cases: [
      error('MessageRejected', 400, 'Illegal address'),
      error(
        'MessageRejected',
        400,
        'Email address is not verified. The following identities failed the check in region US-EAST-1: jo@example.net',
      ),
      error('BadRequestException', 400, 'Message too large'),
      error('InvalidParameterValue', 400),
    ],
    expected: { type: 'rejected', reason: 'provider_validation' },
  },
  {
    answer: '`MailFromDomainNotVerifiedException`, `NotFoundException`',
    cases: [
      error('MailFromDomainNotVerifiedException', 400),
      error('NotFoundException', 404),
      // an unverified sender identity answers MessageRejected naming the sender's domain
      error(
        'MessageRejected',
        400,
        'Email address is not verified. The following identities failed the check in region EU-WEST-1: agent@acme.example',
      ),
    ],
    expected: { type: 'rejected', reason: 'sender_domain_unavailable' },
    follow_up: 'domain_check',
  },
  {
    answer: '`TooManyRequestsException` (429)',
    cases: [
      error('TooManyRequestsException', 429, 'Maximum sending rate exceeded.'),
      error('Throttling', 400),
    ],
    expected: { type: 'retry_later', class: 'RateLimit' },
  },
  {
    answer: '`LimitExceededException` (daily quota)',
    cases: [
      error('LimitExceededException', 400),
      error('TooManyRequestsException', 429, 'Daily message quota exceeded.'),
    ],
    expected: { type: 'retry_later', class: 'Quota' },
    follow_up: 'provider_quota',
  },
  {
    answer: '`AccountSuspendedException`, `SendingPausedException`',
    cases: [error('AccountSuspendedException', 400), error('SendingPausedException', 400)],
    expected: { type: 'retry_later', class: 'Paused' },
    follow_up: 'operator_alert',
  },
  {
    answer: 'any 5xx, a connection error, a timeout, a reset after the request was written, Lambda killed',
    cases: [
      error('InternalFailure', 500),
      error('ServiceUnavailable', 503),
      error('Error', 400),
      { type: 'no_answer', timeout: false, detail: 'ECONNREFUSED' },
      { type: 'no_answer', timeout: true, detail: 'TimeoutError' },
      { type: 'no_answer', timeout: false, detail: 'socket hang up (ECONNRESET)' },
      // "Lambda killed" never reaches the classifier: the ASL's Catch records it (test/infra/asl.test.ts)
    ],
    expected: { type: 'unknown' },
  },
];

describe('classifySesAnswer: every row of docs/reference/provider-answers.md › Amazon SES', () => {
  it('has the seven rows of the table', () => {
    expect(ROWS).toHaveLength(7);
  });

  describe.each(ROWS.map((r) => [r.answer, r] as const))('%s', (_, row) => {
    it.each(row.cases.map((c) => [JSON.stringify(c), c] as const))('%s', (__, answer) => {
      const out = classifySesAnswer(answer, 'acme.example');
      expect(out.result).toMatchObject(row.expected);
      expect(out.follow_up).toBe(row.follow_up);
    });
  });

  it('tells a timeout from a lost connection', () => {
    const t = classifySesAnswer({ type: 'no_answer', timeout: true, detail: 'x' }, 'a.example').result;
    const c = classifySesAnswer({ type: 'no_answer', timeout: false, detail: 'x' }, 'a.example').result;
    expect(t).toMatchObject({ reason: 'transport_timeout' });
    expect(c).toMatchObject({ reason: 'transport_connection_lost' });
  });
});

describe('senderDomainDecision: the sending domain’s state decides send, fallback or stop', () => {
  const base = { fallbackAllowed: false, fallbackAvailable: false, isPlatformDomain: false };
  it.each([
    ['healthy', base, { type: 'send' }],
    ['degraded', base, { type: 'send' }],
    ['failing', { ...base, fallbackAllowed: true, fallbackAvailable: true }, { type: 'fallback' }],
    ['suspended', { ...base, fallbackAllowed: true, fallbackAvailable: true }, { type: 'fallback' }],
    ['failing', base, { type: 'stop', result: { status: 'failed', reason: 'domain_failing_no_fallback' } }],
    ['suspended', base, { type: 'stop', result: { status: 'failed', reason: 'domain_failing_no_fallback' } }],
    // the platform domain has no fallback
    [
      'failing',
      { fallbackAllowed: true, fallbackAvailable: true, isPlatformDomain: true },
      { type: 'stop', result: { reason: 'domain_failing_no_fallback' } },
    ],
    // no fallback transport deployed
    [
      'failing',
      { ...base, fallbackAllowed: true },
      { type: 'stop', result: { reason: 'domain_failing_no_fallback' } },
    ],
    ['removing', base, { type: 'stop', result: { type: 'rejected', reason: 'sender_domain_unavailable' } }],
    ['removed', base, { type: 'stop', result: { type: 'rejected', reason: 'sender_domain_unavailable' } }],
    [undefined, base, { type: 'stop', result: { type: 'rejected', reason: 'sender_domain_unavailable' } }],
  ] as const)('%s %o → %o', (state, opts, expected) => {
    const out = senderDomainDecision({ state, ...opts });
    expect(out).toMatchObject(expected);
    if (out.type === 'stop' && out.result.reason === 'sender_domain_unavailable') {
      expect(out.result.status).toBeUndefined();
    }
  });
});
