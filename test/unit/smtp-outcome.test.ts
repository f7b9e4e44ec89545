import { describe, expect, it } from 'vitest';
import { relayRefusalAtSend } from '../../functions/core/domains.ts';
import { relayAddressAllowed, relayTargetAllowed } from '../../functions/core/relay-address.ts';
import {
  classifySmtp,
  classifySmtpEnvelopes,
  type SmtpEnd,
  type SmtpRcptReply,
  smtpDomainIssue,
  smtpImplicitTls,
} from '../../functions/core/smtp-outcome.ts';

const run = (end: SmtpEnd, rcpt: SmtpRcptReply[] = []) =>
  classifySmtp({ host: 'Relay.Example', rfc_message_id: 'id@acme.example', rcpt, end });

const beforeDot = (timed_out: boolean): SmtpEnd => ({
  type: 'no_answer',
  dot_written: false,
  timed_out,
  detail: 'x',
});
const afterDot = (timed_out: boolean): SmtpEnd => ({
  type: 'no_answer',
  dot_written: true,
  timed_out,
  detail: 'x',
});

/** The answers of docs/reference/provider-answers.md › SMTP relay, each made to happen. */
describe('classifySmtp: docs/reference/provider-answers.md › SMTP relay', () => {
  it.each<[string, SmtpEnd, SmtpRcptReply[], Record<string, unknown>]>([
    // Anything before the final dot is written → RetryLater (Relay).
    ['connect timeout', beforeDot(true), [], { type: 'retry_later', class: 'Relay', code: 'smtp_timeout' }],
    ['dropped connection before the dot', beforeDot(false), [], { type: 'retry_later', class: 'Relay' }],
    [
      'greeting 421',
      { type: 'reply', stage: 'greeting', code: 421, text: 'busy' },
      [],
      { type: 'retry_later' },
    ],
    [
      'greeting 554',
      { type: 'reply', stage: 'greeting', code: 554, text: 'no service' },
      [],
      { type: 'retry_later' },
    ],
    ['EHLO 5xx', { type: 'reply', stage: 'ehlo', code: 502, text: 'no' }, [], { type: 'retry_later' }],
    [
      'STARTTLS 454',
      { type: 'reply', stage: 'starttls', code: 454, text: 'tls later' },
      [],
      { type: 'retry_later' },
    ],
    [
      '4xx to AUTH',
      { type: 'reply', stage: 'auth', code: 454, text: 'temp' },
      [],
      { type: 'retry_later', class: 'Relay' },
    ],
    [
      '4xx to MAIL FROM',
      { type: 'reply', stage: 'mail', code: 451, text: 'later' },
      [],
      { type: 'retry_later' },
    ],
    // No STARTTLS advertised.
    [
      'no STARTTLS offered',
      { type: 'no_starttls' },
      [],
      { type: 'rejected', reason: 'sender_domain_unavailable', code: 'smtp_tls_required' },
    ],
    // 535 (or another 5xx) to AUTH.
    [
      '535 to AUTH',
      { type: 'reply', stage: 'auth', code: 535, text: 'bad credentials' },
      [],
      { type: 'rejected', reason: 'sender_domain_unavailable', code: 'smtp_auth_failed' },
    ],
    ['534 to AUTH', { type: 'reply', stage: 'auth', code: 534, text: 'x' }, [], { code: 'smtp_auth_failed' }],
    // 5xx to MAIL FROM.
    [
      '5xx to MAIL FROM',
      { type: 'reply', stage: 'mail', code: 550, text: 'sender refused' },
      [],
      { type: 'rejected', reason: 'provider_validation', code: 'smtp_550' },
    ],
    // 5xx to one RCPT → refused[], the rest continue; every RCPT 5xx → Rejected.
    [
      '5xx to one RCPT',
      { type: 'dot_reply', code: 250, text: 'ok' },
      [{ address: 'gone@x', code: 550, text: 'no such user' }],
      {
        type: 'accepted',
        refused: [{ address: 'gone@x', code: '550', detail: '550 no such user' }],
        deferred: [],
      },
    ],
    [
      'every RCPT 5xx',
      { type: 'no_recipient' },
      [
        { address: 'a@x', code: 550, text: 'no' },
        { address: 'b@x', code: 553, text: 'no' },
      ],
      { type: 'rejected', reason: 'provider_validation' },
    ],
    // 4xx to one RCPT → deferred[]; every RCPT 4xx → RetryLater (Relay).
    [
      '4xx to one RCPT',
      { type: 'dot_reply', code: 250, text: 'ok' },
      [{ address: 'busy@x', code: 450, text: 'busy' }],
      { type: 'accepted', refused: [], deferred: ['busy@x'] },
    ],
    [
      'every RCPT 4xx',
      { type: 'no_recipient' },
      [
        { address: 'a@x', code: 450, text: 'busy' },
        { address: 'b@x', code: 451, text: 'later' },
      ],
      { type: 'retry_later', class: 'Relay', refused: [] },
    ],
    [
      'every RCPT refused, one 5xx and one 4xx',
      { type: 'no_recipient' },
      [
        { address: 'a@x', code: 550, text: 'no' },
        { address: 'b@x', code: 451, text: 'later' },
      ],
      { type: 'retry_later', class: 'Relay', refused: [{ address: 'a@x', code: '550', detail: '550 no' }] },
    ],
    // 250 to the final dot.
    [
      '250 to the final dot',
      { type: 'dot_reply', code: 250, text: '2.0.0 queued as ABC' },
      [],
      {
        type: 'accepted',
        provider: 'smtp',
        provider_message_id: 'smtp:relay.example:id@acme.example',
        rfc_message_id: 'id@acme.example',
      },
    ],
    // 4xx / 5xx to the final dot.
    [
      '451 to the final dot',
      { type: 'dot_reply', code: 451, text: 'later' },
      [],
      { type: 'retry_later', class: 'Relay' },
    ],
    [
      '554 to the final dot',
      { type: 'dot_reply', code: 554, text: 'spam' },
      [],
      { type: 'rejected', reason: 'provider_validation', code: 'smtp_554' },
    ],
    // Final dot written, then a drop, no reply within 60 s, or the deadline → Unknown.
    ['drop after the dot', afterDot(false), [], { type: 'unknown', reason: 'transport_connection_lost' }],
    [
      'no reply within 60 s / the deadline after the dot',
      afterDot(true),
      [],
      { type: 'unknown', reason: 'transport_timeout' },
    ],
  ])('%s', (_, end, rcpt, expected) => {
    expect(run(end, rcpt)).toMatchObject(expected);
  });

  it('a 5xx to DATA (the command) is definitive: nothing was sent', () => {
    expect(run({ type: 'reply', stage: 'data', code: 554, text: 'no valid recipients' })).toMatchObject({
      type: 'rejected',
      reason: 'provider_validation',
    });
  });

  it('raises a domain issue for a missing STARTTLS and a 5xx to AUTH only', () => {
    expect(smtpDomainIssue({ type: 'no_starttls' })).toBe('smtp_tls_required');
    expect(smtpDomainIssue({ type: 'reply', stage: 'auth', code: 535, text: '' })).toBe('smtp_auth_failed');
    expect(smtpDomainIssue({ type: 'reply', stage: 'auth', code: 454, text: '' })).toBeUndefined();
  });

  it('a send whose relay refused the login or hid STARTTLS fails a sending domain at once', () => {
    const smtp = (state: 'healthy' | 'degraded' | 'verifying' | 'failing' | 'suspended') => ({
      state,
      transport: 'smtp' as const,
    });
    const auth535 = run({ type: 'reply', stage: 'auth', code: 535, text: 'bad login' });
    expect(relayRefusalAtSend(smtp('healthy'), auth535)).toEqual({
      state: 'failing',
      state_reason: 'smtp_auth_failed',
    });
    expect(relayRefusalAtSend(smtp('degraded'), run({ type: 'no_starttls' }))).toEqual({
      state: 'failing',
      state_reason: 'smtp_tls_required',
    });
    // Not sending (or already failing): nothing moves; other answers move nothing either.
    for (const state of ['verifying', 'failing', 'suspended'] as const)
      expect(relayRefusalAtSend(smtp(state), auth535)).toBeUndefined();
    expect(relayRefusalAtSend({ state: 'healthy', transport: 'ses' }, auth535)).toBeUndefined();
    for (const end of [
      { type: 'reply', stage: 'auth', code: 454, text: 'try later' },
      { type: 'reply', stage: 'mail', code: 550, text: 'no' },
      { type: 'target_refused', detail: 'loopback' },
      beforeDot(false),
    ] as SmtpEnd[])
      expect(relayRefusalAtSend(smtp('healthy'), run(end))).toBeUndefined();
  });

  it('uses implicit TLS on 465 only, unless the domain says otherwise', () => {
    expect([465, 587, 25, 2525].map((p) => smtpImplicitTls(p))).toEqual([true, false, false, false]);
    expect(smtpImplicitTls(2525, 'implicit')).toBe(true);
  });
});

describe('classifySmtpEnvelopes: one envelope per recipient, folded per recipient', () => {
  const ok: SmtpEnd = { type: 'dot_reply', code: 250, text: 'ok' };
  const env = (address: string, end: SmtpEnd, rcpt?: SmtpRcptReply) => ({
    address,
    end,
    ...(rcpt ? { rcpt } : {}),
  });
  const fold = (envelopes: ReturnType<typeof env>[], untried: string[] = []) =>
    classifySmtpEnvelopes({ host: 'relay.example', rfc_message_id: 'id@acme.example', envelopes, untried });
  const pid = 'smtp:relay.example:id@acme.example';

  it.each<[string, ReturnType<typeof env>[], string[], Record<string, unknown>]>([
    [
      'every envelope taken',
      [env('a', ok), env('b', ok)],
      [],
      { type: 'accepted', provider_message_id: pid, refused: [], deferred: [] },
    ],
    [
      'taken, then no answer after the dot, then untried',
      [env('a', ok), env('b', afterDot(true))],
      ['c'],
      {
        type: 'accepted',
        refused: [],
        deferred: ['c'],
        uncertain: [{ address: 'b', reason: 'transport_timeout' }],
      },
    ],
    [
      'taken, a 550 to RCPT, a 451 to the dot',
      [
        env('a', ok),
        env('b', { type: 'no_recipient' }, { address: 'b', code: 550, text: 'no such user' }),
        env('c', { type: 'dot_reply', code: 451, text: 'later' }),
      ],
      [],
      { type: 'accepted', refused: [{ address: 'b', code: '550' }], deferred: ['c'] },
    ],
    [
      'the first answer lost, the rest untried: that one uncertain, the rest queued',
      [env('a', afterDot(false))],
      ['b'],
      {
        type: 'accepted',
        deferred: ['b'],
        uncertain: [{ address: 'a', reason: 'transport_connection_lost' }],
      },
    ],
    [
      'the only answer lost → unknown, as one send',
      [env('a', afterDot(true))],
      [],
      { type: 'unknown', reason: 'transport_timeout' },
    ],
    [
      'nothing reached the relay: a drop before the first dot → retry later',
      [env('a', beforeDot(false))],
      ['b'],
      { type: 'retry_later', class: 'Relay', refused: [] },
    ],
    [
      'every recipient refused → rejected',
      [
        env('a', { type: 'no_recipient' }, { address: 'a', code: 550, text: 'no' }),
        env('b', { type: 'dot_reply', code: 554, text: 'spam' }),
      ],
      [],
      { type: 'rejected', reason: 'provider_validation', code: 'smtp_550' },
    ],
    [
      'one refused, one 4xx → retry later keeps the refusal',
      [
        env('a', { type: 'no_recipient' }, { address: 'a', code: 550, text: 'no' }),
        env('b', { type: 'dot_reply', code: 421, text: 'later' }),
      ],
      [],
      { type: 'retry_later', refused: [{ address: 'a', code: '550' }] },
    ],
  ])('%s', (_name, envelopes, untried, expected) => {
    expect(fold(envelopes, untried)).toMatchObject(expected);
  });
});

describe('relay SSRF rules', () => {
  it.each([
    '127.0.0.1',
    '10.0.0.1',
    '172.16.5.4',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '192.0.2.10',
    '198.51.100.1',
    '203.0.113.7',
    '198.18.0.1',
    '224.0.0.5',
    '255.255.255.255',
    '0.0.0.0',
    '240.0.0.1',
    '::1',
    '::',
    'fe80::1',
    'fc00::1',
    'fd12:3456::1',
    'ff02::1',
    '2001:db8::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '::ffff:169.254.169.254',
    '64:ff9b::a9fe:a9fe',
    'not-an-ip',
  ])('refuses %s', (ip) => {
    expect(relayAddressAllowed(ip).ok).toBe(false);
  });

  it.each(['8.8.8.8', '1.1.1.1', '2a00:1450:4001:81c::201a', '::ffff:8.8.4.4'])('allows %s', (ip) => {
    expect(relayAddressAllowed(ip).ok).toBe(true);
  });

  it('allows only ports 25, 465, 587, 2525, and refuses a host with any refused address', () => {
    for (const p of [25, 465, 587, 2525]) expect(relayTargetAllowed(p, ['8.8.8.8']).ok).toBe(true);
    for (const p of [26, 2526, 80, 443, 0]) expect(relayTargetAllowed(p, ['8.8.8.8']).ok).toBe(false);
    expect(relayTargetAllowed(587, ['8.8.8.8', '10.0.0.1']).ok).toBe(false);
    expect(relayTargetAllowed(587, []).ok).toBe(false);
  });
});
