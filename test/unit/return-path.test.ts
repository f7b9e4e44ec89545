import { describe, expect, it } from 'vitest';
import { normaliseRecipient } from '../../functions/core/inbound.ts';
import {
  isNullReversePath,
  returnPathClaim,
  returnPathFor,
  returnPathsOf,
  returnPathVerifies,
} from '../../functions/core/return-path.ts';

/** Signed return paths (core/return-path.ts): minted per recipient, verified only for that recipient. */
const KEY = 'test-hash-key';
const message = {
  identityId: 'idn_01jf0000000000000000000001',
  messageId: 'msg_01jf00000000000000000000a1',
  from: 'agent@acme.example',
};
const detailOf = (address: string) => normaliseRecipient(address)?.detail;

describe('core/return-path.ts', () => {
  it('mints one address per recipient under the From address, routed back to it', () => {
    const ann = returnPathFor(KEY, message, 0, 'ann@dest.example')!;
    const bob = returnPathFor(KEY, message, 1, 'bob@dest.example')!;
    expect(ann).toMatch(/^agent\+b01jf00000000000000000000a10[0-9a-z]{12}@acme\.example$/);
    expect(bob).not.toBe(ann);
    expect(normaliseRecipient(ann)?.address).toBe('agent@acme.example');
    expect(ann.split('@')[0]!.length).toBeLessThanOrEqual(64);
  });

  it('verifies only for the recipient, message, index and identity it was minted for, and the key', () => {
    const claim = returnPathClaim(detailOf(returnPathFor(KEY, message, 1, 'bob@dest.example')!))!;
    expect(claim).toMatchObject({ messageId: message.messageId, index: 1 });
    expect(returnPathVerifies(KEY, message.identityId, claim, 'Bob@Dest.example')).toBe(true);
    expect(returnPathVerifies(KEY, message.identityId, claim, 'ann@dest.example')).toBe(false);
    expect(returnPathVerifies(KEY, 'idn_01jf0000000000000000000002', claim, 'bob@dest.example')).toBe(false);
    expect(returnPathVerifies('another-key', message.identityId, claim, 'bob@dest.example')).toBe(false);
    expect(returnPathVerifies(KEY, message.identityId, { ...claim, index: 0 }, 'bob@dest.example')).toBe(
      false,
    );
    const flipped = claim.mac.replace(/^./, (c) => (c === '0' ? '1' : '0'));
    expect(returnPathVerifies(KEY, message.identityId, { ...claim, mac: flipped }, 'bob@dest.example')).toBe(
      false,
    );
  });

  it.each([
    [undefined],
    [''],
    ['t01jf00000000000000000000a1.abcdef'],
    ['b01jf00000000000000000000a10123456789ab'],
    ['b01jf00000000000000000000a100123456789a'],
    ['b01jf00000000000000000000a112340123456789ab'],
    ['b01jf00000000000000000000a10.0123456789ab'],
    ['news'],
  ])('a detail that is no return path (%j) claims nothing', (detail) => {
    expect(returnPathClaim(detail)).toBeUndefined();
  });

  it('mints none where the address cannot carry one: a + already there, or past 64 octets', () => {
    expect(
      returnPathFor(KEY, { ...message, from: 'agent+x@acme.example' }, 0, 'a@b.example'),
    ).toBeUndefined();
    const from = (n: number) => ({ ...message, from: `${'a'.repeat(n)}@acme.example` });
    expect(returnPathFor(KEY, from(23), 0, 'a@b.example')).toBeDefined();
    expect(returnPathFor(KEY, from(24), 0, 'a@b.example')).toBeUndefined();
    expect(returnPathFor(KEY, from(21), 100, 'a@b.example')).toBeDefined();
    expect(returnPathFor(KEY, from(22), 100, 'a@b.example')).toBeUndefined();
  });

  it('returnPathsOf: the queued recipients only, by canonical address, with their index', () => {
    const paths = returnPathsOf(KEY, {
      identity_id: message.identityId,
      id: message.messageId,
      from: { address: message.from },
      deliveries: [
        { address: 'Ann@Dest.example', status: 'submitted' },
        { address: 'Bob@Dest.example', status: 'queued' },
      ],
    });
    expect(Object.keys(paths)).toEqual(['bob@dest.example']);
    expect(returnPathClaim(detailOf(paths['bob@dest.example']!))?.index).toBe(1);
  });

  it.each([
    ['', true],
    ['<>', true],
    [' ', true],
    ['mailer-daemon@mx.example', false],
    ['<attacker@evil.example>', false],
  ])('MAIL FROM %j is the null reverse-path: %s', (source, isNull) => {
    expect(isNullReversePath(source)).toBe(isNull);
  });
});
