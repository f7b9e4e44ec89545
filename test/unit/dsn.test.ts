import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import { describe, expect, it } from 'vitest';
import {
  dsnAwaitsRecord,
  dsnDeliveryEvents,
  dsnKey,
  dsnOutcome,
  MAX_DIAGNOSTIC_CHARS,
  type ParsedDsn,
  parseDsn,
  untrustedLine,
} from '../../functions/core/dsn.ts';
import { dsnParts } from '../../functions/inbound/dsn.ts';

const FIXTURES = join(import.meta.dirname, '../fixtures/dsn');

type Expected = {
  original_message_id?: string;
  reporting_mta?: string;
  recipients: {
    final_recipient: string;
    action?: string;
    status?: string;
    diagnostic_code?: string | RegExp;
    remote_mta?: string;
    /** What dsnOutcome makes of it. */
    outcome: string | undefined;
  }[];
};

/**
 * Each fixture reconstructs the shape a published DSN has (RFC 3464's appendix, Postfix, Exim,
 * Exchange Online, Gmail's mailer-daemon), with this project's addresses where the original
 * Message-ID is one of pmail's.
 */
const TABLE: [file: string, expected: Expected | undefined][] = [
  [
    'rfc3464-simple.eml',
    {
      original_message_id: '<199406301744.NAA10123@cs.utk.edu>',
      reporting_mta: 'cs.utk.edu',
      recipients: [
        {
          final_recipient: 'louisl@larry.slip.umd.edu',
          action: 'failed',
          status: '4.0.0',
          diagnostic_code: 'smtp; 426 connection timed out',
          outcome: 'bounced/soft',
        },
      ],
    },
  ],
  [
    'rfc3464-multi.eml',
    {
      original_message_id: '<199407081321.JAA13158@cs.utk.edu>',
      recipients: [
        {
          final_recipient: 'arathib@vnet.ibm.com',
          action: 'failed',
          status: '5.0.0',
          diagnostic_code: "smtp; 550 'arathib@vnet.IBM.COM' is not a registered gateway user",
          remote_mta: 'vnet.ibm.com',
          outcome: 'bounced/hard',
        },
        {
          final_recipient: 'johnh@hpnjld.njd.hp.com',
          action: 'delayed',
          status: '4.0.0',
          outcome: 'deferred',
        },
        {
          final_recipient: 'wsnell@sdcc13.ucsd.edu',
          action: 'failed',
          status: '5.0.0',
          remote_mta: 'sdcc13.ucsd.edu',
          outcome: 'bounced/hard',
        },
      ],
    },
  ],
  [
    'postfix-user-unknown.eml',
    {
      original_message_id: '<01JF0000000000000000000000@acme.example>',
      reporting_mta: 'mail.example.net',
      recipients: [
        {
          final_recipient: 'nobody@example.org',
          action: 'failed',
          status: '5.1.1',
          diagnostic_code:
            'smtp; 550 5.1.1 <nobody@example.org>: Recipient address rejected: User unknown in local recipient table',
          remote_mta: 'mx.example.org',
          outcome: 'bounced/hard',
        },
      ],
    },
  ],
  [
    'postfix-delayed.eml',
    {
      original_message_id: '<01JF0000000000000000000001@acme.example>',
      recipients: [
        {
          final_recipient: 'slow@example.org',
          action: 'delayed',
          status: '4.4.1',
          diagnostic_code: /^X-Postfix; connect to .* Connection timed out$/,
          outcome: 'deferred',
        },
      ],
    },
  ],
  [
    'exim.eml',
    {
      original_message_id: '<01JF0000000000000000000002@acme.example>',
      reporting_mta: 'mx1.example.com',
      recipients: [
        {
          final_recipient: 'gone@example.com',
          action: 'failed',
          status: '5.0.0',
          diagnostic_code: 'smtp; 550 5.1.1 No such user',
          remote_mta: 'mx.example.com',
          outcome: 'bounced/hard',
        },
      ],
    },
  ],
  [
    'outlook.eml',
    {
      original_message_id: '<01JF0000000000000000000003@acme.example>',
      reporting_mta: 'BN8PR00MB1234.namprd00.prod.outlook.com',
      recipients: [
        {
          final_recipient: 'missing@contoso.example',
          action: 'failed',
          status: '5.1.10',
          diagnostic_code: /^smtp;550 5\.1\.10 RESOLVER\.ADR\.RecipientNotFound; Recipient missing@/,
          outcome: 'bounced/hard',
        },
      ],
    },
  ],
  [
    'gmail.eml',
    {
      original_message_id: '<01JF0000000000000000000004@acme.example>',
      reporting_mta: 'googlemail.com',
      recipients: [
        {
          final_recipient: 'nosuchuser@gmail.com',
          action: 'failed',
          status: '5.1.1',
          diagnostic_code: /^smtp; 550-5\.1\.1 The email account .* - gsmtp$/,
          remote_mta: 'gmail-smtp-in.l.google.com.',
          outcome: 'bounced/hard',
        },
      ],
    },
  ],
  [
    'gmail-delayed.eml',
    {
      original_message_id: '<01JF0000000000000000000005@acme.example>',
      recipients: [
        { final_recipient: 'later@example.net', action: 'delayed', status: '4.4.1', outcome: 'deferred' },
      ],
    },
  ],
  [
    // Returned headers only, folded Message-ID, upper-case types, no blank line between recipients.
    'headers-only-no-blank.eml',
    {
      original_message_id: '<01JF0000000000000000000006@acme.example>',
      recipients: [
        {
          final_recipient: 'first@legacy.example',
          action: 'failed',
          status: '5.2.2',
          outcome: 'bounced/hard',
        },
        {
          final_recipient: 'second@legacy.example',
          action: 'failed',
          status: '5.7.1',
          diagnostic_code: 'smtp; 554 5.7.1 Relay access denied',
          outcome: 'bounced/hard',
        },
      ],
    },
  ],
  ['malformed.eml', undefined],
];

const outcomeName = (o: ReturnType<typeof dsnOutcome>) =>
  o ? (o.bounce_type ? `${o.kind}/${o.bounce_type}` : o.kind) : undefined;

async function parse(file: string, keepDeliveryStatus: boolean) {
  const parsed = await simpleParser(readFileSync(join(FIXTURES, file)), { keepDeliveryStatus });
  const parts = dsnParts(parsed);
  expect(parts, `${file} is a delivery-status report`).toBeDefined();
  return { parsed, parts: parts!, dsn: parseDsn(parts!) };
}

describe('RFC 3464 reports, parsed (core/dsn.ts › parseDsn)', () => {
  for (const keep of [true, false]) {
    describe(
      keep ? 'the status part kept apart by the parser' : 'the status part inlined into the text',
      () => {
        it.each(TABLE)('%s', async (file, expected) => {
          const { dsn } = await parse(file, keep);
          if (!expected) {
            expect(dsn).toBeUndefined();
            return;
          }
          expect(dsn).toBeDefined();
          expect(dsn!.original_message_id).toBe(expected.original_message_id);
          if (expected.reporting_mta) expect(dsn!.reporting_mta).toBe(expected.reporting_mta);
          expect(dsn!.recipients.map((r) => r.final_recipient)).toEqual(
            expected.recipients.map((r) => r.final_recipient),
          );
          dsn!.recipients.forEach((r, i) => {
            const want = expected.recipients[i];
            expect(r.action).toBe(want.action);
            expect(r.status).toBe(want.status);
            if (want.remote_mta) expect(r.remote_mta).toBe(want.remote_mta);
            if (typeof want.diagnostic_code === 'string')
              expect(r.diagnostic_code).toBe(want.diagnostic_code);
            else if (want.diagnostic_code) expect(r.diagnostic_code).toMatch(want.diagnostic_code);
            expect(outcomeName(dsnOutcome(r))).toBe(want.outcome);
          });
        });
      },
    );
  }

  it('a message that is not a delivery-status report is no DSN', async () => {
    const plain = await simpleParser(
      'From: a@example.org\r\nTo: b@example.org\r\nSubject: hi\r\nContent-Type: text/plain\r\n\r\nAction: failed\r\n',
    );
    expect(dsnParts(plain)).toBeUndefined();
    const otherReport = await simpleParser(
      readFileSync(join(FIXTURES, 'exim.eml'), 'utf8').replace(
        'report-type=delivery-status',
        'report-type=disposition-notification',
      ),
    );
    expect(dsnParts(otherReport)).toBeUndefined();
  });

  it('the Message-ID comes from the returned message before X-Original-Message-ID', () => {
    const dsn = parseDsn({
      deliveryStatus:
        'Reporting-MTA: dns; m.example\nX-Original-Message-ID: <other@x.example>\n\nFinal-Recipient: rfc822; a@b.example\nAction: failed\nStatus: 5.1.1\n',
      returned: 'Subject: x\nMessage-ID: <mine@acme.example>\n\nbody\nMessage-ID: <not-a-header@x>\n',
    });
    expect(dsn?.original_message_id).toBe('<mine@acme.example>');
    const fromReport = parseDsn({
      deliveryStatus:
        'Reporting-MTA: dns; m.example\nX-Original-Message-ID: <other@x.example>\n\nFinal-Recipient: rfc822; a@b.example\nAction: failed\nStatus: 5.1.1\n',
    });
    expect(fromReport?.original_message_id).toBe('<other@x.example>');
  });
});

describe('what a recipient report means (core/dsn.ts › dsnOutcome)', () => {
  it.each([
    [{ action: 'failed', status: '5.1.1' }, 'bounced/hard'],
    [{ action: 'failed', status: '4.4.7' }, 'bounced/soft'],
    [{ action: 'failed' }, 'bounced/soft'],
    [{ action: 'delayed', status: '4.4.1' }, 'deferred'],
    [{ action: 'delivered', status: '2.0.0' }, 'delivered'],
    [{ action: 'relayed', status: '2.0.0' }, undefined],
    [{ action: 'expanded', status: '2.0.0' }, undefined],
    [{ status: '5.0.0' }, 'bounced/hard'],
    [{ status: '4.0.0' }, 'deferred'],
    [{}, undefined],
  ] as const)('%o → %s', (r, want) => {
    expect(outcomeName(dsnOutcome(r))).toBe(want);
  });
});

describe('the delivery events of a report (core/dsn.ts › dsnDeliveryEvents)', () => {
  const dsn: ParsedDsn = {
    original_message_id: '<x@acme.example>',
    recipients: [
      {
        final_recipient: 'forwarded@elsewhere.example',
        original_recipient: 'bob@example.org',
        action: 'failed',
        status: '5.1.1',
        diagnostic_code: 'smtp; 550 5.1.1 no such user',
      },
      { final_recipient: 'carol@example.org', action: 'delayed', status: '4.4.1' },
      { final_recipient: 'stranger@example.org', action: 'failed', status: '5.1.1' },
    ],
  };
  const target = {
    identity_id: 'idn_01jf0000000000000000000001',
    message_id: 'msg_01jf0000000000000000000001',
    provider_message_id: 'smtp:relay.example:x@acme.example',
    sender: 'Agent@Acme.example',
    subject: 'Hi',
    recipients: ['Bob@example.org', 'carol@example.org'],
  };

  it('one event per recipient the message was sent to, matched by its original address first', () => {
    const { events, unknown_recipients } = dsnDeliveryEvents(dsn, target, { dsnKey: 'k1', occurredAt: 1000 });
    expect(unknown_recipients).toBe(1);
    expect(events).toHaveLength(2);
    expect(events[0]).toMatchObject({
      source: 'dsn',
      identity_id: target.identity_id,
      message_id: target.message_id,
      provider_message_id: target.provider_message_id,
      sender: 'agent@acme.example',
      recipient: 'bob@example.org',
      kind: 'bounced',
      bounce_type: 'hard',
      smtp_code: '550',
      enhanced_code: '5.1.1',
      smtp_response: 'smtp; 550 5.1.1 no such user',
      occurred_at: 1000,
    });
    expect(events[1]).toMatchObject({
      recipient: 'carol@example.org',
      kind: 'deferred',
      enhanced_code: '4.4.1',
    });
    expect(events[1].bounce_type).toBeUndefined();
  });

  it('event ids come from the report: the same report gives the same ids, another report others', () => {
    const key = dsnKey(
      '<r1@mx.example>',
      'Reporting-MTA: dns; mx\r\n\r\nFinal-Recipient: rfc822; bob@example.org\r\n',
    );
    expect(key).toBe(
      dsnKey('<r1@mx.example>', 'Reporting-MTA: dns; mx\n\nFinal-Recipient: rfc822; bob@example.org\n'),
    );
    const a = dsnDeliveryEvents(dsn, target, { dsnKey: key, occurredAt: 1 }).events.map((e) => e.event_id);
    const again = dsnDeliveryEvents(dsn, target, { dsnKey: key, occurredAt: 2 }).events.map(
      (e) => e.event_id,
    );
    const other = dsnDeliveryEvents(dsn, target, {
      dsnKey: dsnKey('<r2@mx.example>', 'x'),
      occurredAt: 1,
    }).events;
    expect(again).toEqual(a);
    expect(new Set(a).size).toBe(2);
    expect(other.map((e) => e.event_id).some((id) => a.includes(id))).toBe(false);
  });

  it('a Diagnostic-Code is kept as one bounded line of data: no control or direction characters, markup as text', () => {
    const hostile = `smtp; 550 <img src=x onerror=alert(1)>\u001b[31m\u202e gone\r\n\tInjected: yes ${'x'.repeat(5000)}`;
    const [event] = dsnDeliveryEvents(
      {
        recipients: [
          { final_recipient: 'bob@example.org', action: 'failed', status: '5.1.1', diagnostic_code: hostile },
        ],
      },
      target,
      { dsnKey: 'k', occurredAt: 1 },
    ).events;
    expect(event.smtp_response).toHaveLength(MAX_DIAGNOSTIC_CHARS);
    expect(event.smtp_response).toMatch(
      /^smtp; 550 <img src=x onerror=alert\(1\)> \[31m gone Injected: yes x+$/,
    );
    expect(event.smtp_code).toBe('550');
  });
});

describe('untrusted text (core/dsn.ts › untrustedLine)', () => {
  it.each([
    ['plain', 'plain'],
    ['two\r\nlines', 'two lines'],
    ['tab\tand  spaces ', 'tab and spaces'],
    ['nul\u0000bell\u0007del\u007fc1\u0085', 'nul bell del c1'],
    ['\u202eevil\u2066x\u2069\u200f', 'evil x'],
    ['<b>bold</b> &amp;', '<b>bold</b> &amp;'],
  ])('%j → %j', (input, out) => {
    expect(untrustedLine(input)).toBe(out);
  });

  it('cuts by characters, never inside a surrogate pair', () => {
    expect(untrustedLine('😀'.repeat(10), 3)).toBe('😀😀😀');
  });
});

describe('a report waits for its Record (core/dsn.ts › dsnAwaitsRecord)', () => {
  const m = (status: string) => ({ deliveries: [{ address: 'Bob@example.org', status }] }) as never;
  it.each([
    ['queued', true],
    ['submitted', false],
    ['uncertain', false],
    ['delivered', false],
  ])('a delivery %s → waits: %s', (status, waits) => {
    expect(dsnAwaitsRecord(m(status), 'bob@example.org')).toBe(waits);
    expect(dsnAwaitsRecord(m(status), 'other@example.org')).toBe(false);
  });
});
