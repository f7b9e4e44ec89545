import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestStack, testStack } from '../support/local.ts';
import { localSes, resettingEndpoint } from '../support/local-ses.ts';

/**
 * The SES transport with the real SDK: against aws-ses-v2-local (the happy path, the message arrives
 * intact, one request per claim, Bcc only in the envelope) and against an endpoint that resets the
 * connection after reading the request (uncertain, never resent). Classified error answers are in
 * test/unit/ses-transport.test.ts (aws-sdk-client-mock: no local SES answers them).
 */
let ses: Awaited<ReturnType<typeof localSes>>;
beforeAll(async () => {
  ses = await localSes();
});
afterAll(async () => {
  await ses.close();
});

const liveOn = (endpoint: string) =>
  testStack({
    config: { simEventDelaySeconds: 0 },
    seed: {
      mode: 'live',
      transport: 'ses',
      ses: { endpoint, configuration_set: 'pmail-local' },
    },
  });

const decode = (data: string) => Buffer.from(data, 'base64').toString('utf8');

describe('a live tenant sends through SES', () => {
  let s: TestStack;
  beforeAll(async () => {
    s = await liveOn(ses.url);
  });
  afterAll(async () => {
    await s.settle();
    await s.close();
  });

  it('sends the stored .eml once, with Bcc only in the envelope, and records the SES message id', async () => {
    const before = ses.requests.length;
    const sent = await s.send(
      {
        to: ['jo@example.net'],
        cc: ['kim@example.net'],
        bcc: ['hidden@example.net'],
        subject: 'Through SES',
        text: 'Hello from the SES adapter',
      },
      'ses-happy',
    );
    expect(sent.status).toBe(202);
    await s.settle();
    const m = await s.message(s.agent.id, sent.body.id);
    expect(m).toMatchObject({ status: 'submitted', provider: 'ses' });
    expect(m?.deliveries?.map((d) => d.status)).toEqual(['submitted', 'submitted', 'submitted']);

    const mine = ses.requests.slice(before);
    expect(mine).toHaveLength(1);
    const req = mine[0].body;
    expect(mine[0].path).toBe('/v2/email/outbound-emails');
    expect(req.FromEmailAddress).toBe(s.agent.address);
    expect(req.Destination).toEqual({
      ToAddresses: ['jo@example.net'],
      CcAddresses: ['kim@example.net'],
      BccAddresses: ['hidden@example.net'],
    });
    expect(req.ConfigurationSetName).toBe('pmail-local');
    expect(req.EmailTags).toEqual([
      { Name: 'pmail_tenant', Value: s.tenantId },
      { Name: 'pmail_identity', Value: s.agent.id },
      { Name: 'pmail_message', Value: sent.body.id },
    ]);
    const raw = decode(req.Content.Raw.Data);
    const stored = await s.deps.blobs.get(m!.raw_key);
    expect(raw).toBe(Buffer.from(stored!.body).toString('utf8'));
    expect(raw).not.toMatch(/^bcc:/im);
    expect(raw).not.toContain('hidden@example.net');

    // the local SES received it with headers and body intact, under the id pmail recorded
    const { emails } = await ses.store();
    const email = emails.find((e) => e.messageId === m?.provider_message_id);
    expect(email).toBeDefined();
    expect(email.subject).toBe('Through SES');
    expect(email.body.text).toContain('Hello from the SES adapter');
    expect(email.destination.to).toEqual(['jo@example.net']);
    expect(email.destination.cc).toEqual(['kim@example.net']);
    expect(email.destination.bcc).toEqual([]);

    // another execution for the message (a duplicate, the sweeper) makes no second request
    const again = await s.machine.run(`${sent.body.id}-d9`, {
      tenant_id: s.tenantId,
      identity_id: s.agent.id,
      message_id: sent.body.id,
    });
    expect(again).toMatchObject({ claim: { outcome: 'stop' } });
    expect(ses.requests.slice(before)).toHaveLength(1);
  });

  it('makes one SES request when two executions with the same name run at once', async () => {
    const before = ses.requests.length;
    const r = await testStack({
      config: { simEventDelaySeconds: 0 },
      dispatcher: { start: async () => undefined },
      seed: { mode: 'live', transport: 'ses', ses: { endpoint: ses.url } },
    });
    try {
      const sent = await r.send({ to: ['jo@example.net'], subject: 'Twice', text: 'x' }, 'ses-dup');
      const input = { tenant_id: r.tenantId, identity_id: r.agent.id, message_id: sent.body.id };
      await Promise.all([
        r.machine.run(`${sent.body.id}-d1`, input),
        r.machine.run(`${sent.body.id}-d1`, input),
      ]);
      await r.settle();
      expect(ses.requests.slice(before)).toHaveLength(1);
      expect((await r.message(r.agent.id, sent.body.id))?.provider).toBe('ses');
    } finally {
      await r.close();
    }
  });
});

describe('an SES connection reset after the request was written', () => {
  it('records uncertain after exactly one request, and never sends again', async () => {
    const reset = await resettingEndpoint();
    const s = await liveOn(reset.url);
    try {
      const sent = await s.send({ to: ['jo@example.net'], subject: 'Reset', text: 'x' }, 'ses-reset');
      expect(sent.status).toBe(202);
      await s.settle();
      const m = await s.message(s.agent.id, sent.body.id);
      expect(m).toMatchObject({ status: 'uncertain', status_reason: 'transport_connection_lost' });
      expect(reset.requests).toHaveLength(1);
      expect(reset.requests[0].body.Destination.ToAddresses).toEqual(['jo@example.net']);
      const again = await s.machine.run(`${sent.body.id}-d9`, {
        tenant_id: s.tenantId,
        identity_id: s.agent.id,
        message_id: sent.body.id,
      });
      expect(again).toMatchObject({ claim: { outcome: 'stop', reason: 'not_queued' } });
      await s.settle();
      expect(reset.requests).toHaveLength(1);
    } finally {
      await s.close();
      await reset.close();
    }
  });
});
