import { afterEach, describe, expect, it } from 'vitest';
import { returnPathClaim, returnPathVerifies } from '../../functions/core/return-path.ts';
import { getDomain } from '../../functions/store/directory.store.ts';
import type { SmtpSettings } from '../../functions/transports/smtp.transport.ts';
import { liveRelayStack } from '../support/live-domain.ts';
import { stackPerTest } from '../support/local.ts';
import { RELAY_PASSWORD, type Relay, type RelayScript } from '../support/smtp-relay.ts';

/**
 * End to end through the local send-attempt machine: a live tenant whose sending domain uses
 * transport `smtp`, pointing at a local smtp-server (the local runtime's SSRF opt-out), with the
 * password in the relay secret store. The relay counts the copies it took.
 */
const relays: Relay[] = [];
afterEach(async () => {
  await Promise.all(relays.splice(0).map((r) => r.close()));
});

const stackFor = stackPerTest();
const liveSmtpStack = (script: RelayScript = {}, password = RELAY_PASSWORD, settings: SmtpSettings = {}) =>
  liveRelayStack(stackFor, relays, { script, password, settings });

describe('a live tenant sending through its SMTP relay (local state machine)', () => {
  it('submits the message through the relay once, one envelope per recipient from its own signed return path, Bcc only in the envelope', async () => {
    const { s, relay } = await liveSmtpStack();
    const res = await s.send({
      to: ['ann@dest.example'],
      bcc: ['hidden@dest.example'],
      subject: 'Through the relay',
      text: 'Hello from the relay test.',
    });
    expect(res.status).toBe(202);
    await s.settle();
    const m = await s.message(s.agent.id, res.body.id);
    expect(m?.status).toBe('submitted');
    expect(m?.provider).toBe('smtp');
    const bare = m?.rfc_message_id.replace(/^<|>$/g, '');
    expect(m?.provider_message_id).toBe(`smtp:localhost:${bare}`);
    expect(m?.deliveries?.map((d) => d.status)).toEqual(['submitted', 'submitted']);
    expect(relay.messages.map((c) => c.to)).toEqual([['ann@dest.example'], ['hidden@dest.example']]);
    // Each copy's MAIL FROM is the return path Claim minted for that recipient of this message.
    const [local, domain] = s.agent.address.split('@');
    relay.messages.forEach((copy, index) => {
      const detail = new RegExp(`^${local}\\+(.+)@${domain}$`).exec(copy.from)?.[1];
      const claim = returnPathClaim(detail);
      expect(claim).toMatchObject({ messageId: res.body.id, index });
      expect(returnPathVerifies(s.deps.config.hashKey, s.agent.id, claim!, copy.to[0]!)).toBe(true);
      expect(copy.raw).toContain(`Message-ID: <${bare}>`);
      expect(copy.raw).not.toMatch(/^bcc:/im);
    });
  });

  it('one envelope taken, the next one times out after its dot: per-recipient status, the taken one never resent, the untried one sent by the retry', async () => {
    const { s, relay } = await liveSmtpStack({ afterDot: ['ok', 'stall', 'ok'] }, RELAY_PASSWORD, {
      dotReplyTimeoutMs: 300,
    });
    const body = {
      to: ['ann@dest.example', 'bob@dest.example', 'carl@dest.example'],
      subject: 'Second envelope lost',
      text: 'x',
    };
    const res = await s.send(body, 'second-envelope-lost');
    expect(res.status).toBe(202);
    await s.settle();
    const m = await s.message(s.agent.id, res.body.id);
    expect(m?.deliveries?.map((d) => [d.address, d.status])).toEqual([
      ['ann@dest.example', 'submitted'],
      ['bob@dest.example', 'uncertain'],
      ['carl@dest.example', 'submitted'],
    ]);
    expect(m).toMatchObject({ status: 'uncertain', status_reason: 'transport_timeout', provider: 'smtp' });
    // Ann's and Bob's envelopes went once; Carl's was never started on the first connection and went
    // on the retry; nobody got a second copy.
    expect(relay.messages.map((c) => c.to[0])).toEqual([
      'ann@dest.example',
      'bob@dest.example',
      'carl@dest.example',
    ]);
    // The same Idempotency-Key again answers the same message and sends nothing more.
    const again = await s.send(body, 'second-envelope-lost');
    expect(again.body.id).toBe(res.body.id);
    await s.settle();
    expect(relay.messages).toHaveLength(3);
  });

  it('a relay that drops the connection after the final dot leaves the message uncertain, one copy, no retry', async () => {
    const { s, relay } = await liveSmtpStack({ afterDot: 'drop' });
    const body = { to: ['ann@dest.example'], subject: 'Lost answer', text: 'x' };
    const res = await s.send(body, 'lost-answer');
    expect(res.status).toBe(202);
    await s.settle();
    const m = await s.message(s.agent.id, res.body.id);
    expect(m?.status).toBe('uncertain');
    expect(m?.status_reason).toBe('transport_connection_lost');
    // The same Idempotency-Key again answers the same message and sends nothing more.
    const again = await s.send(body, 'lost-answer');
    expect(again.body.id).toBe(res.body.id);
    await s.settle();
    expect(relay.messages).toHaveLength(1);
  });

  it('550 to one recipient rejects that delivery and submits the other', async () => {
    const { s, relay } = await liveSmtpStack({ rcpt: { 'gone@dest.example': 550 } });
    const res = await s.send({
      to: ['ann@dest.example', 'gone@dest.example'],
      subject: 'Partly refused',
      text: 'x',
    });
    await s.settle();
    const m = await s.message(s.agent.id, res.body.id);
    expect(m?.deliveries?.map((d) => [d.address, d.status])).toEqual([
      ['ann@dest.example', 'submitted'],
      ['gone@dest.example', 'rejected'],
    ]);
    expect(relay.messages).toHaveLength(1);
  });

  it('a 451 to the final dot backs off; the retry is accepted and the submitted message keeps no status_reason', async () => {
    const { s, relay } = await liveSmtpStack({ afterDot: [451, 'ok'] });
    const res = await s.send({ to: ['ann@dest.example'], subject: 'Try later', text: 'x' });
    expect(res.status).toBe(202);
    await s.settle();
    const m = await s.message(s.agent.id, res.body.id);
    expect(m).toMatchObject({ status: 'submitted', provider: 'smtp' });
    expect(m?.status_reason).toBeUndefined();
    expect(m?.backoff).toBeUndefined();
    // The first copy was refused with 451 (the relay keeps none), the retry was taken.
    expect(relay.messages).toHaveLength(2);
    const view = await s.call('GET', `/v1/identities/${s.agent.id}/messages/${res.body.id}`);
    expect(view.body).toMatchObject({ status: 'submitted', status_reason: null });
  });

  it('a login refused at send time (535) makes the domain failing (smtp_auth_failed) at once; the next send is failed at the claim, the relay never asked again', async () => {
    const { s, relay } = await liveSmtpStack({}, 'not-the-relay-password');
    const domain = s.agent.address.split('@')[1]!;
    const first = await s.send({ to: ['ann@dest.example'], subject: 'Bad login', text: 'x' });
    expect(first.status).toBe(202);
    await s.settle();
    expect(await s.message(s.agent.id, first.body.id)).toMatchObject({
      status: 'rejected',
      status_reason: 'sender_domain_unavailable',
    });
    expect(await getDomain(s.deps.db, domain)).toMatchObject({
      state: 'failing',
      state_reason: 'smtp_auth_failed',
    });
    expect(relay.auths).toHaveLength(1);

    const second = await s.send({ to: ['bob@dest.example'], subject: 'After the refusal', text: 'x' });
    expect(second.status).toBe(202);
    await s.settle();
    expect(await s.message(s.agent.id, second.body.id)).toMatchObject({
      status: 'failed',
      status_reason: 'domain_failing_no_fallback',
    });
    expect(relay.connections).toBe(1);
    expect(relay.messages).toHaveLength(0);
  });
});
