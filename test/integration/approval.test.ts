import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { permissionsOf } from '../../functions/core/keys.ts';
import { localDay } from '../../functions/core/quota.ts';
import { readDailyCounts } from '../../functions/store/quota.store.ts';
import { faults } from '../support/faults.ts';
import { listEvents } from '../support/feeds.ts';
import { type TestStack, tenantItems, testStack } from '../support/local.ts';

/**
 * A person's approval before a send (docs/guides/sending.md › Approval before a send), through the
 * HTTP API on the local stack with the real state machines: a send of an identity whose policy
 * says `require_approval` is accepted `pending_approval` and counts nothing; approve re-runs the
 * checks, counts, and starts one execution; reject ends it `canceled`. The races are made to
 * happen with parallel requests and a held write.
 */
const APPROVAL = { send_policy: { require_approval: true } };

let s: TestStack;
const starts: string[] = [];
beforeAll(async () => {
  s = await testStack({
    config: { simEventDelaySeconds: 0 },
    seed: { identity: APPROVAL },
    dispatcher: {
      start: async (name, input, machine) => {
        starts.push(name);
        await s.machine.start(name, input, machine);
      },
    },
  });
});
afterAll(async () => {
  await s.settle();
  await s.close();
});

const path = (id: string, action: string) => `/v1/identities/${s.agent.id}/messages/${id}/${action}`;
const approve = (id: string, key?: string) => s.call('POST', path(id, 'approve'), { key });
const reject = (id: string, key?: string) => s.call('POST', path(id, 'reject'), { key });
const today = () => localDay(Date.now(), 'UTC');
const sentToday = async () => (await readDailyCounts(s.deps.db, s.tenantId, s.agent.id, today())).identity;
const received = async () => (await s.mailbox(s.peer.id, 'inbound')).length;
const startsOf = (id: string) => starts.filter((n) => n.startsWith(id));
const eventTypes = async (id: string) =>
  (await listEvents(s.deps.db, s.tenantId, { limit: 100 })).data
    .filter((e) => e.data.message_id === id)
    .map((e) => e.type);
const mail = (subject: string) => ({ to: [s.peer.address], subject, text: 'Please approve me.' });

describe('a send that waits for a person', () => {
  it('is accepted pending_approval, counts nothing, replays its state, and is delivered once after approval', async () => {
    const before = await sentToday();
    const inboxBefore = await received();
    const sent = await s.send(mail('Needs a yes'), 'approve-me');
    expect(sent.status).toBe(202);
    expect(sent.body).toMatchObject({ status: 'pending_approval', deduplicated: false });
    const id = sent.body.id as string;
    await s.settle();
    expect(await sentToday()).toBe(before);
    expect(startsOf(id)).toEqual([]);
    expect(await received()).toBe(inboxBefore);

    // The key's replay answers the current state; the same key with another body is a conflict.
    const replay = await s.send(mail('Needs a yes'), 'approve-me');
    expect(replay.status).toBe(202);
    expect(replay.body).toMatchObject({ id, status: 'pending_approval', deduplicated: true });
    expect((await s.send(mail('Another body'), 'approve-me')).body.error.code).toBe('idempotency_conflict');

    // The list's status filter finds it.
    const listed = await s.call('GET', `/v1/identities/${s.agent.id}/messages`, {
      query: { status: 'pending_approval' },
    });
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((m: { id: string }) => m.id)).toContain(id);
    expect(listed.body.data.every((m: { status: string }) => m.status === 'pending_approval')).toBe(true);

    const ok = await approve(id);
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ id, status: 'queued' });
    await s.settle();
    expect(startsOf(id)).toEqual([`${id}-d1`]);
    expect(await sentToday()).toBe(before + 1);
    expect(await received()).toBe(inboxBefore + 1);
    const after = await s.send(mail('Needs a yes'), 'approve-me');
    expect(after.body.status).not.toBe('pending_approval');
    expect(after.body).toMatchObject({
      id,
      deduplicated: true,
      status: (await s.message(s.agent.id, id))!.status,
    });
    expect(['submitted', 'delivered']).toContain(after.body.status);
    const types = await eventTypes(id);
    expect(types.slice(0, 2)).toEqual(['message.pending_approval', 'message.approved']);
    expect(types.filter((t) => t === 'message.approved')).toHaveLength(1);
    const audits = (await tenantItems(s, 'AU#')).filter((a) => a.message_id === id);
    expect(audits.map((a) => a.action)).toEqual(['message.approve']);

    // Approving again is a 409 with the current state.
    const again = await approve(id);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('not_pending_approval');
  });

  it('two approves racing start one execution and deliver one email', async () => {
    const before = await sentToday();
    const inboxBefore = await received();
    const id = (await s.send(mail('Race of approvals'))).body.id as string;
    const answers = await Promise.all([approve(id), approve(id), approve(id)]);
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([200, 409, 409]);
    for (const a of answers.filter((x) => x.status === 409)) {
      expect(a.body.error.code).toBe('not_pending_approval');
      expect(a.body.error.details.status).not.toBe('pending_approval');
    }
    await s.settle();
    expect(startsOf(id)).toEqual([`${id}-d1`]);
    expect(await received()).toBe(inboxBefore + 1);
    // Counted once: the losers' counts went back.
    expect(await sentToday()).toBe(before + 1);
  });

  it('approve racing reject: one wins, the other answers 409 with the state it left', async () => {
    const inboxBefore = await received();
    const before = await sentToday();
    const id = (await s.send(mail('Approve or reject'))).body.id as string;
    const [a, r] = await Promise.all([approve(id), reject(id)]);
    expect([a.status, r.status].sort()).toEqual([200, 409]);
    const loser = a.status === 409 ? a : r;
    expect(loser.body.error.code).toBe('not_pending_approval');
    await s.settle();
    const m = (await s.message(s.agent.id, id))!;
    if (a.status === 200) {
      expect(loser.body.error.details.status).not.toBe('pending_approval');
      expect(startsOf(id)).toEqual([`${id}-d1`]);
      expect(await received()).toBe(inboxBefore + 1);
      expect(await sentToday()).toBe(before + 1);
    } else {
      expect(loser.body.error.details).toMatchObject({
        status: 'canceled',
        status_reason: 'rejected_by_reviewer',
      });
      expect(m.status).toBe('canceled');
      expect(startsOf(id)).toEqual([]);
      expect(await received()).toBe(inboxBefore);
      expect(await sentToday()).toBe(before);
    }
  });

  it('an approve held behind a reject that wins gives its count back and sends nothing', async () => {
    const before = await sentToday();
    const id = (await s.send(mail('Held approve'))).body.id as string;
    // The approve's message write is held until the reject has answered.
    const gate = faults(s.deps.db).pauseBefore(
      (c) => c.command === 'TransactWriteItems' && JSON.stringify(c.input).includes('message.approved'),
    );
    const approving = approve(id);
    await gate.reached;
    const r = await reject(id);
    gate.go();
    const a = await approving;
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'canceled', status_reason: 'rejected_by_reviewer' });
    expect(a.status).toBe(409);
    expect(a.body.error.details).toMatchObject({ status: 'canceled', status_reason: 'rejected_by_reviewer' });
    await s.settle();
    expect(startsOf(id)).toEqual([]);
    expect(await sentToday()).toBe(before);
    expect(await eventTypes(id)).toEqual(['message.pending_approval', 'message.rejected']);
  });

  it('reply, reply-all, forward and a send by template wait the same way, and count nothing', async () => {
    const before = await sentToday();
    // The peer (same policy) writes to the agent; its send waits too until approved.
    const fromPeer = await s.call('POST', `/v1/identities/${s.peer.id}/messages`, {
      body: { to: [s.agent.address], subject: 'A question', text: 'Can you help?' },
      headers: { 'idempotency-key': 'peer-question' },
    });
    expect(fromPeer.body.status).toBe('pending_approval');
    expect(
      (await s.call('POST', `/v1/identities/${s.peer.id}/messages/${fromPeer.body.id}/approve`)).status,
    ).toBe(200);
    await s.settle();
    const inbound = await s.eventually(async () =>
      (await s.mailbox(s.agent.id, 'inbound')).find((m) => m.subject === 'A question'),
    );
    const answer = (op: string, body: unknown, key: string) =>
      s.call('POST', path(inbound.id, op), { body, headers: { 'idempotency-key': key } });
    const replies = [
      await answer('reply', { text: 'Yes.' }, 'wait-reply'),
      await answer('reply-all', { text: 'Yes, all.' }, 'wait-reply-all'),
      await answer('forward', { to: [s.peer.address], text: 'FYI' }, 'wait-forward'),
    ];
    const template = await s.call('POST', `/v1/tenants/${s.tenantId}/templates`, {
      body: {
        name: 'approval-welcome',
        subject: 'Welcome, {{name}}',
        text: 'Hello {{name}}',
        variables_schema: {
          type: 'object',
          properties: { name: { type: 'string' } },
          required: ['name'],
        },
        category: 'transactional',
        kind: 'transactional',
      },
    });
    expect(template.status).toBe(201);
    const byTemplate = await s.send({
      template: 'approval-welcome',
      variables: { name: 'Ada' },
      to: [s.peer.address],
    });
    for (const r of [...replies, byTemplate]) {
      expect(r.status).toBe(202);
      expect(r.body.status).toBe('pending_approval');
      expect(startsOf(r.body.id)).toEqual([]);
    }
    await s.settle();
    // Only the peer's approved question counts, on the peer's own counter.
    expect(await sentToday()).toBe(before);
    const ok = await approve(byTemplate.body.id);
    expect(ok.body).toMatchObject({ status: 'queued', subject: 'Welcome, Ada' });
  });

  it('suppressions made while a send waited apply at approval; every recipient suppressed counts nothing', async () => {
    const gone = `gone-${Date.now()}@simulator.invalid`;
    const both = (await s.send({ to: [s.peer.address, gone], subject: 'Two of us', text: 'x' })).body
      .id as string;
    const only = (await s.send({ to: [gone], subject: 'Just them', text: 'x' })).body.id as string;
    const suppressed = await s.call('POST', `/v1/tenants/${s.tenantId}/suppressions`, {
      body: { address: gone, reason: 'manual' },
    });
    expect(suppressed.status).toBe(201);
    const before = await sentToday();
    const none = await approve(only);
    expect(none.status).toBe(200);
    expect(none.body.status).toBe('suppressed');
    expect(await eventTypes(only)).toEqual([
      'message.pending_approval',
      'message.approved',
      'message.suppressed',
    ]);
    expect(await sentToday()).toBe(before);
    expect(startsOf(only)).toEqual([]);
    const part = await approve(both);
    expect(part.body.status).toBe('queued');
    expect(
      part.body.deliveries.map((d: { address: string; status: string }) => [d.address, d.status]),
    ).toEqual([
      [s.peer.address, 'queued'],
      [gone, 'suppressed'],
    ]);
    await s.settle();
    expect(startsOf(both)).toEqual([`${both}-d1`]);
    expect(await sentToday()).toBe(before + 1);
  });

  it('reject ends it canceled rejected_by_reviewer; the replay answers that', async () => {
    const id = (await s.send(mail('No thanks'), 'reject-me')).body.id as string;
    const r = await reject(id);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id, status: 'canceled', status_reason: 'rejected_by_reviewer' });
    const replay = await s.send(mail('No thanks'), 'reject-me');
    expect(replay.body).toMatchObject({ id, status: 'canceled', deduplicated: true });
    expect((await reject(id)).status).toBe(409);
    expect((await approve(id)).status).toBe(409);
    expect(startsOf(id)).toEqual([]);
  });

  it('an identity key holds messages:approve only when created with it', async () => {
    const id = (await s.send(mail('Agent approves itself?'))).body.id as string;
    const mint = async (permissions: string[]) => {
      const res = await s.call('POST', '/v1/keys', {
        body: { name: 'agent', level: 'identity', identity_id: s.agent.id, permissions },
      });
      expect(res.status).toBe(201);
      return res.body.secret as string;
    };
    expect(permissionsOf('identity')).not.toContain('messages:approve');
    expect(permissionsOf('tenant')).toContain('messages:approve');
    const agentKey = await mint(permissionsOf('identity'));
    const denied = await approve(id, agentKey);
    expect(denied.status).toBe(403);
    expect(denied.body.error).toMatchObject({
      code: 'permission_denied',
      details: { required: 'messages:approve' },
    });
    expect((await reject(id, agentKey)).status).toBe(403);
    // The agent may still send and read; the message is untouched.
    expect((await s.message(s.agent.id, id))!.status).toBe('pending_approval');
    const reviewer = await mint(['messages:read', 'messages:approve']);
    expect((await reject(id, reviewer)).status).toBe(200);
  });
});

describe('approval runs the checks again', () => {
  it('a cap reached, or the identity paused, while the send was pending refuses it at approval: failed with that code, nothing sent', async () => {
    const c = await testStack({
      config: { simEventDelaySeconds: 0 },
      seed: { identity: { send_policy: { require_approval: true, daily_cap: 1 } } },
    });
    try {
      const first = (await c.send({ to: [c.peer.address], subject: 'One', text: 'x' })).body.id as string;
      const second = (await c.send({ to: [c.peer.address], subject: 'Two', text: 'x' })).body.id as string;
      // Both are accepted: neither counts while pending.
      expect((await c.message(c.agent.id, second))!.status).toBe('pending_approval');
      const ok = await c.call('POST', `/v1/identities/${c.agent.id}/messages/${first}/approve`);
      expect(ok.status).toBe(200);
      const refused = await c.call('POST', `/v1/identities/${c.agent.id}/messages/${second}/approve`);
      expect(refused.status).toBe(429);
      expect(refused.body.error).toMatchObject({
        code: 'daily_cap_reached',
        details: { cap: 'identity', limit: 1, message: { id: second, status: 'failed' } },
      });
      await c.settle();
      expect(await c.message(c.agent.id, second)).toMatchObject({
        status: 'failed',
        status_reason: 'daily_cap_reached',
      });
      expect((await c.mailbox(c.peer.id, 'inbound')).map((m) => m.subject)).toEqual(['One']);
      const again = await c.call('POST', `/v1/identities/${c.agent.id}/messages/${second}/approve`);
      expect(again.body.error).toMatchObject({ code: 'not_pending_approval', details: { status: 'failed' } });

      // The identity paused while a send waited: refused at approval, failed identity_paused.
      const third = (await c.send({ to: [c.peer.address], subject: 'Three', text: 'x' })).body.id as string;
      const paused = await c.call('PATCH', `/v1/identities/${c.agent.id}`, { body: { status: 'paused' } });
      expect(paused.status).toBe(200);
      const refusedPaused = await c.call('POST', `/v1/identities/${c.agent.id}/messages/${third}/approve`);
      expect(refusedPaused.status).toBe(409);
      expect(refusedPaused.body.error).toMatchObject({
        code: 'identity_paused',
        details: { message: { id: third, status: 'failed', status_reason: 'identity_paused' } },
      });
    } finally {
      await c.settle();
      await c.close();
    }
  });
});
