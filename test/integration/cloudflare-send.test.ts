import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { consumeDeliveryEvent } from '../../functions/events/consume.ts';
import { silentLogger } from '../../functions/log.ts';
import { cloudflareTransport } from '../../functions/transports/cloudflare.transport.ts';
import type { TransportRecipient, TransportRequest } from '../../functions/transports/transport.ts';
import { cfEvent } from '../support/cf-fixtures.ts';
import { makeLive } from '../support/live-domain.ts';
import { stackPerTest, tenantItems } from '../support/local.ts';

/**
 * The Cloudflare Email Sending adapter against a local HTTP server that answers as the documented
 * REST API does (developers.cloudflare.com/email-service/api/send-emails/rest-api/ and
 * …/configuration/suppressions/): the envelope `{ success, errors, messages, result }`, the
 * per-recipient result arrays, the numeric error codes, and a 400 for a suppressed recipient.
 */
interface Seen {
  method: string;
  path: string;
  authorization?: string;
  body?: Record<string, unknown>;
}
type Reply = { status: number; body: unknown } | 'drop' | 'stall';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(
    servers.splice(0).map(
      (s) =>
        new Promise<void>((r) => {
          s.closeAllConnections();
          s.close(() => r());
        }),
    ),
  );
});

async function api(answer: (seen: Seen) => Reply): Promise<{ base: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createServer(async (req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const s: Seen = {
      method: req.method ?? '',
      path: req.url ?? '',
      authorization: req.headers.authorization,
      body: text ? JSON.parse(text) : undefined,
    };
    seen.push(s);
    const reply = answer(s);
    if (reply === 'drop') return req.socket.destroy();
    if (reply === 'stall') return;
    res.writeHead(reply.status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(reply.body));
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}/client/v4`, seen };
}

const ok = (result: Record<string, string[]>) => ({
  status: 200,
  body: {
    success: true,
    errors: [],
    messages: [],
    result: { delivered: [], queued: [], permanent_bounces: [], ...result },
  },
});
const fail = (status: number, code: number, message: string) => ({
  status,
  body: { success: false, errors: [{ code, message }], messages: [], result: null },
});
const sends = (seen: Seen[]) => seen.filter((s) => s.path.endsWith('/email/sending/send'));

const MIME = [
  'X-Pmail-Hop: 1',
  'From: Agent Smith <agent@acme.example>',
  'To: ann@dest.example',
  'Cc: cat@dest.example',
  'Reply-To: agent+t123@acme.example',
  'Subject: Quarterly numbers',
  'Message-ID: <01jbz0000000000000000000aa@acme.example>',
  'In-Reply-To: <prev@dest.example>',
  'References: <first@dest.example> <prev@dest.example>',
  'Date: Thu, 03 Dec 2026 02:00:00 +0000',
  'MIME-Version: 1.0',
  'Content-Type: multipart/mixed; boundary="b1"',
  '',
  '--b1',
  'Content-Type: text/plain; charset=utf-8',
  '',
  'Hello Ann.',
  '--b1',
  'Content-Type: text/csv; name="q.csv"',
  'Content-Disposition: attachment; filename="q.csv"',
  'Content-Transfer-Encoding: base64',
  '',
  Buffer.from('a,b\n1,2\n').toString('base64'),
  '--b1--',
  '',
].join('\r\n');

function request(
  recipients: TransportRecipient[] = [
    { address: 'ann@dest.example', field: 'to' },
    { address: 'cat@dest.example', field: 'cc' },
    { address: 'hidden@dest.example', field: 'bcc' },
  ],
  signal = new AbortController().signal,
): TransportRequest {
  return {
    tenant_id: 'ten_1',
    identity_id: 'idn_1',
    message_id: 'msg_01jbz0000000000000000000aa',
    claim_token: 'tok',
    attempt: 1,
    mime: { key: 'k', size: MIME.length, load: async () => new TextEncoder().encode(MIME) },
    rfc_message_id: '<01jbz0000000000000000000aa@acme.example>',
    subject: 'Quarterly numbers',
    kind: 'transactional',
    from: 'agent@acme.example',
    envelope_from: 'agent@acme.example',
    recipients,
    domain: {
      domain: 'acme.example',
      tenant_id: 'ten_1',
      transport: 'cloudflare',
      cloudflare: { account_id: 'acc1' },
    },
    deadline: Date.now() + 50_000,
    signal,
  };
}

const transport = (base: string) =>
  cloudflareTransport({ apiToken: async () => 'cf-token', log: silentLogger }, { apiBase: base });

describe('Cloudflare Email Sending transport against a local REST API', () => {
  it('sends the documented fields once and records Accepted with the cf-rest provider id', async () => {
    const { base, seen } = await api(() =>
      ok({ delivered: ['ann@dest.example', 'cat@dest.example'], queued: ['hidden@dest.example'] }),
    );
    const result = await transport(base).send(request());
    expect(result).toEqual({
      type: 'accepted',
      provider: 'cloudflare',
      provider_message_id: 'cf-rest:msg_01jbz0000000000000000000aa',
      refused: [],
      deferred: [],
    });
    expect(seen).toHaveLength(1);
    const [s] = seen;
    expect(s?.method).toBe('POST');
    expect(s?.path).toBe('/client/v4/accounts/acc1/email/sending/send');
    expect(s?.authorization).toBe('Bearer cf-token');
    expect(s?.body).toMatchObject({
      from: { address: 'agent@acme.example', name: 'Agent Smith' },
      to: ['ann@dest.example'],
      cc: ['cat@dest.example'],
      bcc: ['hidden@dest.example'],
      subject: 'Quarterly numbers',
      text: expect.stringContaining('Hello Ann.'),
      reply_to: 'agent+t123@acme.example',
      headers: {
        'X-Pmail-Hop': '1',
        'In-Reply-To': '<prev@dest.example>',
        References: '<first@dest.example> <prev@dest.example>',
      },
      attachments: [
        {
          filename: 'q.csv',
          type: 'text/csv',
          disposition: 'attachment',
          content: Buffer.from('a,b\n1,2\n').toString('base64'),
        },
      ],
    });
    // Platform-controlled headers are never sent (E_HEADER_NOT_ALLOWED).
    const names = Object.keys((s?.body?.headers ?? {}) as object).map((h) => h.toLowerCase());
    for (const h of [
      'message-id',
      'date',
      'mime-version',
      'content-type',
      'from',
      'to',
      'subject',
      'reply-to',
    ])
      expect(names).not.toContain(h);
  });

  it('refuses the permanent_bounces recipients and accepts the rest', async () => {
    const { base } = await api(() =>
      ok({ delivered: ['ann@dest.example'], permanent_bounces: ['cat@dest.example'] }),
    );
    const result = await transport(base).send(request());
    expect(result).toMatchObject({
      type: 'accepted',
      refused: [{ address: 'cat@dest.example', code: '550' }],
    });
  });

  it.each([
    [fail(429, 10004, 'email.sending.error.throttled'), { type: 'retry_later', class: 'RateLimit' }],
    [
      fail(403, 10203, 'email.sending.error.email.sending_disabled'),
      { type: 'retry_later', class: 'Paused' },
    ],
    [
      fail(401, 10101, 'email.sending.error.authentication.unauthorized'),
      { type: 'rejected', reason: 'sender_domain_unavailable' },
    ],
    [
      fail(400, 10001, 'email.sending.error.invalid_request_schema'),
      { type: 'rejected', reason: 'provider_validation' },
    ],
    [fail(500, 10002, 'email.sending.error.internal_server'), { type: 'unknown' }],
  ])('answers %j as classified, with one request', async (reply, expected) => {
    const { base, seen } = await api(() => reply);
    expect(await transport(base).send(request())).toMatchObject(expected);
    expect(seen).toHaveLength(1);
  });

  it('a connection dropped after the request was read → unknown, one request seen', async () => {
    const { base, seen } = await api(() => 'drop');
    const result = await transport(base).send(request());
    expect(result).toMatchObject({ type: 'unknown', reason: 'transport_connection_lost' });
    expect(seen).toHaveLength(1);
  });

  it('no answer before the request signal (the task deadline) → unknown (timeout), one request seen', async () => {
    const { base, seen } = await api(() => 'stall');
    const controller = new AbortController();
    const pending = transport(base).send(request(undefined, controller.signal));
    await expect.poll(() => seen.length).toBe(1);
    controller.abort(new Error('deadline'));
    expect(await pending).toMatchObject({ type: 'unknown', reason: 'transport_timeout' });
    expect(seen).toHaveLength(1);
  });

  it('a suppressed recipient: finds it, reports it, sends to the rest under the same claim', async () => {
    const { base, seen } = await api((s) => {
      if (s.method === 'GET') {
        const email = new URL(`http://x${s.path}`).searchParams.get('email');
        const result =
          email === 'cat@dest.example'
            ? [
                {
                  id: 's1',
                  email,
                  reason: 'hard_bounce',
                  created_at: '2026-12-01T00:00:00Z',
                  expires_at: null,
                  read_only: false,
                },
              ]
            : [];
        return {
          status: 200,
          body: { success: true, errors: [], messages: [], result, result_info: { next_cursor: null } },
        };
      }
      const all = [
        ...((s.body?.to as string[]) ?? []),
        ...((s.body?.cc as string[]) ?? []),
        ...((s.body?.bcc as string[]) ?? []),
      ];
      if (all.includes('cat@dest.example'))
        return fail(400, 10001, 'email.sending.error.recipient_suppressed');
      return ok({ delivered: all });
    });
    const result = await transport(base).send(request());
    expect(result).toMatchObject({
      type: 'accepted',
      provider_suppressed: [{ address: 'cat@dest.example', reason: 'hard_bounce' }],
    });
    const posts = sends(seen);
    expect(posts).toHaveLength(2);
    expect(posts[1]?.body).toMatchObject({ to: ['ann@dest.example'], bcc: ['hidden@dest.example'] });
    expect(posts[1]?.body?.cc).toBeUndefined();
    // Exactly one request was accepted for this claim.
    expect(posts.filter((p) => !JSON.stringify(p.body).includes('cat@dest.example'))).toHaveLength(1);
  });

  it('one recipient, suppressed: it is that one, and the message has no recipient left', async () => {
    const { base, seen } = await api(() => fail(400, 10001, 'email.sending.error.recipient_suppressed'));
    const result = await transport(base).send(request([{ address: 'ann@dest.example', field: 'to' }]));
    expect(result).toMatchObject({
      type: 'rejected',
      reason: 'recipient_suppressed_by_provider',
      provider_suppressed: [{ address: 'ann@dest.example' }],
    });
    expect(seen).toHaveLength(1);
  });

  it('suppressed recipients that cannot be identified → recipient_suppressed_by_provider, nothing reported', async () => {
    const { base } = await api((s) =>
      s.method === 'GET'
        ? fail(500, 10002, 'email.sending.error.internal_server')
        : fail(400, 10001, 'email.sending.error.recipient_suppressed'),
    );
    const result = await transport(base).send(request());
    expect(result).toMatchObject({ type: 'rejected', reason: 'recipient_suppressed_by_provider' });
    expect(result.provider_suppressed).toBeUndefined();
  });

  it('stops after three requests when recipients keep turning out suppressed', async () => {
    let lastTo: string[] = [];
    const { base, seen } = await api((s) => {
      if (s.method === 'GET') {
        const email = new URL(`http://x${s.path}`).searchParams.get('email');
        // Each round, the first recipient of the last request is found suppressed.
        return {
          status: 200,
          body: { success: true, result: email === lastTo[0] ? [{ email, reason: 'complaint' }] : [] },
        };
      }
      lastTo = (s.body?.to as string[]) ?? [];
      return fail(400, 10001, 'email.sending.error.recipient_suppressed');
    });
    const four: TransportRecipient[] = ['a', 'b', 'c', 'd'].map((l) => ({
      address: `${l}@dest.example`,
      field: 'to',
    }));
    const result = await transport(base).send(request(four));
    expect(sends(seen)).toHaveLength(3);
    expect(result).toMatchObject({ type: 'rejected', reason: 'recipient_suppressed_by_provider' });
    expect(result.provider_suppressed?.length).toBe(3);
  });

  it('without an account it refuses before any request; a missing token backs off (nothing sent)', async () => {
    const { base, seen } = await api(() => ok({}));
    const noAccount = request();
    noAccount.domain = { ...noAccount.domain, cloudflare: {} };
    expect(await transport(base).send(noAccount)).toMatchObject({
      type: 'rejected',
      code: 'cf_not_configured',
    });
    const noToken = cloudflareTransport(
      {
        apiToken: async () => {
          throw new Error('no token');
        },
        log: silentLogger,
      },
      { apiBase: base },
    );
    expect(await noToken.send(request())).toMatchObject({ type: 'retry_later', class: 'Paused' });
    expect(seen).toHaveLength(0);
  });
});

describe('a live tenant sending through Cloudflare (local state machine)', () => {
  const stackFor = stackPerTest();

  it('a provider-suppressed recipient: suppressed delivery, a provider suppression and its event; the rest submitted once', async () => {
    const { base, seen } = await api((s) => {
      if (s.method === 'GET') {
        const email = new URL(`http://x${s.path}`).searchParams.get('email');
        const result = email === 'cat@dest.example' ? [{ email, reason: 'complaint' }] : [];
        return { status: 200, body: { success: true, errors: [], messages: [], result } };
      }
      const to = (s.body?.to as string[]) ?? [];
      if (to.includes('cat@dest.example'))
        return fail(400, 10001, 'email.sending.error.recipient_suppressed');
      return ok({ delivered: to });
    });
    const s = await stackFor({ cloudflare: { apiBase: base, apiToken: 'cf-token' } });
    await makeLive(s, { transport: 'cloudflare', cloudflare: { account_id: 'acc1' } });
    const res = await s.send({
      to: ['ann@dest.example', 'cat@dest.example'],
      subject: 'Via Cloudflare',
      text: 'hi',
    });
    expect(res.status).toBe(202);
    await s.settle();
    const m = await s.message(s.agent.id, res.body.id);
    expect(m?.status).toBe('submitted');
    expect(m?.provider).toBe('cloudflare');
    expect(m?.provider_message_id).toBe(`cf-rest:${res.body.id}`);
    expect(m?.deliveries?.map((d) => [d.address, d.status, d.smtp_response])).toEqual([
      ['ann@dest.example', 'submitted', undefined],
      ['cat@dest.example', 'suppressed', 'provider: suppressed (complaint)'],
    ]);
    const suppressions = await tenantItems(s, 'S#');
    expect(suppressions.map((x) => [x.reason, x.source_message_id])).toEqual([['provider', res.body.id]]);
    const events = (await tenantItems(s, 'E#')).map((e) => e.event.type);
    expect(events.filter((t) => t === 'suppression.created')).toHaveLength(1);
    expect(sends(seen).filter((p) => !JSON.stringify(p.body).includes('cat@dest.example'))).toHaveLength(1);
    // A later send to the suppressed address is filtered by pmail's own list.
    const again = await s.send({ to: ['cat@dest.example'], subject: 'Again', text: 'hi' });
    expect(again.body.status).toBe('suppressed');
  });

  it('the only recipient suppressed by the provider: the message ends suppressed, message.suppressed announced', async () => {
    const { base } = await api(() => fail(400, 10001, 'email.sending.error.recipient_suppressed'));
    const s = await stackFor({ cloudflare: { apiBase: base, apiToken: 'cf-token' } });
    await makeLive(s, { transport: 'cloudflare', cloudflare: { account_id: 'acc1' } });
    const res = await s.send({ to: ['ann@dest.example'], subject: 'Suppressed', text: 'hi' });
    await s.settle();
    const m = await s.message(s.agent.id, res.body.id);
    expect(m?.status).toBe('suppressed');
    const events = (await tenantItems(s, 'E#')).map((e) => e.event.type);
    expect(events).toContain('message.suppressed');
  });
  it('the first Cloudflare event of a REST send adopts its messageId; later events route by it', async () => {
    const { base } = await api((s) => ok({ delivered: (s.body?.to as string[]) ?? [] }));
    const s = await stackFor({ cloudflare: { apiBase: base, apiToken: 'cf-token' } });
    await makeLive(s, { transport: 'cloudflare', cloudflare: { account_id: 'acc1' } });
    const res = await s.send({
      to: ['ann@dest.example', 'bob@dest.example'],
      subject: 'Adopt me',
      text: 'hi',
    });
    await s.settle();
    expect((await s.message(s.agent.id, res.body.id))?.provider_message_id).toBe(`cf-rest:${res.body.id}`);
    const facts = (kind: string, recipient: string, subject = 'Adopt me') => ({
      eventId: `evt-${kind}-${recipient}`,
      messageId: 'cf-0190d0c4-abc',
      sender: s.agent.address,
      recipient,
      subject,
      at: Date.now(),
    });
    // Another subject matches nothing: the event is not adopted (and retried later).
    expect(
      await consumeDeliveryEvent(
        s.deps,
        JSON.stringify(cfEvent('delivered', facts('delivered', 'ann@dest.example', 'Other'))),
      ),
    ).toBe('retry');
    expect(
      await consumeDeliveryEvent(
        s.deps,
        JSON.stringify(cfEvent('delivered', facts('delivered', 'ann@dest.example'))),
      ),
    ).toBe('applied');
    const adopted = await s.message(s.agent.id, res.body.id);
    expect(adopted?.provider_message_id).toBe('cf-0190d0c4-abc');
    expect(adopted?.deliveries?.map((d) => d.status)).toEqual(['delivered', 'submitted']);
    // The next event carries no subject (a complaint): it routes by the adopted id.
    const complaint = cfEvent('complained', {
      ...facts('complained', 'bob@dest.example'),
      subject: undefined,
    });
    expect(await consumeDeliveryEvent(s.deps, JSON.stringify(complaint))).toBe('applied');
    expect((await s.message(s.agent.id, res.body.id))?.deliveries?.map((d) => d.status)).toEqual([
      'delivered',
      'complained',
    ]);
  });
});
