import { describe, expect, it } from 'vitest';
import { evaluateAbuse, outcomeMatters, pushOutcome } from '../../functions/core/abuse.ts';
import type { DeliveryEvent } from '../../functions/core/deliveries.ts';
import { derivedEventId, suppressionEventId, ulidTime } from '../../functions/core/delivery-outbox.ts';
import type { MessageRecord } from '../../functions/core/model.ts';
import { reconcileCandidates } from '../../functions/core/reconcile.ts';
import { normaliseSes, unwrapSes } from '../../functions/core/ses-events.ts';
import { envelope, type MailFacts, ses } from '../support/ses-fixtures.ts';

const AT = Date.UTC(2030, 0, 1, 12);
const facts: MailFacts = {
  messageId: 'EXAMPLE7c191be45-e9aedb9a-02f9-4d12-a87d-dd0099a07f8a-000000',
  from: 'sender@example.com',
  to: ['jo@example.net', 'al@example.org'],
  subject: 'Your booking',
  at: AT,
};

const normalise = (record: unknown, snsId = 'sns-1') => {
  const u = unwrapSes(envelope(record, snsId));
  if (!u) throw new Error('not SES');
  return normaliseSes(u.record, u.notificationId);
};
const events = (record: unknown) => {
  const n = normalise(record);
  if (n.type !== 'events') throw new Error(`got ${n.type}`);
  return n.events;
};

describe('SES event records → DeliveryEvent', () => {
  it('makes one event per recipient with the SNS id, the SES message id and the first From address', () => {
    expect(events(ses.delivery(facts))).toEqual([
      {
        source: 'ses',
        event_id: 'ses:sns-1:jo@example.net',
        provider_message_id: facts.messageId,
        sender: 'sender@example.com',
        recipient: 'jo@example.net',
        subject: 'Your booking',
        kind: 'delivered',
        smtp_code: '250',
        enhanced_code: '2.6.0',
        smtp_response: '250 2.6.0 Message received',
        occurred_at: AT,
      },
      expect.objectContaining({ event_id: 'ses:sns-1:al@example.org', recipient: 'al@example.org' }),
    ]);
  });

  it.each([
    [
      'a Permanent bounce',
      ses.bounce(facts),
      { kind: 'bounced', bounce_type: 'hard', smtp_code: '550', enhanced_code: '5.1.1' },
    ],
    [
      'a Transient bounce',
      ses.bounce(facts, facts.to, 'Transient'),
      { kind: 'bounced', bounce_type: 'soft' },
    ],
    [
      'an Undetermined bounce',
      ses.bounce(facts, facts.to, 'Undetermined', 'Undetermined'),
      { kind: 'bounced', bounce_type: 'soft' },
    ],
    ['a complaint', ses.complaint(facts), { kind: 'complained' }],
    [
      'a delivery delay',
      ses.deliveryDelay(facts),
      { kind: 'deferred', smtp_code: '421', enhanced_code: '4.4.1' },
    ],
    ['a reject', ses.reject(facts), { kind: 'rejected', smtp_response: 'ses: rejected (Bad content)' }],
    ['a rendering failure', ses.renderingFailure(facts), { kind: 'rejected' }],
    ['an identity bounce notification', ses.identityBounce(facts), { kind: 'bounced', bounce_type: 'hard' }],
  ])('maps %s for every recipient', (_name, record, expected) => {
    const out = events(record);
    expect(out.map((e) => e.recipient)).toEqual(facts.to);
    for (const e of out) expect(e).toMatchObject(expected);
  });

  it('marks Permanent bounces of SES suppression lists as provider suppressions, and no others', () => {
    for (const sub of ['Suppressed', 'OnAccountSuppressionList'])
      expect(events(ses.bounce(facts, facts.to, 'Permanent', sub))[0].provider_suppressed).toBe(true);
    expect(events(ses.bounce(facts))[0].provider_suppressed).toBeUndefined();
    expect(
      events(ses.bounce(facts, facts.to, 'Transient', 'Suppressed'))[0].provider_suppressed,
    ).toBeUndefined();
  });

  it('turns Send into the rfc Message-ID and no status change', () => {
    expect(normalise(ses.send(facts))).toEqual({
      type: 'send',
      provider_message_id: facts.messageId,
      sender: 'sender@example.com',
      rfc_message_id: facts.messageId,
      occurred_at: AT - 60_000,
    });
  });

  it('reports Open, Click and other types as unknown', () => {
    expect(normalise(ses.open(facts))).toEqual({ type: 'unknown', event_type: 'Open' });
  });

  it('trims the SMTP response to 512 characters', () => {
    const long = ses.bounce(facts);
    long.bounce.bouncedRecipients[0].diagnosticCode = `smtp; 550 ${'x'.repeat(600)}`;
    expect(events(long)[0].smtp_response).toHaveLength(512);
  });

  it('reads raw records with a stable id derived from the body, and leaves other bodies alone', () => {
    const raw = JSON.stringify(ses.delivery(facts));
    const a = unwrapSes(raw)!;
    expect(a.notificationId).toMatch(/^raw-[0-9a-f]{32}$/);
    expect(unwrapSes(raw)!.notificationId).toBe(a.notificationId);
    expect(unwrapSes('{"event_id":"x","kind":"delivered"}')).toBeUndefined();
    expect(unwrapSes('not json')).toBeUndefined();
  });
});

describe('abuse window', () => {
  const fill = (outcomes: string) =>
    [...outcomes].reduce(
      (w, c) =>
        pushOutcome(w, ({ d: 'delivered', b: 'bounced', c: 'complained', o: 'other' } as const)[c as 'd']),
      '',
    );

  it('pauses at more than 3 complaints in 1,000 and more than 10 bounces in 200, judged on full windows', () => {
    expect(evaluateAbuse(fill('ccc')).pause).toBe(false);
    expect(evaluateAbuse(fill('cccc'))).toEqual({
      pause: true,
      metrics: { complaints: 4, complaint_window: 1000, bounces: 0, bounce_window: 200 },
    });
    expect(evaluateAbuse(fill('b'.repeat(10))).pause).toBe(false);
    expect(evaluateAbuse(fill('b'.repeat(11))).pause).toBe(true);
  });

  it('forgets bounces older than the last 200 outcomes and keeps 1,000 outcomes', () => {
    const w = fill(`${'b'.repeat(11)}${'d'.repeat(200)}`);
    expect(evaluateAbuse(w).pause).toBe(false);
    expect(fill('d'.repeat(1500))).toHaveLength(1000);
  });

  it('takes the tenant policy rates', () => {
    expect(evaluateAbuse(fill('c'), { complaint_rate_pause: 0 }).pause).toBe(true);
  });

  it('judges exactly as a full record when neutral outcomes into a clean window are not written', () => {
    const names = { d: 'delivered', b: 'bounced', c: 'complained', o: 'other' } as const;
    // A deterministic mix: long clean runs, bursts of bounces and complaints that age out.
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    let full = '';
    let sparse = '';
    let skipped = 0;
    for (let i = 0; i < 6000; i++) {
      const r = random();
      const c = (
        i % 1500 < 300 ? (r < 0.02 ? 'c' : r < 0.1 ? 'b' : r < 0.15 ? 'o' : 'd') : r < 0.05 ? 'o' : 'd'
      ) as keyof typeof names;
      full = pushOutcome(full, names[c]);
      if (outcomeMatters(sparse, names[c])) sparse = pushOutcome(sparse, names[c]);
      else skipped++;
      expect(evaluateAbuse(sparse), `after outcome ${i}`).toEqual(evaluateAbuse(full));
    }
    expect(skipped).toBeGreaterThan(500);
    expect(outcomeMatters('', 'complained')).toBe(true);
    expect(outcomeMatters('dddo', 'delivered')).toBe(false);
    expect(outcomeMatters('dcd', 'other')).toBe(true);
  });
});

describe('reconciliation candidates', () => {
  const uncertain = (over: Partial<MessageRecord> = {}): MessageRecord =>
    ({
      id: 'msg_1',
      direction: 'outbound',
      status: 'uncertain',
      from: { address: 'agent@example.com' },
      subject: 'Booking',
      flags: [],
      deliveries: [{ address: 'jo@example.net', field: 'to', status: 'uncertain', updated_at: AT }],
      ...over,
    }) as MessageRecord;
  const event = (over: Partial<DeliveryEvent> = {}): DeliveryEvent => ({
    source: 'ses',
    event_id: 'e',
    provider_message_id: 'p',
    sender: 'Agent@example.com',
    recipient: 'jo@example.net',
    subject: 'Booking',
    kind: 'delivered',
    occurred_at: AT + 60_000,
    ...over,
  });

  it('matches sender, recipient, exact subject and an uncertain delivery from 30 minutes before to 5 after', () => {
    const m = uncertain();
    expect(reconcileCandidates([m], event())).toEqual([m]);
    expect(reconcileCandidates([m], event({ occurred_at: AT + 30 * 60_000 }))).toHaveLength(1);
    expect(reconcileCandidates([m], event({ occurred_at: AT + 30 * 60_000 + 1 }))).toHaveLength(0);
    expect(reconcileCandidates([m], event({ occurred_at: AT - 5 * 60_000 }))).toHaveLength(1);
    expect(reconcileCandidates([m], event({ occurred_at: AT - 5 * 60_000 - 1 }))).toHaveLength(0);
    expect(reconcileCandidates([m], event({ subject: 'booking' }))).toHaveLength(0);
    expect(reconcileCandidates([m], event({ subject: undefined }))).toHaveLength(0);
    expect(reconcileCandidates([m], event({ recipient: 'al@example.net' }))).toHaveLength(0);
    expect(reconcileCandidates([m], event({ sender: 'other@example.com' }))).toHaveLength(0);
    expect(reconcileCandidates([uncertain({ provider_message_id: 'x' })], event())).toHaveLength(0);
    expect(reconcileCandidates([uncertain({ status: 'submitted' })], event())).toHaveLength(0);
  });
});

describe('deterministic event ids', () => {
  it('gives the suppression event a ULID of created_at and an HMAC-derived random part', () => {
    const a = suppressionEventId('k', 'ten_1', 'abc', AT);
    expect(a).toMatch(/^evt_[0-9a-hjkmnp-tv-z]{26}$/);
    expect(a.slice(4, 14)).toBe(ulidTime(AT));
    expect(suppressionEventId('k', 'ten_1', 'abc', AT)).toBe(a);
    expect(suppressionEventId('k', 'ten_1', 'abd', AT)).not.toBe(a);
    expect(suppressionEventId('other', 'ten_1', 'abc', AT)).not.toBe(a);
  });

  it('orders the events of one application by position and repeats ids for the same provider event', () => {
    const first = derivedEventId(AT, 'e|message.reconciled', 0);
    const second = derivedEventId(AT, 'e|message.delivered', 1);
    expect(first < second).toBe(true);
    expect(derivedEventId(AT, 'e|message.delivered', 1)).toBe(second);
  });

  it('encodes the ULID time part as the ulid package does', async () => {
    const { ulid } = await import('ulid');
    expect(ulidTime(AT)).toBe(ulid(AT).slice(0, 10).toLowerCase());
  });
});
