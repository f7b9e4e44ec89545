import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { describe, expect, it } from 'vitest';
import { invokeSmtpProbe } from '../../functions/adapters/lambda-smtp-probe.ts';
import {
  type IdentityStatus,
  inboundMxPublished,
  nextDomainState,
  nextRelayDomainState,
  type RelayProbe,
  sesDnsRecords,
  toDomainView,
} from '../../functions/core/domains.ts';
import type { DomainState } from '../../functions/core/model.ts';
import { isSmtpProbeEvent } from '../../functions/domains/smtp-probe.ts';

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

  it('adds the MX record of SES receiving when the deployment receives mail, not required to verify', () => {
    const records = sesDnsRecords({
      domain: 'a.example',
      tokens: ['x'],
      signingHostedZone: 'dkim.amazonses.com',
      region: 'eu-central-1',
      mailFrom: 'bounce.a.example',
      inboundRegion: 'eu-west-1',
    });
    expect(records.map((r) => r.purpose)).toEqual([
      'dkim',
      'mail_from_mx',
      'mail_from_spf',
      'inbound_mx',
      'dmarc',
    ]);
    expect(records[3]).toEqual({
      type: 'MX',
      name: 'a.example',
      value: '10 inbound-smtp.eu-west-1.amazonaws.com',
      purpose: 'inbound_mx',
      required: false,
    });
  });
});

describe('inboundMxPublished: whether DNS names SES receiving of the Region', () => {
  it.each([
    [['inbound-smtp.eu-west-1.amazonaws.com'], true],
    [['mx.other.example', 'INBOUND-SMTP.eu-west-1.amazonaws.com.'], true],
    [['inbound-smtp.us-east-1.amazonaws.com'], false],
    [[], false],
  ])('%j → %s', (exchanges, published) => {
    expect(inboundMxPublished(exchanges, 'eu-west-1')).toBe(published);
  });
});

describe('nextRelayDomainState: what the SMTP relay probe does to a domain', () => {
  const passed: RelayProbe = { ok: true };
  const auth: RelayProbe = { ok: false, issue: 'smtp_auth_failed', detail: 'auth: 535' };
  it.each([
    ['verifying', passed, 'healthy', undefined],
    ['failing', passed, 'healthy', undefined],
    ['verifying', auth, 'verifying', 'smtp_auth_failed'],
    ['pending', auth, 'verifying', 'smtp_auth_failed'],
    ['healthy', auth, 'failing', 'smtp_auth_failed'],
    ['degraded', auth, 'failing', 'smtp_auth_failed'],
    ['suspended', passed, 'suspended', undefined],
    ['removing', passed, 'removing', undefined],
    ['removed', auth, 'removed', undefined],
  ] as const)('%s + %j → %s (%s)', (state, probe, to, reason) => {
    const moved = nextRelayDomainState({ state: state as DomainState }, probe);
    expect(moved.state).toBe(to);
    expect(moved.state_reason).toBe(reason);
  });

  it('the view never carries the secret reference or a credential', () => {
    const view = toDomainView({
      domain: 'r.example',
      tenant_id: 't',
      state: 'healthy',
      reply_token: 'none',
      transport: 'smtp',
      smtp: { host: 'smtp.r.example', port: 587, username: 'u', secret_ref: 'pmail/smtp/r.example' },
    });
    expect(view.smtp).toEqual({
      host: 'smtp.r.example',
      port: 587,
      tls: null,
      username: 'u',
      auth: 'password',
      credentials_stored: true,
    });
    expect(JSON.stringify(view)).not.toContain('secret_ref');
  });
});

describe('invokeSmtpProbe: the domains side of the probe in AWS (Lambda Invoke, mocked: no local engine)', () => {
  const client = new LambdaClient({
    region: 'eu-west-1',
    credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
  });
  const lambda = mockClient(client);
  const payload = (v: unknown) => new TextEncoder().encode(JSON.stringify(v)) as never;

  it('invokes the SMTP function with a { probe } event naming only the domain, and returns its answer', async () => {
    lambda.reset();
    lambda.on(InvokeCommand).resolves({
      StatusCode: 200,
      Payload: payload({ ok: false, issue: 'smtp_tls_required', detail: 'x' }),
    });
    const probe = invokeSmtpProbe('pmail-smtp', client);
    await expect(probe({ domain: 'r.example' }, 20_000)).resolves.toEqual({
      ok: false,
      issue: 'smtp_tls_required',
      detail: 'x',
    });
    const input = lambda.commandCalls(InvokeCommand)[0].args[0].input;
    expect(input.FunctionName).toBe('pmail-smtp');
    expect(input.InvocationType).toBe('RequestResponse');
    const event = JSON.parse(new TextDecoder().decode(input.Payload as Uint8Array));
    expect(event).toEqual({ probe: { domain: 'r.example', timeout_ms: 20_000 } });
    expect(isSmtpProbeEvent(event)).toBe(true);
    expect(isSmtpProbeEvent({ tenant_id: 't', claim: { token: 'x' } })).toBe(false);
  });

  it('a function error is thrown, never read as a probe result', async () => {
    lambda.reset();
    lambda
      .on(InvokeCommand)
      .resolves({ StatusCode: 200, FunctionError: 'Unhandled', Payload: payload({ errorMessage: 'boom' }) });
    await expect(invokeSmtpProbe('pmail-smtp', client)({ domain: 'r.example' }, 1000)).rejects.toThrow(
      /Unhandled/,
    );
  });
});
