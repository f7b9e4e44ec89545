import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { permissionsOf } from '../../functions/core/keys.ts';
import { startHttpServer } from '../../functions/local/http-server.ts';
import { silentLogger } from '../../functions/log.ts';
import { listEvents } from '../support/feeds.ts';
import { type TestStack, testStack } from '../support/local.ts';

/**
 * Guardrails on sending an agent cannot switch off (docs/guides/sending.md › Approval before a send,
 * docs/security.md › Who may change what), through the HTTP API and the MCP tools on the local
 * stack: a draft-only key's sends wait for approval and its attempts to lift that are refused;
 * `require_approval: "first_contact"` holds a new recipient and passes a known one; a contact is
 * made by a queued or approved send, never by a pending or rejected one.
 */
let s: TestStack;
let url: string;
const closers: (() => Promise<unknown>)[] = [];
let seq = 0;
const fresh = () => `${Date.now().toString(36)}-${++seq}`;

beforeAll(async () => {
  s = await testStack({ config: { simEventDelaySeconds: 0 } });
  const http = await startHttpServer(s.groups, { port: 0, log: silentLogger });
  closers.push(http.close);
  url = http.url;
});

afterAll(async () => {
  for (const c of closers.reverse()) await c();
  await s?.settle();
  await s?.close();
});

async function mint(body: Record<string, unknown>, key?: string) {
  return s.call('POST', '/v1/keys', {
    key,
    body: { name: `k-${fresh()}`, level: 'identity', identity_id: s.agent.id, ...body },
  });
}

const sendAs = (key: string, to: string, subject = `guarded ${fresh()}`) =>
  s.send({ to: [to], subject, text: 'Hello.' }, `k-${fresh()}`, { key });
const msg = (id: string, action: string) => `/v1/identities/${s.agent.id}/messages/${id}/${action}`;

async function setSendPolicy(send_policy: unknown) {
  const res = await s.call('PATCH', `/v1/identities/${s.agent.id}`, { body: { send_policy } });
  expect(res.status).toBe(200);
}

describe('a draft-only key (sends_need_approval)', () => {
  let draft: { id: string; secret: string };

  beforeAll(async () => {
    const res = await mint({ permissions: permissionsOf('identity'), sends_need_approval: true });
    expect(res.status).toBe(201);
    expect(res.body.sends_need_approval).toBe(true);
    draft = { id: res.body.id, secret: res.body.secret };
  });

  it('has every send wait for approval, whatever the identity’s policy; approved, it is sent once', async () => {
    const sent = await sendAs(draft.secret, 'delivered@simulator.invalid');
    expect(sent.status).toBe(202);
    expect(sent.body.status).toBe('pending_approval');
    const approved = await s.call('POST', msg(sent.body.id, 'approve'));
    expect(approved.status).toBe(200);
    await s.settle();
    const m = await s.eventually(async () => {
      const got = await s.message(s.agent.id, sent.body.id);
      return got?.status === 'delivered' ? got : undefined;
    });
    expect(m.deliveries).toHaveLength(1);
    const events = (await listEvents(s.deps.db, s.tenantId, { limit: 1000 })).data.filter(
      (e) => e.data.message_id === sent.body.id,
    );
    expect(events.filter((e) => e.type === 'message.delivered')).toHaveLength(1);
  });

  it('refuses its attempts to lift the flag: a key minted or rotated without it, an approval', async () => {
    const lifted = await mint({ permissions: ['messages:send'] }, draft.secret);
    expect(lifted.status).toBe(403);
    expect(lifted.body.error).toMatchObject({
      code: 'guardrail_locked',
      details: { change: 'key.sends_need_approval' },
    });
    // A sibling key without the flag: its new secret would send without approval.
    const sibling = await mint({ permissions: ['messages:send'] });
    expect(sibling.status).toBe(201);
    const rotated = await s.call('POST', `/v1/keys/${sibling.body.id}/rotate`, {
      key: draft.secret,
      body: {},
    });
    expect(rotated.status).toBe(403);
    expect(rotated.body.error.code).toBe('guardrail_locked');
    // What it may mint or rotate stays draft-only.
    const narrower = await mint({ permissions: ['messages:send'], sends_need_approval: true }, draft.secret);
    expect(narrower.status).toBe(201);
    const own = await s.call('POST', `/v1/keys/${draft.id}/rotate`, { key: draft.secret, body: {} });
    expect(own.status).toBe(200);
    expect(own.body.sends_need_approval).toBe(true);
    const viaNew = await sendAs(own.body.secret, 'delivered@simulator.invalid');
    expect(viaNew.body.status).toBe('pending_approval');
    // A draft-only key holding messages:approve still approves nothing, its own sends least of all.
    const approver = await mint({
      permissions: ['messages:send', 'messages:approve'],
      sends_need_approval: true,
    });
    expect(approver.status).toBe(201);
    const pending = await sendAs(approver.body.secret, 'delivered@simulator.invalid');
    const self = await s.call('POST', msg(pending.body.id, 'approve'), { key: approver.body.secret });
    expect(self.status).toBe(403);
    expect(self.body.error.code).toBe('guardrail_locked');
    expect((await s.message(s.agent.id, pending.body.id))?.status).toBe('pending_approval');
  });

  it('through MCP: send_email answers pending_approval with the note to wait', async () => {
    const client = new Client({ name: 'draft-agent', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${draft.secret}` } },
      }),
    );
    closers.push(() => client.close());
    const res = (await client.callTool({
      name: 'send_email',
      arguments: {
        idempotency_key: `mcp-${fresh()}`,
        to: ['delivered@simulator.invalid'],
        subject: 'From the draft-only agent',
        text: 'Hi',
      },
    })) as unknown as { structuredContent: { status: string }; content: { text: string }[] };
    expect(res.structuredContent.status).toBe('pending_approval');
    expect(res.content[0].text).toMatch(/WAITING FOR A PERSON'S APPROVAL/);
  });
});

describe('require_approval: "first_contact" and the known-recipient rule, on one set of contacts', () => {
  afterAll(() => setSendPolicy(null));

  it('holds a new recipient, passes a known one; a pending or rejected send makes no contact, an approved one does', async () => {
    await setSendPolicy({ require_approval: 'first_contact' });
    const newcomer = `delivered+${fresh()}@simulator.invalid`;
    const first = await sendAs(s.apiKey, newcomer);
    expect(first.body.status).toBe('pending_approval');
    // Still pending: the recipient is no contact yet, so a second send waits too.
    const second = await sendAs(s.apiKey, newcomer);
    expect(second.body.status).toBe('pending_approval');
    expect((await s.call('POST', msg(second.body.id, 'reject'))).status).toBe(200);
    const third = await sendAs(s.apiKey, newcomer);
    expect(third.body.status).toBe('pending_approval');
    expect((await s.call('POST', msg(first.body.id, 'approve'))).status).toBe(200);
    await s.settle();
    const known = await sendAs(s.apiKey, newcomer);
    expect(known.body.status).toBe('queued');
    // Another newcomer in the same send holds it all.
    const mixed = await s.send(
      { to: [newcomer, `delivered+${fresh()}@simulator.invalid`], subject: 'mixed', text: 'x' },
      `k-${fresh()}`,
    );
    expect(mixed.body.status).toBe('pending_approval');
  });

  it('a send waiting for approval makes no contact: require_known_recipient still refuses its recipient', async () => {
    await setSendPolicy({ require_approval: true });
    const stranger = `delivered+${fresh()}@simulator.invalid`;
    const pending = await sendAs(s.apiKey, stranger);
    expect(pending.body.status).toBe('pending_approval');
    await s.settle();
    await setSendPolicy({ require_known_recipient: true });
    const refused = await sendAs(s.apiKey, stranger);
    expect(refused.body.status).toBe('suppressed');
    expect(refused.body.deliveries[0].smtp_response).toBe('policy: unknown_recipient');
  });

  it('require_known_recipient reads the same contacts: a recipient only of pending sends is unknown', async () => {
    await setSendPolicy({ require_approval: 'first_contact' });
    const stranger = `delivered+${fresh()}@simulator.invalid`;
    const pending = await sendAs(s.apiKey, stranger);
    expect(pending.body.status).toBe('pending_approval');
    await setSendPolicy({ require_known_recipient: true });
    const refused = await sendAs(s.apiKey, stranger);
    expect(refused.body.status).toBe('suppressed');
    expect(refused.body.deliveries[0].smtp_response).toBe('policy: unknown_recipient');
  });
});

describe('who may change the new guardrails: fields and key minting', () => {
  it('an identity key changes no receive_policy, no receive list, and mints no key holding messages:hold', async () => {
    const agent = await mint({ permissions: permissionsOf('identity') });
    const key = agent.body.secret as string;
    const attempts = [
      await s.call('PATCH', `/v1/identities/${s.agent.id}`, {
        key,
        body: { receive_policy: { hold: 'none' } },
      }),
      await s.call(
        'PUT',
        `/v1/tenants/${s.tenantId}/lists/receive/allow/${encodeURIComponent('@x.example')}`,
        {
          key,
        },
      ),
      await s.call('PATCH', `/v1/identities/${s.agent.id}`, {
        key,
        body: { send_policy: { require_approval: false } },
      }),
    ];
    expect(attempts.map((r) => [r.status, r.body.error?.details?.change])).toEqual([
      [403, 'identity.receive_policy'],
      [403, 'tenant.receive_lists'],
      [403, 'identity.send_policy'],
    ]);
    // Even an identity key a person gave messages:hold mints none holding it.
    const holder = await mint({ permissions: [...permissionsOf('identity'), 'messages:hold'] });
    expect(holder.status).toBe(201);
    const minted = await mint({ permissions: ['messages:hold'] }, holder.body.secret);
    expect(minted.status).toBe(403);
    expect(minted.body.error.details.change).toBe('key.grant_hold');
    expect(permissionsOf('identity')).not.toContain('messages:hold');
    expect(permissionsOf('tenant')).toContain('messages:hold');
  });
});
