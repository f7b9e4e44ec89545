import { describe, expect, it } from 'vitest';
import { type IdentityStatus, nextDomainState, sesDnsRecords } from '../../functions/core/domains.ts';
import type { DomainState } from '../../functions/core/model.ts';

const ok = (dkim: string, verified = true, mail_from?: string): IdentityStatus => ({
  found: true,
  verified,
  dkim,
  ...(mail_from ? { mail_from } : {}),
});

describe('nextDomainState: what a GetEmailIdentity check does to a domain', () => {
  it.each<[DomainState, IdentityStatus, DomainState, string | undefined]>([
    ['verifying', ok('PENDING', false), 'verifying', 'dkim_pending'],
    ['verifying', ok('NOT_STARTED', false), 'verifying', 'dkim_pending'],
    ['verifying', ok('SUCCESS'), 'healthy', undefined],
    ['verifying', ok('SUCCESS', false), 'verifying', 'not_verified'],
    ['verifying', ok('TEMPORARY_FAILURE', false), 'verifying', 'dkim_temporary_failure'],
    ['verifying', ok('FAILED', false), 'failing', 'dkim_failed'],
    ['healthy', ok('SUCCESS', true, 'FAILED'), 'degraded', 'mail_from_failed'],
    ['healthy', ok('SUCCESS', true, 'SUCCESS'), 'healthy', undefined],
    ['healthy', ok('TEMPORARY_FAILURE'), 'degraded', 'dkim_temporary_failure'],
    ['healthy', ok('PENDING'), 'failing', 'dkim_pending'],
    ['healthy', { found: false }, 'failing', 'ses_identity_missing'],
    ['degraded', ok('SUCCESS'), 'healthy', undefined],
    ['failing', ok('SUCCESS'), 'healthy', undefined],
    ['suspended', ok('SUCCESS'), 'suspended', undefined],
    ['removing', ok('SUCCESS'), 'removing', undefined],
    ['removed', { found: false }, 'removed', undefined],
  ])('%s + %o → %s (%s)', (state, identity, expected, reason) => {
    expect(nextDomainState({ state }, identity)).toEqual({
      state: expected,
      ...(reason ? { state_reason: reason } : {}),
    });
  });
});

describe('sesDnsRecords', () => {
  it('has no MAIL FROM records without mail_from, and builds the CNAMEs in the signing zone', () => {
    const records = sesDnsRecords({
      domain: 'a.example',
      tokens: ['x', 'y', 'z'],
      signingHostedZone: 'dkim.eu-central-1.amazonses.com',
      region: 'eu-central-1',
    });
    expect(records.map((r) => r.purpose)).toEqual(['dkim', 'dkim', 'dkim', 'dmarc']);
    expect(records[0]).toMatchObject({
      name: 'x._domainkey.a.example',
      value: 'x.dkim.eu-central-1.amazonses.com',
    });
  });
});
