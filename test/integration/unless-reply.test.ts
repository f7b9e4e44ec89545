import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestNotification } from '../../functions/inbound/ingest.ts';
import { INBOUND_RAW_PREFIX } from '../../functions/inbound/notification.ts';
import { asLambda } from '../../functions/local/aws-calls.ts';
import type { MachineKind, SendInput } from '../../functions/send/dispatcher.ts';
import { claimUnlessAnswered } from '../../functions/send/unless-reply.ts';
import { writeToken } from '../../functions/store/db.ts';
import { hooksOf } from '../../functions/store/dynamodb.ts';
import { getReplyPositions } from '../../functions/store/thread-replies.store.ts';
import { transportTask } from '../../functions/transports/tasks.ts';
import { type Call, faults } from '../support/faults.ts';
import { type TestStack, tenantItems, testStack } from '../support/local.ts';

/**
 * A follow-up that waits for no answer (docs/guides/sending.md › A follow-up unless they reply): a
 * scheduled reply with `unless_reply: true` is canceled (`reply_received`) at its time when a
 * person's answer arrived in its thread after it was accepted, and sent otherwise — decided in the
 * write that claims it, so an answer racing the claim either cancels it or finds it claimed, never
 * both. The answers come in through the ingest, as SES's S3 action hands them over; the follow-ups'
 * executions are held until the test lets them go (their send_at is an hour ahead).
 */
const NO_WAITS = { Backoff: 0, WaitUntilSendAt: 0 };
const held = new Map<string, { name: string; input: SendInput; machine?: MachineKind }>();
let s: TestStack;
beforeAll(async () => {
  s = await testStack({
    // One customer answers dozens of times here: above the stranger rate's default, which would
    // hold its answers (docs/guides/receiving.md › How much a stranger can make an agent read).
    seed: { identity: { receive_policy: { stranger_rate: { per_sender: 1000, total: 1000 } } } },
    waitTimeOverrides: NO_WAITS,
    config: { simEventDelaySeconds: 0 },
    dispatcher: {
      start: async (name, input, machine) => {
        if (name.includes('-s')) held.set(input.message_id, { name, input, machine });
        else await s.machine.start(name, input, machine);
      },
    },
  });
});
afterAll(async () => {
  await s.settle();
  await s.close();
});

const customer = 'delivered@simulator.invalid';
let n = 0;
const fresh = () => `${Date.now().toString(36)}-${++n}`;
const inAnHour = () => new Date(s.deps.clock() + 3600_000).toISOString();

/** The agent writes to the customer; the customer's first answer comes back: a thread to follow up in. */
async function conversation() {
  const subject = `Quote ${fresh()}`;
  const sent = await s.send({ to: [customer], subject, text: 'Here is your quote.' });
  expect(sent.status).toBe(202);
  await s.settle();
  const first = await answer(sent.body.rfc_message_id, subject, 'Thanks, let me think about it.');
  return { subject, sent: sent.body, first };
}

/** The customer's answer to `inReplyTo`, through the ingest; its stored message. */
async function answer(inReplyTo: string, subject: string, text: string, extra: string[] = []) {
  const raw = [
    `From: Customer <${customer}>`,
    `To: ${s.agent.address}`,
    `Subject: Re: ${subject}`,
    `Message-ID: <${fresh()}@simulator.invalid>`,
    `In-Reply-To: ${inReplyTo}`,
    ...extra,
    'Content-Type: text/plain; charset=utf-8',
    '',
    text,
    '',
  ].join('\r\n');
  const sesId = `ses-ur-${s.deps.newId()}`;
  const key = `${INBOUND_RAW_PREFIX}${sesId}`;
  await s.deps.blobs.put(key, new TextEncoder().encode(raw), {});
  const at = new Date(s.deps.clock()).toISOString();
  const report = await ingestNotification(s.deps, {
    notificationType: 'Received',
    mail: { timestamp: at, source: customer, messageId: sesId, destination: [s.agent.address] },
    receipt: {
      timestamp: at,
      recipients: [s.agent.address],
      action: { type: 'S3', bucketName: 'local', objectKey: key },
    },
  });
  expect(report.stored).toHaveLength(1);
  return (await s.message(s.agent.id, report.stored[0]))!;
}

/** A scheduled reply that waits for no answer; its execution held. */
async function followUp(to: { id: string }) {
  const res = await s.call('POST', `/v1/identities/${s.agent.id}/messages/${to.id}/reply`, {
    body: { text: 'Just checking in: any thoughts on the quote?', send_at: inAnHour(), unless_reply: true },
    headers: { 'idempotency-key': `fu-${fresh()}` },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  expect(res.body).toMatchObject({ status: 'queued', unless_reply: true });
  return res.body as { id: string; thread_id: string };
}

/** Let the follow-up's time come: its held execution runs (its Wait takes no time here). */
async function timeComes(messageId: string) {
  const h = held.get(messageId)!;
  held.delete(messageId);
  await s.machine.start(h.name, h.input, h.machine);
  await s.settle();
  return (await s.call('GET', `/v1/identities/${s.agent.id}/messages/${messageId}`)).body;
}

const canceledEvents = async (messageId: string) =>
  (await tenantItems(s, 'E#'))
    .map((i) => i.event)
    .filter((e) => e.type === 'message.canceled' && e.data.message_id === messageId);

describe('unless_reply: a follow-up that waits for no answer', () => {
  it('is canceled with reply_received when the customer answers before its time; the answer and the event say so', async () => {
    const c = await conversation();
    const f = await followUp(c.first);
    const second = await answer(c.sent.rfc_message_id, c.subject, 'Yes, go ahead with the order.');
    expect(second.thread_id).toBe(f.thread_id);
    const after = await timeComes(f.id);
    expect(after).toMatchObject({ status: 'canceled', status_reason: 'reply_received', unless_reply: true });
    expect(after.provider_message_id).toBeNull();
    expect((await canceledEvents(f.id)).map((e) => e.data.reason)).toEqual(['reply_received']);
  });

  it('is sent when no answer came after it was accepted (the answer it replies to came before)', async () => {
    const c = await conversation();
    const f = await followUp(c.first);
    const after = await timeComes(f.id);
    expect(after.status).toBe('delivered');
    expect(await canceledEvents(f.id)).toEqual([]);
  });

  it('is sent when only an automatic answer came (an out-of-office counts for nothing)', async () => {
    const c = await conversation();
    const f = await followUp(c.first);
    const ooo = await answer(c.sent.rfc_message_id, c.subject, 'I am out of the office until Monday.', [
      'Auto-Submitted: auto-replied',
    ]);
    expect(ooo.thread_id).toBe(f.thread_id);
    expect(ooo.flags).toContain('auto_reply');
    expect((await timeComes(f.id)).status).toBe('delivered');
  });

  it('counts no held answer; released before its time, the answer cancels it', async () => {
    const c = await conversation();
    const policy = async (hold: string) => {
      const res = await s.call('PATCH', `/v1/identities/${s.agent.id}`, {
        body: { receive_policy: { hold, stranger_rate: { per_sender: 1000, total: 1000 } } },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    };
    await policy('unauthenticated');
    try {
      // Held (nothing proves who sent it), an answer counts for nothing: the follow-up goes.
      const kept = await followUp(c.first);
      const unproven = await answer(
        c.sent.rfc_message_id,
        c.subject,
        'Cancel the follow-up, says a stranger.',
      );
      expect(unproven.held).toMatchObject({ reason: 'unauthenticated' });
      expect((await timeComes(kept.id)).status).toBe('delivered');
      expect(await canceledEvents(kept.id)).toEqual([]);

      // A person releases the next one before the follow-up's time: it is an answer like any other.
      const second = await followUp(c.first);
      const vouched = await answer(c.sent.rfc_message_id, c.subject, 'Yes, go ahead with the order.');
      const release = await s.call('POST', `/v1/identities/${s.agent.id}/messages/${vouched.id}/release`);
      expect(release.status, JSON.stringify(release.body)).toBe(200);
      expect(await timeComes(second.id)).toMatchObject({
        status: 'canceled',
        status_reason: 'reply_received',
      });
    } finally {
      await policy('none');
    }
  });

  it('is refused without send_at, and on a send outside a thread', async () => {
    const c = await conversation();
    const now = await s.call('POST', `/v1/identities/${s.agent.id}/messages/${c.first.id}/reply`, {
      body: { text: 'x', unless_reply: true },
      headers: { 'idempotency-key': `fu-${fresh()}` },
    });
    expect(now.status).toBe(400);
    expect(now.body.error.details.errors).toEqual([
      { path: 'unless_reply', message: expect.stringMatching(/send_at/) },
    ]);
    const outside = await s.send({
      to: [customer],
      subject: 'x',
      text: 'x',
      send_at: inAnHour(),
      unless_reply: true,
    });
    expect(outside.status).toBe(400);
    expect(outside.body.error.details.errors[0]).toMatchObject({
      path: 'unless_reply',
      message: expect.stringMatching(/thread_id/),
    });
  });
});

/** The claim's transaction of a follow-up (the claim with the thread's guard). */
const guardedClaim = (c: Call) =>
  c.command === 'TransactWriteItems' && JSON.stringify(c.input).includes('#claim = :claim');
/** The ingest's transaction of a message (its thread's summary in it). */
const ingestCommit = (c: Call) =>
  c.command === 'TransactWriteItems' && JSON.stringify(c.input).includes('inbound_dedupe');

/** The claim as the simulator's transport task runs it (its AWS calls recorded as that Lambda's). */
const claimAsLambda = <T>(fn: () => T) =>
  asLambda({ service: 'send-attempt', part: transportTask('simulator').state }, fn);

describe('send/unless-reply.ts › claimUnlessAnswered: an answer racing the claim', () => {
  const claimOf = async (f: { id: string }) => {
    const m = (await s.message(s.agent.id, f.id))!;
    return claimAsLambda(() =>
      claimUnlessAnswered(
        s.deps,
        { tenant_id: s.tenantId, identity_id: s.agent.id, message_id: f.id },
        { token: `t-${fresh()}`, by: writeToken(), at: s.deps.clock() },
        { thread_id: m.thread_id, after: m.pos! },
      ),
    );
  };

  it('an answer landing between the thread read and the claim fails the guard: canceled, nothing claimed', async () => {
    const c = await conversation();
    const f = await followUp(c.first);
    const gate = faults(s.deps.db).pauseBefore(guardedClaim);
    const claiming = claimOf(f);
    await gate.reached;
    await answer(c.sent.rfc_message_id, c.subject, 'Answered at the last moment.');
    gate.go();
    expect(await claiming).toEqual({ written: false, answered: true });
    const m = (await s.message(s.agent.id, f.id))!;
    expect([m.status, m.status_reason, m.claim]).toEqual(['canceled', 'reply_received', undefined]);
  });

  it('an answer committing after the claim finds it claimed: sent, not canceled', async () => {
    const c = await conversation();
    const f = await followUp(c.first);
    const gate = faults(s.deps.db).pauseBefore(ingestCommit);
    const answering = answer(c.sent.rfc_message_id, c.subject, 'Answered a moment too late.');
    await gate.reached;
    const claimed = await claimOf(f);
    gate.go();
    await answering;
    expect(claimed.written).toBe(true);
    const m = (await s.message(s.agent.id, f.id))!;
    expect(m.status).toBe('queued');
    expect(m.claim?.sending).toBe(true);
    expect(await canceledEvents(f.id)).toEqual([]);
  });

  it('races an answer against the claim many times: each follow-up is claimed or canceled, never both', {
    timeout: 180_000,
  }, async () => {
    const RUNS = 30;
    let guardRefusals = 0;
    hooksOf(s.deps.db).aroundCall(async (operation, input, next) => {
      const out = next();
      if (operation === 'TransactWriteItems' && JSON.stringify(input).includes('#claim = :claim'))
        out.catch(() => guardRefusals++);
      return out;
    });
    const outcomes: { claimed: boolean; canceled: boolean; answerAfter: boolean }[] = [];
    for (let run = 0; run < RUNS; run++) {
      const c = await conversation();
      const f = await followUp(c.first);
      // The ingest's work before its commit (the raw copy, the parse, its reads) takes longer than
      // the claim's: the claim starts from 0 to 69 ms after the answer, so either may commit first.
      const jitter = (run * 3) % 70;
      const [, claimed] = await Promise.all([
        answer(c.sent.rfc_message_id, c.subject, `Race ${run}`),
        new Promise((r) => setTimeout(r, jitter)).then(() => claimOf(f)),
      ]);
      const m = (await s.message(s.agent.id, f.id))!;
      const answers = await getReplyPositions(s.deps.db, s.agent.id, m.thread_id);
      const canceled = m.status === 'canceled';
      const isClaimed = m.claim?.sending === true;
      outcomes.push({ claimed: isClaimed, canceled, answerAfter: answers.some((p) => p > m.pos!) });
      // One decision, and the one the claim reported.
      expect(isClaimed !== canceled, `run ${run}: ${m.status} ${JSON.stringify(m.claim)}`).toBe(true);
      expect(claimed.written).toBe(isClaimed);
      if (canceled)
        expect((await canceledEvents(f.id)).map((e) => e.data.reason)).toEqual(['reply_received']);
    }
    const tally = {
      runs: RUNS,
      canceled: outcomes.filter((o) => o.canceled).length,
      claimed: outcomes.filter((o) => o.claimed).length,
      both: outcomes.filter((o) => o.claimed && o.canceled).length,
      guardRefusals,
    };
    console.info(`unless_reply race: ${JSON.stringify(tally)}`);
    expect(tally.both).toBe(0);
    // Every run's answer is numbered after its follow-up, so a cancel always had its reason.
    expect(outcomes.every((o) => o.answerAfter)).toBe(true);
  });
});

describe('thread-replies.store.ts › noNewReplies: the guarded claim whose answer was lost', () => {
  it('in the SDK retry: the transaction resent by its token is answered as the first send, one claim, no cancel', async () => {
    const c = await conversation();
    const f = await followUp(c.first);
    const m = (await s.message(s.agent.id, f.id))!;
    const fx = faults(s.deps.db);
    const rule = fx.loseAnswerInRetry(guardedClaim, {
      // biome-ignore lint/suspicious/noThenProperty: the fault helper's option (test/support/faults.ts)
      then: () => answer(c.sent.rfc_message_id, c.subject, 'An answer after the claim landed.'),
    });
    const claimed = await claimAsLambda(() =>
      claimUnlessAnswered(
        s.deps,
        { tenant_id: s.tenantId, identity_id: s.agent.id, message_id: f.id },
        { token: 'lost-token', by: writeToken(), at: s.deps.clock() },
        { thread_id: m.thread_id, after: m.pos! },
      ),
    );
    expect(fx.sent(rule)).toBe(2);
    expect(claimed.written).toBe(true);
    const after = (await s.message(s.agent.id, f.id))!;
    expect(after.status).toBe('queued');
    expect(after.claim?.token).toBe('lost-token');
    expect(await canceledEvents(f.id)).toEqual([]);
  });
});
