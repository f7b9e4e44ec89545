import { describe, expect, it } from 'vitest';
import { normaliseCf, unwrapCf } from '../../functions/core/cf-events.ts';
import { isJournalAddress, journalAddress } from '../../functions/core/journal.ts';
import { type CfFacts, type CfKind, cfEvent } from '../support/cf-fixtures.ts';

const AT = Date.UTC(2030, 0, 1, 12);
const facts: CfFacts = {
  eventId: '0190d0c4-7e9a-7b3c-9f12-1a2b3c4d5e6f',
  messageId: '0101018f7d0c4d9a-msg-deadbeef',
  sender: 'noreply@example.com',
  recipient: 'user@example.net',
  subject: 'Welcome',
  at: AT,
};

const normalise = (record: unknown) => {
  const r = unwrapCf(JSON.stringify(record));
  if (!r) throw new Error('not a Cloudflare event');
  return normaliseCf(r);
};
const event = (record: unknown) => {
  const n = normalise(record);
  if (n.type !== 'events') throw new Error(`got ${n.type}`);
  expect(n.events).toHaveLength(1);
  return n.events[0];
};

describe('Cloudflare Email Sending events → DeliveryEvent', () => {
  it('makes one event with the eventId, messageId, addresses, subject and eventTimestamp', () => {
    expect(event(cfEvent('delivered', facts))).toEqual({
      source: 'cloudflare',
      event_id: facts.eventId,
      provider_message_id: facts.messageId,
      sender: 'noreply@example.com',
      recipient: 'user@example.net',
      subject: 'Welcome',
      kind: 'delivered',
      smtp_code: '250',
      enhanced_code: '2.0.0',
      smtp_response: '250 2.0.0 OK 1714820445 a1b2c3 - gsmtp',
      occurred_at: AT,
    });
  });

  it.each<[CfKind, Record<string, unknown>]>([
    ['delivered', { kind: 'delivered', smtp_code: '250', enhanced_code: '2.0.0' }],
    [
      'deferred',
      {
        kind: 'deferred',
        smtp_code: '451',
        enhanced_code: '4.2.0',
        smtp_response: '451 4.2.0 Temporary mailbox error',
      },
    ],
    [
      'bounced',
      {
        kind: 'bounced',
        bounce_type: 'hard',
        smtp_code: '550',
        enhanced_code: '5.1.1',
        smtp_response: '550 5.1.1 User unknown',
      },
    ],
    ['failed', { kind: 'failed', smtp_response: 'cloudflare: failed (delivery_failed)' }],
    [
      'rejected',
      { kind: 'rejected', smtp_response: 'cloudflare: rejected (suppressed: Recipient is suppressed)' },
    ],
    ['complained', { kind: 'complained' }],
  ])('maps the documented %s example', (kind, expected) => {
    const e = event(cfEvent(kind, facts));
    expect(e).toMatchObject(expected);
    if (kind === 'deferred') expect(e.bounce_type).toBeUndefined();
    if (kind === 'failed' || kind === 'rejected' || kind === 'complained')
      expect(e.smtp_code).toBeUndefined();
  });

  it('leaves the subject out of a complaint, as the documented example has none', () => {
    expect(event(cfEvent('complained', facts))).not.toHaveProperty('subject');
  });

  it.each([
    ['soft', { type: 'soft', classification: 'temporary_failure', reason: 'retries exhausted' }, 'soft'],
    ['hard', { type: 'hard', classification: 'permanent_failure', reason: '550 5.1.1' }, 'hard'],
    ['absent', undefined, 'soft'],
  ])('takes the bounce type from bounce.type (%s)', (_name, bounce, expected) => {
    expect(event(cfEvent('bounced', facts, { bounce })).bounce_type).toBe(expected);
  });

  it('trims the SMTP response to 512 characters', () => {
    const long = `550 5.1.1 ${'x'.repeat(1000)}`;
    const e = event(
      cfEvent('bounced', facts, {
        delivery: { status: 'bounced', smtpStatusCode: '550', smtpResponse: long },
      }),
    );
    expect(e.smtp_response).toHaveLength(512);
    expect(e.smtp_response).toBe(long.slice(0, 512));
  });

  it('lower-cases the addresses and strips a display name', () => {
    const e = event(
      cfEvent('delivered', {
        ...facts,
        sender: 'No Reply <NoReply@Example.com>',
        recipient: 'User@Example.NET',
      }),
    );
    expect(e).toMatchObject({ sender: 'noreply@example.com', recipient: 'user@example.net' });
  });

  it.each([
    [
      'an unknown message type',
      { ...cfEvent('delivered', facts), type: 'cf.email.sending.message.opened' },
      'cf.email.sending.message.opened',
    ],
    [
      'another Email Sending type',
      { ...cfEvent('delivered', facts), type: 'cf.email.sending.domain.verified' },
      'cf.email.sending.domain.verified',
    ],
    [
      'no eventId',
      cfEvent('delivered', facts, { eventId: undefined }),
      'cf.email.sending.message.delivered (malformed)',
    ],
    [
      'no recipient',
      cfEvent('delivered', facts, { recipient: 42 }),
      'cf.email.sending.message.delivered (malformed)',
    ],
    [
      'no eventTimestamp',
      { ...cfEvent('delivered', facts), metadata: {} },
      'cf.email.sending.message.delivered (malformed)',
    ],
    [
      'an unreadable eventTimestamp',
      { ...cfEvent('delivered', facts), metadata: { eventTimestamp: 'yesterday' } },
      'cf.email.sending.message.delivered (malformed)',
    ],
    [
      'no payload',
      { type: 'cf.email.sending.message.bounced' },
      'cf.email.sending.message.bounced (malformed)',
    ],
  ])('counts %s as unknown', (_name, record, eventType) => {
    expect(normalise(record)).toEqual({ type: 'unknown', event_type: eventType });
  });

  it.each([
    ['an SES SNS envelope', JSON.stringify({ Type: 'Notification', Message: '{}' })],
    ['a normalised DeliveryEvent', JSON.stringify({ source: 'simulator', kind: 'delivered' })],
    ['a Workers event', JSON.stringify({ type: 'cf.workers.script.deployed' })],
    ['not JSON', 'hello'],
    ['a JSON array', '[1,2]'],
  ])('leaves %s to the other parsers', (_name, body) => {
    expect(unwrapCf(body)).toBeUndefined();
  });
});

describe('journal addresses (functions/core/journal.ts)', () => {
  const mid = 'msg_01JABCDEFGHJKMNPQRSTVWXYZ0';
  const idn = 'idn_01JZYXWVTSRQPNMKJHGFEDCBA9';

  it('builds journal+{message ulid}.{identity ulid} in lower case without prefixes', () => {
    const a = journalAddress(mid, idn, 'Mail.Example.com');
    expect(a).toBe('journal+01jabcdefghjkmnpqrstvwxyz0.01jzyxwvtsrqpnmkjhgfedcba9@mail.example.com');
    expect(a.split('@')[0]).toHaveLength(61);
  });

  it.each([
    ['journal+01jabc.01jzyx@mail.example.com', true],
    ['JOURNAL+01JABC.01JZYX@Mail.Example.COM', true],
    ['journal+@mail.example.com', false],
    ['journal@mail.example.com', false],
    ['journal+01jabc.01jzyx@example.org', false],
    ['user@mail.example.com', false],
    ['journal+01jabc.01jzyx@sub.mail.example.com', false],
  ])('%s is a journal address of mail.example.com: %s', (address, expected) => {
    expect(isJournalAddress(address, 'mail.example.com')).toBe(expected);
  });
});
