import { afterEach, describe, expect, it } from 'vitest';
import type { SmtpDomainSettings } from '../../functions/core/model.ts';
import { silentLogger } from '../../functions/log.ts';
import {
  probeSmtpRelay,
  type SmtpSecret,
  type SmtpSettings,
  smtpTransport,
} from '../../functions/transports/smtp.transport.ts';
import type { TransportDomain, TransportRequest } from '../../functions/transports/transport.ts';
import {
  RELAY_PASSWORD,
  RELAY_TOKEN,
  RELAY_USER,
  type Relay,
  type RelayScript,
  startRelay,
} from '../support/smtp-relay.ts';

/**
 * The SMTP relay adapter against a real `smtp-server` on loopback with a generated certificate for
 * `localhost` (the adapter connects to 127.0.0.1 and verifies the certificate against the host
 * name). One row per SMTP answer of docs/reference/provider-answers.md › SMTP relay is in
 * test/unit/smtp-outcome.test.ts; here each is made to happen on a socket, and the relay counts the
 * copies it took.
 */
const relays: Relay[] = [];
afterEach(async () => {
  await Promise.all(relays.splice(0).map((r) => r.close()));
});

async function relay(script: RelayScript = {}): Promise<Relay> {
  const r = await startRelay(script);
  relays.push(r);
  return r;
}

const MIME = [
  'From: Agent <agent@acme.example>',
  'To: ann@dest.example, bob@dest.example',
  'Subject: Quarterly numbers',
  'Message-ID: <01jbz0000000000000000000aa@acme.example>',
  'MIME-Version: 1.0',
  'Content-Type: text/plain; charset=utf-8',
  '',
  'Hello Ann and Bob.',
  '.a line that starts with a dot',
  '',
].join('\r\n');

function domainFor(r: Relay, smtp: Partial<SmtpDomainSettings> = {}): TransportDomain {
  return {
    domain: 'acme.example',
    tenant_id: 'ten_1',
    transport: 'smtp',
    smtp: {
      host: 'localhost',
      port: r.port,
      username: RELAY_USER,
      secret_ref: 'pmail/smtp/acme.example',
      ...smtp,
    },
  };
}

function request(
  domain: TransportDomain,
  recipients = ['ann@dest.example', 'bob@dest.example'],
): TransportRequest {
  const controller = new AbortController();
  return {
    tenant_id: 'ten_1',
    identity_id: 'idn_1',
    message_id: 'msg_01jbz0000000000000000000aa',
    claim_token: 'tok',
    attempt: 1,
    mime: { key: 'k', size: MIME.length, load: async () => new TextEncoder().encode(MIME) },
    rfc_message_id: '01jbz0000000000000000000aa@acme.example',
    subject: 'Quarterly numbers',
    kind: 'transactional',
    from: 'agent@acme.example',
    envelope_from: 'agent@acme.example',
    // Each recipient's own return path, as Claim hands them over (core/return-path.ts).
    recipients: recipients.map((address) => ({
      address,
      field: address.startsWith('bcc') ? 'bcc' : 'to',
      return_path: `agent+b01jbz0000000000000000000aa${recipients.indexOf(address)}.rp@acme.example`,
    })),
    domain,
    deadline: Date.now() + 60_000,
    signal: controller.signal,
  };
}

const secret =
  (s: SmtpSecret = { password: RELAY_PASSWORD }) =>
  async () =>
    s;

function transport(r: Relay, settings: SmtpSettings = {}, s?: SmtpSecret) {
  return smtpTransport(
    { credentials: secret(s), log: silentLogger },
    { allowLocalRelays: true, tlsCa: [r.cert], ...settings },
  );
}

describe('SMTP relay transport against smtp-server', () => {
  it('STARTTLS on a submission port, AUTH, one envelope per recipient from its own return path: accepted with smtp:{host}:{Message-ID}, the stored copy unchanged', async () => {
    const r = await relay();
    const result = await transport(r).send(
      request(domainFor(r), ['ann@dest.example', 'bcc-carl@dest.example']),
    );
    expect(result).toMatchObject({
      type: 'accepted',
      provider: 'smtp',
      provider_message_id: 'smtp:localhost:01jbz0000000000000000000aa@acme.example',
      rfc_message_id: '01jbz0000000000000000000aa@acme.example',
      refused: [],
      deferred: [],
    });
    // One connection, one AUTH, one envelope per recipient: every recipient sees only its own return path.
    expect(r.connections).toBe(1);
    expect(r.messages.map((m) => [m.from, m.to])).toEqual([
      ['agent+b01jbz0000000000000000000aa0.rp@acme.example', ['ann@dest.example']],
      ['agent+b01jbz0000000000000000000aa1.rp@acme.example', ['bcc-carl@dest.example']],
    ]);
    for (const m of r.messages) {
      // Dot-stuffing undone by the server: the body arrives as stored, Message-ID kept, no Bcc header.
      expect(m.raw).toContain('Message-ID: <01jbz0000000000000000000aa@acme.example>');
      expect(m.raw).toContain('\r\n.a line that starts with a dot\r\n');
      expect(m.raw).not.toMatch(/^bcc:/im);
    }
    expect(r.auths.map((a) => a.user)).toEqual([RELAY_USER]);
  });

  it('implicit TLS (port 465 semantics: TLS from the first byte)', async () => {
    const r = await relay({ mode: 'implicit' });
    const result = await transport(r).send(request(domainFor(r, { tls: 'implicit' })));
    expect(result.type).toBe('accepted');
    expect(r.messages).toHaveLength(2);
    // Speaking STARTTLS to an implicit-TLS server fails before anything is sent.
    const r2 = await relay({ mode: 'implicit' });
    expect(await transport(r2, { commandTimeoutMs: 300 }).send(request(domainFor(r2)))).toMatchObject({
      type: 'retry_later',
      class: 'Relay',
    });
    expect(r2.messages).toHaveLength(0);
  });

  it('a server that offers no STARTTLS is refused with smtp_tls_required and never sees the credentials', async () => {
    const r = await relay({ mode: 'plain' });
    const result = await transport(r).send(request(domainFor(r)));
    expect(result).toMatchObject({
      type: 'rejected',
      reason: 'sender_domain_unavailable',
      code: 'smtp_tls_required',
    });
    expect(r.auths).toEqual([]);
    expect(r.messages).toHaveLength(0);
  });

  it('a server that accepts STARTTLS without advertising it is refused with smtp_tls_required, no AUTH, no message', async () => {
    const r = await relay({ mode: 'hidden' });
    const result = await transport(r).send(request(domainFor(r)));
    expect(result).toMatchObject({
      type: 'rejected',
      reason: 'sender_domain_unavailable',
      code: 'smtp_tls_required',
    });
    expect(r.connections).toBe(1);
    expect(r.auths).toEqual([]);
    expect(r.messages).toHaveLength(0);
    // The probe says the same, so such a relay never passes the probe gate.
    expect(
      await probeSmtpRelay(
        { credentials: secret(), log: silentLogger },
        { allowLocalRelays: true, tlsCa: [r.cert] },
        domainFor(r),
      ),
    ).toMatchObject({ ok: false, issue: 'smtp_tls_required' });
    expect(r.auths).toEqual([]);
  });

  it('a wrong password (535) is rejected as smtp_auth_failed, nothing sent', async () => {
    const r = await relay();
    const result = await transport(r, {}, { password: 'wrong' }).send(request(domainFor(r)));
    expect(result).toMatchObject({
      type: 'rejected',
      reason: 'sender_domain_unavailable',
      code: 'smtp_auth_failed',
    });
    expect(r.messages).toHaveLength(0);
  });

  it('XOAUTH2 with the token from the domain secret', async () => {
    const r = await relay();
    const result = await transport(r, {}, { access_token: RELAY_TOKEN }).send(
      request(domainFor(r, { auth: 'xoauth2' })),
    );
    expect(result.type).toBe('accepted');
    expect(r.auths).toEqual([{ method: 'XOAUTH2', user: RELAY_USER }]);
    expect(r.messages).toHaveLength(2);
  });

  it('XOAUTH2 with a refused token is smtp_auth_failed', async () => {
    const r = await relay();
    const result = await transport(r, {}, { access_token: 'expired' }).send(
      request(domainFor(r, { auth: 'xoauth2' })),
    );
    expect(result).toMatchObject({ type: 'rejected', code: 'smtp_auth_failed' });
    expect(r.messages).toHaveLength(0);
  });

  it('550 to one RCPT refuses that delivery, 450 to another defers it (RSET after each); DATA goes to the rest', async () => {
    const r = await relay({ rcpt: { 'gone@dest.example': 550, 'busy@dest.example': 450 } });
    const result = await transport(r).send(
      request(domainFor(r), ['ann@dest.example', 'gone@dest.example', 'busy@dest.example']),
    );
    expect(result).toMatchObject({
      type: 'accepted',
      refused: [{ address: 'gone@dest.example', code: '550' }],
      deferred: ['busy@dest.example'],
    });
    expect(r.messages.map((m) => m.to)).toEqual([['ann@dest.example']]);
    // After a refused envelope the next one follows on the same connection.
    const again = await relay({ rcpt: { 'gone@dest.example': 550 } });
    expect(
      await transport(again).send(request(domainFor(again), ['gone@dest.example', 'ann@dest.example'])),
    ).toMatchObject({ type: 'accepted', refused: [{ address: 'gone@dest.example' }], deferred: [] });
    expect(again.messages.map((m) => m.to)).toEqual([['ann@dest.example']]);
    expect(again.connections).toBe(1);
  });

  it('every RCPT 5xx → rejected; every RCPT 4xx → retry later (Relay); no DATA either way', async () => {
    const r5 = await relay({ rcpt: { 'ann@dest.example': 550, 'bob@dest.example': 553 } });
    expect(await transport(r5).send(request(domainFor(r5)))).toMatchObject({
      type: 'rejected',
      reason: 'provider_validation',
    });
    const r4 = await relay({ rcpt: { 'ann@dest.example': 450, 'bob@dest.example': 451 } });
    expect(await transport(r4).send(request(domainFor(r4)))).toMatchObject({
      type: 'retry_later',
      class: 'Relay',
    });
    expect(r5.messages.length + r4.messages.length).toBe(0);
  });

  it('451 after the final dot → retry later (Relay); 554 → rejected', async () => {
    const r4 = await relay({ afterDot: 451 });
    expect(await transport(r4).send(request(domainFor(r4)))).toMatchObject({
      type: 'retry_later',
      class: 'Relay',
    });
    const r5 = await relay({ afterDot: 554 });
    expect(await transport(r5).send(request(domainFor(r5)))).toMatchObject({
      type: 'rejected',
      reason: 'provider_validation',
    });
  });

  it('a relay that stalls after the final dot → unknown (transport_timeout), exactly one copy received', async () => {
    const r = await relay({ afterDot: 'stall' });
    const result = await transport(r, { dotReplyTimeoutMs: 300 }).send(
      request(domainFor(r), ['ann@dest.example']),
    );
    expect(result).toMatchObject({ type: 'unknown', reason: 'transport_timeout' });
    expect(r.messages).toHaveLength(1);
  });

  it('a relay that drops the connection after the final dot → unknown (connection lost), exactly one copy', async () => {
    const r = await relay({ afterDot: 'drop' });
    const result = await transport(r).send(request(domainFor(r), ['ann@dest.example']));
    expect(result).toMatchObject({ type: 'unknown', reason: 'transport_connection_lost' });
    expect(r.messages).toHaveLength(1);
  });

  it('the first envelope taken, the second stalls after its dot: per recipient, submitted / uncertain / untried (queued)', async () => {
    const r = await relay({ afterDot: ['ok', 'stall'] });
    const result = await transport(r, { dotReplyTimeoutMs: 300 }).send(
      request(domainFor(r), ['ann@dest.example', 'bob@dest.example', 'carl@dest.example']),
    );
    expect(result).toMatchObject({
      type: 'accepted',
      provider_message_id: 'smtp:localhost:01jbz0000000000000000000aa@acme.example',
      refused: [],
      deferred: ['carl@dest.example'],
      uncertain: [{ address: 'bob@dest.example', reason: 'transport_timeout' }],
    });
    // The relay holds Ann's and (maybe) Bob's copy; Carl's envelope was never started.
    expect(r.messages.map((m) => m.to)).toEqual([['ann@dest.example'], ['bob@dest.example']]);
  });

  it('the first envelope’s answer lost, nothing taken: that recipient uncertain, the rest untried', async () => {
    const r = await relay({ afterDot: 'drop' });
    const result = await transport(r).send(request(domainFor(r)));
    expect(result).toMatchObject({
      type: 'accepted',
      refused: [],
      deferred: ['bob@dest.example'],
      uncertain: [{ address: 'ann@dest.example', reason: 'transport_connection_lost' }],
    });
    expect(r.messages).toHaveLength(1);
  });

  it('a drop before the final dot → retry later; the retry sends it; exactly one copy in all', async () => {
    const r = await relay({ dropAtRcpt: 1 });
    const t = transport(r);
    const first = await t.send(request(domainFor(r)));
    expect(first).toMatchObject({ type: 'retry_later', class: 'Relay' });
    expect(r.messages).toHaveLength(0);
    const retry = await t.send(request(domainFor(r)));
    expect(retry.type).toBe('accepted');
    expect(r.messages.map((m) => m.to)).toEqual([['ann@dest.example'], ['bob@dest.example']]);
  });

  it('the 4-minute deadline (the request signal) before the dot → retry later, nothing sent', async () => {
    const r = await relay({ rcpt: {} });
    const req = request(domainFor(r));
    const controller = new AbortController();
    controller.abort(new Error('deadline'));
    const result = await transport(r).send({ ...req, signal: controller.signal });
    expect(result).toMatchObject({ type: 'retry_later', class: 'Relay', code: 'smtp_timeout' });
    expect(r.connections).toBe(0);
  });

  it('a secret store that fails → retry later, nothing connected', async () => {
    const r = await relay();
    const t = smtpTransport(
      {
        credentials: async () => {
          throw new Error('ThrottlingException');
        },
        log: silentLogger,
      },
      { allowLocalRelays: true, tlsCa: [r.cert] },
    );
    expect(await t.send(request(domainFor(r)))).toMatchObject({ type: 'retry_later', class: 'Relay' });
    expect(r.connections).toBe(0);
  });

  it('a message above the advertised SIZE is refused before MAIL FROM is accepted', async () => {
    const r = await relay({ size: 100 });
    const result = await transport(r).send(request(domainFor(r)));
    expect(result).toMatchObject({ type: 'rejected', reason: 'provider_validation' });
    expect(r.messages).toHaveLength(0);
  });
});

describe('SSRF rules of the relay host', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['169.254.169.254', 'linkLocal'],
    ['10.1.2.3', 'private'],
    ['::ffff:192.168.0.1', 'private'],
  ])('a relay host resolving to %s is refused before connecting (no opt-out)', async (ip) => {
    const r = await relay();
    const t = smtpTransport(
      { credentials: secret(), resolve: async () => [ip], log: silentLogger },
      { tlsCa: [r.cert] },
    );
    const result = await t.send(request(domainFor(r, { host: 'relay.acme.example', port: 587 })));
    expect(result).toMatchObject({ type: 'rejected', code: 'smtp_relay_address_refused' });
    expect(r.connections).toBe(0);
  });

  it('the system resolver: `localhost` on port 587 is refused as loopback without the opt-out', async () => {
    const r = await relay();
    const t = smtpTransport({ credentials: secret(), log: silentLogger }, { tlsCa: [r.cert] });
    const result = await t.send(request(domainFor(r, { host: 'localhost', port: 587 })));
    expect(result).toMatchObject({ type: 'rejected', code: 'smtp_relay_address_refused' });
    expect(result.type === 'rejected' && result.detail).toMatch(/loopback/);
    expect(r.connections).toBe(0);
  });

  it('a port outside 25/465/587/2525 is refused without the opt-out', async () => {
    const r = await relay();
    const t = smtpTransport(
      { credentials: secret(), resolve: async () => ['127.0.0.1'], log: silentLogger },
      { tlsCa: [r.cert] },
    );
    const result = await t.send(request(domainFor(r, { host: 'relay.acme.example' })));
    expect(result).toMatchObject({ type: 'rejected', code: 'smtp_relay_address_refused' });
    expect(r.connections).toBe(0);
  });
});

describe('the relay probe (connect, EHLO, STARTTLS, AUTH, QUIT)', () => {
  const ports = (s?: SmtpSecret) => ({ credentials: secret(s), log: silentLogger });

  it('passes against a working relay and sends no message', async () => {
    const r = await relay();
    expect(await probeSmtpRelay(ports(), { allowLocalRelays: true, tlsCa: [r.cert] }, domainFor(r))).toEqual({
      ok: true,
    });
    expect(r.auths).toHaveLength(1);
    expect(r.messages).toHaveLength(0);
  });

  it('reports smtp_tls_required, smtp_auth_failed and a refused address', async () => {
    const plain = await relay({ mode: 'plain' });
    expect(await probeSmtpRelay(ports(), { allowLocalRelays: true }, domainFor(plain))).toMatchObject({
      ok: false,
      issue: 'smtp_tls_required',
    });
    const r = await relay();
    expect(
      await probeSmtpRelay(
        ports({ password: 'nope' }),
        { allowLocalRelays: true, tlsCa: [r.cert] },
        domainFor(r),
      ),
    ).toMatchObject({ ok: false, issue: 'smtp_auth_failed' });
    expect(await probeSmtpRelay(ports(), {}, domainFor(r))).toMatchObject({
      ok: false,
      issue: 'smtp_relay_address_refused',
    });
  });
});
