import { beforeAll, describe, expect, it } from 'vitest';
import { RECONCILE_MIN_AGE_MS } from '../../functions/core/reconcile.ts';
import { addressHash } from '../../functions/core/suppressions.ts';
import { consumeDeliveryEvent } from '../../functions/events/consume.ts';
import { getIdentity } from '../../functions/store/directory.store.ts';
import { getSuppression } from '../../functions/store/suppressions.store.ts';
import { stackPerTest, submittedVia, type TestStack, tenantItems } from '../support/local.ts';
import { envelope, type MailFacts, ses } from '../support/ses-fixtures.ts';

const stack = stackPerTest();

const partition = tenantItems;
const outbox = async (s: TestStack) =>
  (await partition(s, 'E#')).map(
    (i) => i.event as { id: string; type: string; data: Record<string, unknown> },
  );

let n = 0;
/**
 * A message as a live SES send leaves it: submitted, every delivery submitted, the SES message id
 * recorded (what Record writes when SES accepts). The recipients are simulator `timeout` addresses,
 * which produce no simulator events of their own.
 */
async function sesMessage(s: TestStack, count = 1, subject = 'Your booking') {
  const to = Array.from({ length: count }, () => `timeout+${++n}@simulator.invalid`);
  const sent = await submittedVia(s, 'ses', { to, subject, providerMessageId: (u) => `0100018c-ses-${u}` });
  const facts: MailFacts = {
    messageId: sent.providerMessageId,
    from: s.agent.address,
    to,
    subject,
    at: Date.now(),
  };
  return { id: sent.id, to, facts };
}

const feed = async (s: TestStack, ...bodies: string[]) => {
  for (const b of bodies) s.queue.sendRaw(b);
  await s.settle();
};

describe('SES notifications through the consumer on DynamoDB Local', () => {
  let s: TestStack;
  beforeAll(async () => {
    s = await stack();
  });

  it('stores the Message-ID of a Send event and changes no status', async () => {
    const m = await sesMessage(s);
    await feed(s, envelope(ses.send({ ...m.facts, messageId: m.facts.messageId })));
    const after = (await s.message(s.agent.id, m.id))!;
    expect(after.rfc_message_id).toBe(`<${m.facts.messageId}>`);
    expect(after.status).toBe('submitted');
  });

  it('moves a recipient to deferred on DeliveryDelay and to delivered on Delivery, with one event each', async () => {
    const m = await sesMessage(s);
    await feed(s, envelope(ses.deliveryDelay(m.facts)));
    expect((await s.message(s.agent.id, m.id))!.status).toBe('deferred');
    await feed(s, envelope(ses.delivery(m.facts)));
    const after = (await s.message(s.agent.id, m.id))!;
    expect(after.status).toBe('delivered');
    expect(after.deliveries![0]).toMatchObject({
      status: 'delivered',
      smtp_code: '250',
      enhanced_code: '2.6.0',
    });
    const mine = (await outbox(s)).filter((e) => e.data.message_id === m.id);
    expect(mine.map((e) => e.type)).toEqual(['message.deferred', 'message.delivered']);
    expect(mine[1].data).toMatchObject({ recipient: m.to[0], status: 'delivered', smtp_code: '250' });
  });

  it('hard-bounces on a Permanent bounce and suppresses the address as hard_bounce, once', async () => {
    const m = await sesMessage(s);
    const body = envelope(ses.bounce(m.facts));
    await feed(s, body, body);
    const after = (await s.message(s.agent.id, m.id))!;
    expect(after.status).toBe('bounced');
    expect(after.deliveries![0]).toMatchObject({
      bounce_type: 'hard',
      smtp_code: '550',
      enhanced_code: '5.1.1',
    });
    const sup = await getSuppression(s.deps.db, s.tenantId, addressHash(s.deps.config.hashKey, m.to[0]));
    expect(sup).toMatchObject({ reason: 'hard_bounce', source_message_id: m.id });
    expect(sup?.expires_at).toBeUndefined();
    const events = await outbox(s);
    expect(events.filter((e) => e.data.message_id === m.id).map((e) => e.type)).toEqual(['message.bounced']);
    expect(events.find((e) => e.data.message_id === m.id)!.data).toMatchObject({
      bounce_type: 'hard',
      suppressed: true,
    });
    expect(
      events.filter((e) => e.type === 'suppression.created' && e.data.source_message_id === m.id),
    ).toHaveLength(1);
  });

  it('records a suppression from the provider list as reason provider', async () => {
    const m = await sesMessage(s);
    await feed(s, envelope(ses.bounce(m.facts, m.to, 'Permanent', 'OnAccountSuppressionList')));
    const sup = await getSuppression(s.deps.db, s.tenantId, addressHash(s.deps.config.hashKey, m.to[0]));
    expect(sup?.reason).toBe('provider');
  });

  it('soft-bounces on a Transient bounce without suppressing', async () => {
    const m = await sesMessage(s);
    await feed(s, envelope(ses.bounce(m.facts, m.to, 'Transient', 'MailboxFull')));
    const after = (await s.message(s.agent.id, m.id))!;
    expect(after.deliveries![0]).toMatchObject({ status: 'bounced', bounce_type: 'soft' });
    expect(
      await getSuppression(s.deps.db, s.tenantId, addressHash(s.deps.config.hashKey, m.to[0])),
    ).toBeUndefined();
  });

  it('marks a complaint after delivery and suppresses the address as complaint', async () => {
    const m = await sesMessage(s);
    await feed(s, envelope(ses.delivery(m.facts)));
    await feed(s, envelope(ses.complaint({ ...m.facts, at: m.facts.at + 60_000 })));
    const after = (await s.message(s.agent.id, m.id))!;
    expect(after.status).toBe('complained');
    const sup = await getSuppression(s.deps.db, s.tenantId, addressHash(s.deps.config.hashKey, m.to[0]));
    expect(sup?.reason).toBe('complaint');
    const mine = (await outbox(s)).filter((e) => e.data.message_id === m.id);
    expect(mine.map((e) => e.type)).toEqual(['message.delivered', 'message.complained']);
    expect(mine[1].data.suppressed).toBe(true);
  });

  it.each([
    ['Reject', ses.reject],
    ['Rendering Failure', ses.renderingFailure],
  ])('rejects every recipient on %s and emits message.rejected once', async (_name, build) => {
    const m = await sesMessage(s, 2);
    await feed(s, envelope(build(m.facts)));
    const after = (await s.message(s.agent.id, m.id))!;
    expect(after.status).toBe('rejected');
    expect(after.deliveries!.map((d) => d.status)).toEqual(['rejected', 'rejected']);
    const mine = (await outbox(s)).filter((e) => e.data.message_id === m.id);
    expect(mine.map((e) => e.type)).toEqual(['message.rejected']);
    expect(mine[0].data).toMatchObject({ reason: 'provider_validation' });
  });

  it('reads raw records (raw message delivery) and identity notifications too', async () => {
    const m = await sesMessage(s);
    await feed(s, JSON.stringify(ses.identityBounce(m.facts)));
    expect((await s.message(s.agent.id, m.id))!.status).toBe('bounced');
  });

  it('applies each event exactly once when delivered three times and out of order', async () => {
    const m = await sesMessage(s, 2);
    const [a, b] = m.to;
    const bodies = [
      envelope(ses.deliveryDelay(m.facts, [a]), 'sns-delay'),
      envelope(ses.delivery(m.facts, [a, b]), 'sns-delivery'),
      envelope(ses.bounce({ ...m.facts, at: m.facts.at + 1000 }, [b]), 'sns-late-bounce'),
    ];
    // Each notification three times, in an order where the delay comes last for the first recipient.
    const order = [1, 2, 0, 2, 1, 0, 0, 1, 2];
    for (const i of order) await consumeDeliveryEvent(s.deps, bodies[i]);
    const after = (await s.message(s.agent.id, m.id))!;
    expect(after.deliveries!.map((d) => d.status)).toEqual(['delivered', 'bounced']);
    expect(after.status).toBe('bounced');
    const mine = (await outbox(s)).filter((e) => e.data.message_id === m.id);
    expect(mine.map((e) => `${e.type} ${e.data.recipient}`).sort()).toEqual(
      [`message.bounced ${b}`, `message.delivered ${a}`, `message.delivered ${b}`].sort(),
    );
    expect(
      (await outbox(s)).filter((e) => e.type === 'suppression.created' && e.data.source_message_id === m.id),
    ).toHaveLength(1);
  });

  it('acks and counts an event type it does not handle', async () => {
    const m = await sesMessage(s);
    const body = envelope(ses.open(m.facts));
    expect(await consumeDeliveryEvent(s.deps, body)).toBe('unknown_type');
    expect((await s.message(s.agent.id, m.id))!.status).toBe('submitted');
  });

  it('routes events of a retired address (no status filter)', async () => {
    const m = await sesMessage(s);
    await s.deps.db.update({
      TableName: s.deps.db.table,
      Key: { pk: `A#${s.agent.address}`, sk: 'A' },
      UpdateExpression: 'SET #s = :r',
      ExpressionAttributeNames: { '#s': 'status' },
      ExpressionAttributeValues: { ':r': 'retired' },
    });
    try {
      expect(await consumeDeliveryEvent(s.deps, envelope(ses.delivery(m.facts)))).toBe('applied');
    } finally {
      await s.deps.db.update({
        TableName: s.deps.db.table,
        Key: { pk: `A#${s.agent.address}`, sk: 'A' },
        UpdateExpression: 'SET #s = :a',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: { ':a': 'active' },
      });
    }
  });
});

describe('suppressions from events', () => {
  it('lets a hard bounce block a transactional send while an unsubscribe blocks only elective ones', async () => {
    const s = await stack();
    const bounced = await s.send({ to: ['bounce+7@simulator.invalid'], subject: 'Hi', text: 'x' });
    await s.settle();
    expect((await s.message(s.agent.id, bounced.body.id))!.status).toBe('bounced');
    const tx = await s.send({ to: ['bounce+7@simulator.invalid'], subject: 'Sign-in link', text: 'x' });
    expect(tx.status).toBe(202);
    expect(tx.body.status).toBe('suppressed');
    expect(tx.body.deliveries[0].smtp_response).toBe('policy: suppression (hard_bounce)');

    await s.call('POST', `/v1/tenants/${s.tenantId}/suppressions`, {
      body: { address: 'delivered+8@simulator.invalid', reason: 'unsubscribe' },
    });
    const signIn = await s.send({
      to: ['delivered+8@simulator.invalid'],
      subject: 'Sign-in link',
      text: 'x',
    });
    expect(signIn.body.deliveries[0].status).toBe('queued');
    const newsletter = await s.send({
      to: ['delivered+8@simulator.invalid'],
      subject: 'News',
      text: 'x',
      kind: 'marketing',
      unsubscribe: { url: 'https://example.com/u' },
      consent: { basis: 'opt_in' },
    });
    expect(newsletter.body.status).toBe('suppressed');
  });
});

describe('abuse auto-pause', () => {
  it('pauses an identity after four complaints in the window, and its next send gets 409 identity_paused', async () => {
    const s = await stack();
    for (let i = 1; i <= 3; i++) {
      await s.send({ to: [`complaint+${i}@simulator.invalid`], subject: 'Hi', text: 'x' });
      await s.settle();
    }
    expect((await getIdentity(s.deps.db, s.agent.id))!.status).toBe('active');
    await s.send({ to: ['complaint+4@simulator.invalid'], subject: 'Hi', text: 'x' });
    await s.settle();
    expect(await getIdentity(s.deps.db, s.agent.id)).toMatchObject({
      status: 'paused',
      pause_reason: 'abuse_threshold',
    });
    const next = await s.send({ to: ['delivered@simulator.invalid'], subject: 'Hi', text: 'x' });
    expect(next.status).toBe(409);
    expect(next.body.error.code).toBe('identity_paused');

    // A fifth complaint on a paused identity changes nothing more: one event, one audit entry.
    await consumeDeliveryEvent(
      s.deps,
      JSON.stringify({
        source: 'simulator',
        event_id: 'late-complaint',
        provider_message_id: (await s.mailbox(s.agent.id, 'outbound'))[0].provider_message_id,
        sender: s.agent.address,
        recipient: (await s.mailbox(s.agent.id, 'outbound'))[0].deliveries![0].address,
        kind: 'complained',
        occurred_at: Date.now(),
      }),
    );
    const paused = (await outbox(s)).filter((e) => e.type === 'identity.paused');
    expect(paused).toHaveLength(1);
    expect(paused[0].data).toEqual({
      identity_id: s.agent.id,
      reason: 'abuse_threshold',
      metrics: { complaints: 4, complaint_window: 1000, bounces: 0, bounce_window: 200 },
    });
    const audit = await partition(s, 'AU#');
    expect(audit.filter((a) => a.action === 'identity.auto_pause')).toHaveLength(1);
  });
});

describe('reconciliation of uncertain sends', () => {
  it('goes timeout, uncertain, deduplicated retry, then a delivered event reconciles', async () => {
    let now = Date.now();
    const s = await stack({ clock: () => now });
    const body = { to: ['timeout@simulator.invalid'], subject: 'Booking bk-2291 confirmed', text: 'x' };
    const first = await s.send(body, 'bk-2291-confirm');
    expect(first.status).toBe(202);
    await s.settle();
    const uncertain = (await s.message(s.agent.id, first.body.id))!;
    expect(uncertain.status).toBe('uncertain');

    const retry = await s.send(body, 'bk-2291-confirm');
    expect(retry.status).toBe(202);
    expect(retry.body).toMatchObject({ id: first.body.id, deduplicated: true });
    expect(retry.headers['idempotent-replayed']).toBe('true');
    await s.settle();
    expect(await s.mailbox(s.agent.id, 'outbound')).toHaveLength(1);

    const facts: MailFacts = {
      messageId: '0100018c-unknown-to-pmail-000000',
      from: s.agent.address,
      to: ['timeout@simulator.invalid'],
      subject: body.subject,
      at: now,
    };
    // Young, the event is retried: the send that owns it could still be in flight.
    expect(await consumeDeliveryEvent(s.deps, envelope(ses.delivery(facts)))).toBe('retry');
    expect((await s.message(s.agent.id, first.body.id))!.status).toBe('uncertain');
    // Past Record's worst case it reconciles.
    now += RECONCILE_MIN_AGE_MS;
    await feed(s, envelope(ses.delivery(facts)));
    const after = (await s.message(s.agent.id, first.body.id))!;
    expect(after).toMatchObject({ status: 'delivered', provider_message_id: facts.messageId });
    expect(after.flags).toContain('reconciled');
    expect(after.deliveries![0].status).toBe('delivered');
    const mine = (await outbox(s)).filter((e) => e.data.message_id === first.body.id);
    expect(mine.map((e) => e.type)).toEqual(['message.uncertain', 'message.reconciled', 'message.delivered']);
    expect(mine[0].data).toMatchObject({
      reason: expect.any(String),
      fix: expect.stringContaining('resolve'),
    });
    expect(mine[1].data.status).toBe('delivered');
    // The same events, in the same order, through the API a client reads.
    const api = await s.call('GET', '/v1/events', { query: { limit: '100' } });
    expect(
      api.body.data
        .filter((e: { data: { message_id?: string } }) => e.data.message_id === first.body.id)
        .map((e: { type: string }) => e.type),
    ).toEqual(['message.uncertain', 'message.reconciled', 'message.delivered']);

    // Later events for the message route by the provider id it now has.
    await feed(s, envelope(ses.complaint(facts)));
    expect((await s.message(s.agent.id, first.body.id))!.status).toBe('complained');
  });

  it('changes nothing when two uncertain messages match, and never reconciles an event without a subject', async () => {
    let now = Date.now();
    const s = await stack({ clock: () => now });
    const body = { to: ['timeout@simulator.invalid'], subject: 'Same subject', text: 'x' };
    const a = await s.send(body, 'a');
    const b = await s.send(body, 'b');
    await s.settle();
    const facts: MailFacts = {
      messageId: 'ses-ambiguous',
      from: s.agent.address,
      to: ['timeout@simulator.invalid'],
      subject: 'Same subject',
      at: now,
    };
    // old enough to reconcile, young enough not to be orphaned: ambiguous is NotFound, retried
    now += RECONCILE_MIN_AGE_MS + 10_000;
    expect(await consumeDeliveryEvent(s.deps, envelope(ses.delivery(facts)))).toBe('retry');
    for (const id of [a.body.id, b.body.id]) {
      const m = (await s.message(s.agent.id, id))!;
      expect(m.status).toBe('uncertain');
      expect(m.provider_message_id).toBeUndefined();
    }

    const c = await stack({ clock: () => now });
    const one = await c.send({ to: ['timeout@simulator.invalid'], subject: 'Only one', text: 'x' }, 'one');
    await c.settle();
    now += RECONCILE_MIN_AGE_MS + 10_000;
    const noSubject = ses.delivery({
      ...facts,
      from: c.agent.address,
      subject: undefined,
      at: now - RECONCILE_MIN_AGE_MS - 10_000,
    });
    expect(await consumeDeliveryEvent(c.deps, envelope(noSubject))).toBe('retry');
    expect((await c.message(c.agent.id, one.body.id))!.status).toBe('uncertain');
  });
});

describe('GET /v1/events', () => {
  it('reads the outbox oldest first, page by page with after, with a tenant key holding events:read', async () => {
    const s = await stack();
    await s.send({ to: ['delivered@simulator.invalid'], subject: 'One', text: 'x' });
    await s.send({ to: ['bounce+9@simulator.invalid'], subject: 'Two', text: 'x' });
    await s.settle();
    const all = (await outbox(s)).map((e) => e.id).sort();
    expect(all.length).toBeGreaterThanOrEqual(3);

    const first = await s.call('GET', '/v1/events', { query: { limit: '2' } });
    expect(first.status).toBe(200);
    expect(first.body.data.map((e: { id: string }) => e.id)).toEqual(all.slice(0, 2));
    expect(first.body.data[0]).toMatchObject({ type: expect.any(String), created_at: expect.any(String) });
    expect(first.body.next_cursor).toBe(all[1]);
    const rest = await s.call('GET', '/v1/events', {
      query: { after: first.body.next_cursor, limit: '100' },
    });
    expect(rest.body.data.map((e: { id: string }) => e.id)).toEqual(all.slice(2));
    expect(rest.body.next_cursor).toBeNull();
    expect([...first.body.data, ...rest.body.data].map((e: { type: string }) => e.type)).toEqual(
      expect.arrayContaining(['message.delivered', 'message.bounced', 'suppression.created']),
    );

    expect((await s.call('GET', '/v1/events', { query: { after: 'nope' } })).status).toBe(400);
  });

  it('returns an event as soon as it is committed, and one applied late after what was read', async () => {
    const t = Date.now();
    const s = await stack({ clock: () => t, config: { simEventDelaySeconds: 0 } });
    const m = await sesMessage(s, 1, 'Commit order');
    await feed(s, envelope(ses.delivery(m.facts)));
    const ids = async (after?: string) =>
      (await s.call('GET', '/v1/events', { query: after ? { after } : {} })).body.data.map(
        (e: { id: string; type: string }) => e.type,
      );
    // Committed: read at once, no settle window to wait out.
    expect(await ids()).toContain('message.delivered');

    // A provider event that happened long ago but is applied now comes after what was read.
    const read = (await s.call('GET', '/v1/events', {})).body;
    const cursor = read.data.at(-1).id;
    await feed(s, envelope(ses.complaint({ ...m.facts, at: m.facts.at - 3600_000 })));
    const after = await s.call('GET', '/v1/events', { query: { after: cursor } });
    expect(after.body.data.map((e: { type: string }) => e.type)).toContain('message.complained');
    const complained = after.body.data.find((e: { type: string }) => e.type === 'message.complained');
    expect(complained.data.occurred_at).toBe(new Date(m.facts.at - 3600_000).toISOString());
  });
});
