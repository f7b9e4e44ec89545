import { describe, expect, it } from 'vitest';
import {
  maySee,
  pastStrangerRate,
  releasedMessage,
  screenCopy,
  strangerLimits,
} from '../../functions/core/hold.ts';
import type { HoldPolicy } from '../../functions/core/model.ts';
import { authFromSes, isAuthenticated, senderAuthOf, trustOf } from '../../functions/core/trust.ts';
import { parseZone, zoneResolver } from '../../functions/local/dns-zone.ts';
import { outboundMessage } from '../support/records.ts';

/** core/trust.ts and core/hold.ts as tables: who proved its From, what is held, who may see it. */

describe('who sent it', () => {
  it.each([
    [{ dmarc: 'pass', dkim_aligned: false }, true, 'authenticated'],
    [{ dmarc: 'none', dkim_aligned: true }, true, 'authenticated'],
    [{ dmarc: 'fail', dkim_aligned: false }, false, 'failed'],
    [{ dmarc: 'none', dkim_aligned: false }, false, 'unverified'],
    [{ dmarc: 'temperror', dkim_aligned: false }, false, 'unverified'],
  ])('%j → authenticated %s, %s', (a, authenticated, word) => {
    expect(isAuthenticated(a)).toBe(authenticated);
    expect(senderAuthOf(a)).toBe(word);
  });

  const SES_AR = 'amazonses.com; spf=pass; dkim=pass header.i=@mail.example.org; dmarc=none';
  it.each([
    // SES's statuses as words; a DKIM pass is aligned only when SES's own header names the From's domain or a parent.
    [{ dkim: 'PASS', dmarc: 'GRAY' }, 'bob@mail.example.org', SES_AR, { dkim: 'pass', dkim_aligned: true }],
    [{ dkim: 'PASS', dmarc: 'GRAY' }, 'bob@sub.mail.example.org', SES_AR, { dkim_aligned: true }],
    [{ dkim: 'PASS', dmarc: 'GRAY' }, 'bob@example.org', SES_AR, { dkim_aligned: false }],
    [
      { dkim: 'PASS' },
      'bob@mail.example.org',
      SES_AR.replace('amazonses.com', 'evil.example'),
      { dkim_aligned: false },
    ],
    [
      { spf: 'FAIL', dmarc: 'FAIL' },
      'bob@example.org',
      undefined,
      { spf: 'fail', dmarc: 'fail', dkim: 'none' },
    ],
    [
      { spf: 'PROCESSING_FAILED' },
      'bob@example.org',
      undefined,
      { spf: 'temperror', arc: null, verified_by: 'ses' },
    ],
  ])('SES %j for %s → %j', (v, from, ar, expected) => {
    expect(authFromSes(v, from, ar)).toMatchObject(expected);
  });

  it('shows the risk flags of the message, and nothing else of its flags', () => {
    const auth = authFromSes({ dmarc: 'PASS' }, 'a@example.org', undefined);
    expect(
      trustOf(auth, { known_sender: true, listed: 'allow', flags: ['loopback', 'spam', 'risky_attachment'] }),
    ).toMatchObject({
      authenticated: true,
      known_sender: true,
      listed: 'allow',
      risk: ['spam', 'risky_attachment'],
    });
  });
});

describe('what is held', () => {
  const contact = { inbound_count: 0, authenticated_inbound_count: 0, outbound_count: 1 };
  const none = { block: false };
  const allow = { block: false, allow: { unauthenticated: false } };
  const allowAny = { block: false, allow: { unauthenticated: true } };
  const block = { block: true, allow: { unauthenticated: true } };
  it.each([
    // [policy, authenticated, contact, lists, held, listed, known, stranger]
    ['none', false, undefined, none, undefined, null, false, true],
    ['none', true, contact, none, undefined, null, true, false],
    ['unauthenticated', false, contact, none, 'unauthenticated', null, false, true],
    ['unauthenticated', true, undefined, none, undefined, null, false, true],
    ['unknown', true, undefined, none, 'unknown', null, false, true],
    ['unknown', true, contact, none, undefined, null, true, false],
    // A forged From of a contact is no known sender.
    ['unknown', false, contact, none, 'unauthenticated', null, false, true],
    // An allow entry admits what proves its From; unauthenticated only when it says so.
    ['unknown', true, undefined, allow, undefined, 'allow', false, false],
    ['none', false, undefined, allow, 'unauthenticated', null, false, true],
    ['unknown', false, undefined, allowAny, undefined, 'allow', false, false],
    // A block entry wins, whatever the policy and the proof.
    ['none', true, contact, block, 'blocked', 'block', true, false],
  ] as const)(
    '%s, authenticated %s, contact %j, lists %j → held %s, listed %s, known %s, stranger %s',
    (policy, authenticated, c, lists, held, listed, known, stranger) => {
      expect(screenCopy({ policy: policy as HoldPolicy, authenticated, contact: c, lists })).toEqual({
        listed,
        known_sender: known,
        stranger,
        ...(held ? { held } : {}),
      });
    },
  );

  it.each([
    [{ sender: 10, total: 50 }, false],
    [{ sender: 11, total: 11 }, true],
    [{ sender: 1, total: 51 }, true],
    // A count whose answer was lost errs towards holding.
    [{ sender: undefined, total: 3 }, true],
  ])('the default stranger rate, counts %j → past %s', (counts, past) => {
    expect(pastStrangerRate(counts, strangerLimits(undefined))).toBe(past);
  });

  it('takes an identity’s own stranger rate over the defaults', () => {
    expect(strangerLimits({ stranger_rate: { per_sender: 2 } })).toEqual({ per_sender: 2, total: 50 });
  });
});

describe('who may see held mail', () => {
  const held = { held: { reason: 'rate' } };
  const agent = { scopes: ['messages:read'] };
  const person = { scopes: ['messages:read', 'messages:hold'] };
  it.each([
    [agent, held, false],
    [agent, {}, true],
    [person, held, true],
    [agent, { type: 'message.held', data: {} }, false],
    [agent, { type: 'message.received', data: {} }, true],
    [person, { type: 'message.held', data: {} }, true],
  ])('%j sees %j: %s', (key, item, seen) => {
    expect(maySee(key, item)).toBe(seen);
  });

  it('releases only held mail: the reason and the releasing key are kept, the version moves on', () => {
    const received = () => outboundMessage({ direction: 'inbound', status: 'received' });
    const m = { ...received(), held: { reason: 'unknown' as const, at: 1 }, version: 3 };
    expect(releasedMessage(m, 5, 'key_a')).toMatchObject({
      released: { reason: 'unknown', at: 5, by: 'key_a' },
      version: 4,
      updated_at: 5,
    });
    expect(releasedMessage(m, 5, 'key_a').held).toBeUndefined();
    expect(() => releasedMessage(received(), 5, 'key_a')).toThrow(
      expect.objectContaining({ code: 'message_not_held' }),
    );
  });
});

describe('the local MX’s zone file', () => {
  const zone = parseZone(
    [
      '# comment',
      'Example.org.   TXT  "v=spf1 " "ip4:127.0.0.1 -all"',
      'sel._domainkey.example.org TXT v=DKIM1; p=abc',
      'example.org    MX   10 mail.example.org.',
      'mail.example.org A 127.0.0.1',
      'not a record',
    ].join('\n'),
  );
  const resolve = zoneResolver(zone);
  it('answers what it has, in dns.promises.resolve’s shapes', async () => {
    expect(await resolve('example.org', 'TXT')).toEqual([['v=spf1 ', 'ip4:127.0.0.1 -all']]);
    expect(await resolve('SEL._domainkey.example.org.', 'TXT')).toEqual([['v=DKIM1; p=abc']]);
    expect(await resolve('example.org', 'MX')).toEqual([{ priority: 10, exchange: 'mail.example.org' }]);
    expect(await resolve('mail.example.org', 'A')).toEqual(['127.0.0.1']);
  });
  it('finds nothing else: ENOTFOUND, as a missing name', async () => {
    await expect(resolve('_dmarc.example.org', 'TXT')).rejects.toMatchObject({ code: 'ENOTFOUND' });
    await expect(resolve('example.org', 'AAAA')).rejects.toMatchObject({ code: 'ENOTFOUND' });
  });
});
