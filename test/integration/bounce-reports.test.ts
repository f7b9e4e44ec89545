import nodemailer from 'nodemailer';
import { afterEach, describe, expect, it } from 'vitest';
import { addressHash } from '../../functions/core/suppressions.ts';
import { getSuppression } from '../../functions/store/suppressions.store.ts';
import { dsnReport, type ReportedRecipient } from '../support/dsn-report.ts';
import { attemptWrites, faults } from '../support/faults.ts';
import { liveRelayStack } from '../support/live-domain.ts';
import { stackPerTest, type TestStack, tenantItems } from '../support/local.ts';
import type { Relay, RelayScript } from '../support/smtp-relay.ts';

/**
 * Bounce reports that come back as mail (docs/guides/receiving.md › Bounces that come back as mail),
 * end to end on DynamoDB Local: the agent sends through its SMTP relay (a local smtp-server), each
 * recipient's copy leaves in its own envelope from its own signed return path, and reports come back
 * in through the local MX, the way SES receiving hands them over. Only a report with the null
 * reverse-path, to a return path pmail signed, about the recipient it names, changes a delivery.
 */
const relays: Relay[] = [];
afterEach(async () => {
  await Promise.all(relays.splice(0).map((r) => r.close()));
});
const stackFor = stackPerTest();
const liveStack = (script: RelayScript = {}) => liveRelayStack(stackFor, relays, { script, mx: true });

const ANN = 'ann@dest.example';
const BOB = 'bob@dest.example';

/** One SMTP transaction into the local MX; `from` '' is MAIL FROM:<>. */
async function intoMx(s: TestStack, raw: string, envelope: { from: string; to: string }): Promise<void> {
  const mx = nodemailer.createTransport({
    host: s.mx!.host,
    port: s.mx!.port,
    secure: false,
    ignoreTLS: true,
  });
  const info = await mx.sendMail({ envelope: { from: envelope.from, to: [envelope.to] }, raw });
  expect(info.response).toMatch(/^250 /);
}

/** A report about the agent's message `m`, into the MX with this envelope. */
async function report(
  s: TestStack,
  m: { rfc_message_id: string },
  envelope: { from: string; to: string },
  reports: ReportedRecipient[],
) {
  const raw = dsnReport({ to: envelope.to, sender: s.agent.address, rfcId: m.rfc_message_id, reports });
  await intoMx(s, raw, envelope);
}

/** The agent's message through the relay, settled; the return path of each recipient's copy. */
async function sent(s: TestStack, relay: Relay, to: string[], key?: string) {
  const res = await s.send({ to, subject: `Order ${key ?? to.join()}`, text: 'Your order.' }, key);
  expect(res.status).toBe(202);
  await s.settle();
  const m = (await s.message(s.agent.id, res.body.id))!;
  // The MAIL FROM of the copy each recipient got.
  const paths = Object.fromEntries(to.map((r) => [r, relay.messages.find((c) => c.to.includes(r))?.from]));
  return { id: res.body.id as string, m, paths };
}

const statuses = async (s: TestStack, id: string) =>
  (await s.message(s.agent.id, id))!.deliveries!.map((d) => [d.address, d.status, d.bounce_type]);
const suppressed = (s: TestStack, address: string) =>
  getSuppression(s.deps.db, s.tenantId, addressHash(s.deps.config.hashKey, address));
const outbox = async (s: TestStack, id: string) =>
  (await tenantItems(s, 'E#'))
    .map((i) => i.event as { type: string; data: Record<string, unknown> })
    .filter((e) => e.data.message_id === id);
/** The reports stored as ordinary inbound mail. */
const keptReports = async (s: TestStack) =>
  (await s.mailbox(s.agent.id, 'inbound')).filter((m) => m.subject === 'Undelivered Mail Returned to Sender');

describe('bounce reports through the local MX', () => {
  it('a genuine report (MAIL FROM:<>, to the recipient’s signed return path, naming it) bounces exactly that recipient and suppresses it; its diagnostic is kept as bounded data', async () => {
    const { s, relay } = await liveStack();
    const { id, m, paths } = await sent(s, relay, [ANN, BOB]);
    // One envelope per recipient, each from its own return path under the agent's address.
    expect(relay.messages.map((c) => c.to)).toEqual([[ANN], [BOB]]);
    expect(paths[ANN]).not.toBe(paths[BOB]);
    const [local, domain] = s.agent.address.split('@');
    for (const p of Object.values(paths)) expect(p).toMatch(new RegExp(`^${local}\\+b[0-9a-z]+@${domain}$`));

    const hostile = `550 5.1.1 <script>alert(1)</script>\u001b[2J\u202e unknown ${'x'.repeat(3000)}`;
    await report(s, m, { from: '', to: paths[BOB]! }, [
      { recipient: BOB, action: 'failed', status: '5.1.1', diagnostic: hostile },
    ]);
    await s.settle();
    expect(await statuses(s, id)).toEqual([
      [ANN, 'submitted', undefined],
      [BOB, 'bounced', 'hard'],
    ]);
    expect(await suppressed(s, BOB)).toMatchObject({ reason: 'hard_bounce', source_message_id: id });
    expect(await suppressed(s, ANN)).toBeUndefined();
    expect(await keptReports(s)).toEqual([]);
    const bounced = (await outbox(s, id)).filter((e) => e.type === 'message.bounced');
    expect(bounced.map((e) => e.data.recipient)).toEqual([BOB]);
    // The remote server's words: one line, no control or direction characters, at most 512 characters.
    const view = await s.call('GET', `/v1/identities/${s.agent.id}/messages/${id}`);
    const response = view.body.deliveries[1].smtp_response as string;
    expect(response.startsWith('smtp; 550 5.1.1 <script>alert(1)</script> [2J unknown xxx')).toBe(true);
    expect(response).toHaveLength(512);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: looking for control characters on purpose
    expect(response).not.toMatch(/[\u0000-\u001f\u007f\u202e]/);
    expect(bounced[0]?.data.smtp_response).toBe(response);
  });

  it('the forged report: an ordinary sender (non-null MAIL FROM) naming the outbound Message-ID and a co-recipient as 5.1.1 changes nothing and suppresses nothing; it is kept as mail flagged dsn', async () => {
    const { s, relay } = await liveStack();
    const { id, m, paths } = await sent(s, relay, [ANN, BOB]);
    // Bob knows the Message-ID (it is in his copy) and his own return path.
    const untouched = [
      [ANN, 'submitted', undefined],
      [BOB, 'submitted', undefined],
    ];
    await report(s, m, { from: BOB, to: s.agent.address }, [
      { recipient: ANN, action: 'failed', status: '5.1.1' },
    ]);
    await s.settle();
    expect(await statuses(s, id)).toEqual(untouched);
    expect(await suppressed(s, ANN)).toBeUndefined();
    // Not even to a genuine return path: a report comes with the null reverse-path.
    await report(s, m, { from: 'mailer-daemon@dest.example', to: paths[BOB]! }, [
      { recipient: BOB, action: 'failed', status: '5.1.1' },
    ]);
    await s.settle();
    expect(await statuses(s, id)).toEqual(untouched);
    expect(await suppressed(s, BOB)).toBeUndefined();
    expect((await outbox(s, id)).filter((e) => e.type === 'message.bounced')).toEqual([]);
    const kept = await keptReports(s);
    expect(kept).toHaveLength(2);
    for (const k of kept) {
      const view = await s.call('GET', `/v1/identities/${s.agent.id}/messages/${k.id}`);
      expect(view.body.flags).toContain('dsn');
      expect(view.body.inbound.dsn_unmatched).toBe(true);
    }
  });

  it('a null-sender report to a return path with a bad signature, or to another recipient’s return path, changes nothing', async () => {
    const { s, relay } = await liveStack();
    const { id, m, paths } = await sent(s, relay, [ANN, BOB]);
    const bobs = paths[BOB]!;
    const ulid = id.slice(4);
    const annFailed: ReportedRecipient[] = [{ recipient: ANN, action: 'failed', status: '5.1.1' }];
    const untouched = [
      [ANN, 'submitted', undefined],
      [BOB, 'submitted', undefined],
    ];
    // Bob's own return path, naming Ann.
    await report(s, m, { from: '', to: bobs }, annFailed);
    await s.settle();
    expect(await statuses(s, id)).toEqual(untouched);
    // Bob's return path with Ann's index (his MAC).
    await report(s, m, { from: '', to: bobs.replace(`b${ulid}1`, `b${ulid}0`) }, annFailed);
    // A made-up MAC, naming Bob.
    const forged = bobs.replace(/[0-9a-z]{12}@/, 'aaaaaaaaaaaa@');
    expect(forged).not.toBe(bobs);
    await report(s, m, { from: '', to: forged }, [{ recipient: BOB, action: 'failed', status: '5.1.1' }]);
    await s.settle();
    expect(await statuses(s, id)).toEqual(untouched);
    expect(await suppressed(s, ANN)).toBeUndefined();
    expect(await suppressed(s, BOB)).toBeUndefined();
    expect(await keptReports(s)).toHaveLength(3);
  });

  it('a report that arrives between the provider call and Record is kept and applied once Record has written', async () => {
    const { s, relay } = await liveStack();
    const held = faults(s.deps.db).pauseBefore(attemptWrites.record);
    const res = await s.send({ to: [ANN], subject: 'Before Record', text: 'x' });
    expect(res.status).toBe(202);
    await held.reached;
    // The relay took the copy; Record's write is held.
    expect(relay.messages).toHaveLength(1);
    const m = (await s.message(s.agent.id, res.body.id))!;
    expect(m.deliveries![0]!.status).toBe('queued');
    await report(s, m, { from: '', to: relay.messages[0]!.from }, [
      { recipient: ANN, action: 'failed', status: '5.1.1' },
    ]);
    await s.eventually(async () => s.metrics.get('dsn_routed') > 0);
    // The delivery-events consumer has met the report several times (retries every 0.3 s here).
    await new Promise((r) => setTimeout(r, 1200));
    expect((await s.message(s.agent.id, res.body.id))!.deliveries![0]!.status).toBe('queued');
    expect(await suppressed(s, ANN)).toBeUndefined();
    held.go();
    await s.settle();
    const after = (await s.message(s.agent.id, res.body.id))!;
    expect(after).toMatchObject({ status: 'bounced', provider: 'smtp' });
    expect(after.deliveries![0]).toMatchObject({
      status: 'bounced',
      bounce_type: 'hard',
      enhanced_code: '5.1.1',
    });
    expect(await suppressed(s, ANN)).toMatchObject({ reason: 'hard_bounce' });
    expect((await outbox(s, res.body.id)).map((e) => e.type)).toContain('message.bounced');
  });

  it('a report about an uncertain message is evidence it was sent: that recipient bounces, the message leaves uncertain with its events, nothing is resent', async () => {
    const { s, relay } = await liveStack({ afterDot: 'drop' });
    const { id, m, paths } = await sent(s, relay, [ANN], 'uncertain-then-bounced');
    expect(m).toMatchObject({ status: 'uncertain', status_reason: 'transport_connection_lost' });
    await report(s, m, { from: '', to: paths[ANN]! }, [
      { recipient: ANN, action: 'failed', status: '5.1.1' },
    ]);
    await s.settle();
    const after = (await s.message(s.agent.id, id))!;
    expect(after.status).toBe('bounced');
    expect(after.deliveries![0]).toMatchObject({ status: 'bounced', bounce_type: 'hard' });
    expect(await suppressed(s, ANN)).toMatchObject({ reason: 'hard_bounce', source_message_id: id });
    const bounced = (await outbox(s, id)).filter((e) => e.type === 'message.bounced');
    expect(bounced.map((e) => e.data.message_status)).toEqual(['bounced']);
    // The same Idempotency-Key again answers the same message; the relay got one copy in all.
    const again = await s.send(
      { to: [ANN], subject: 'Order uncertain-then-bounced', text: 'Your order.' },
      'uncertain-then-bounced',
    );
    expect(again.body.id).toBe(id);
    await s.settle();
    expect(relay.messages).toHaveLength(1);
  });

  it('a delayed report about a partly uncertain message defers that recipient and the message leaves uncertain', async () => {
    // Ann's envelope: the answer to its dot is lost; Bob's is never started, and the retry sends it.
    const { s, relay } = await liveStack({ afterDot: ['drop', 'ok'] });
    const { id, m } = await sent(s, relay, [ANN, BOB]);
    expect(m.status).toBe('uncertain');
    expect(await statuses(s, id)).toEqual([
      [ANN, 'uncertain', undefined],
      [BOB, 'submitted', undefined],
    ]);
    const annPath = relay.messages.find((c) => c.to[0] === ANN)!.from;
    await report(s, m, { from: '', to: annPath }, [{ recipient: ANN, action: 'delayed', status: '4.4.1' }]);
    await s.settle();
    const after = (await s.message(s.agent.id, id))!;
    expect(after.status).toBe('deferred');
    expect(after.deliveries!.map((d) => d.status)).toEqual(['deferred', 'submitted']);
    expect((await outbox(s, id)).filter((e) => e.type === 'message.deferred')).toHaveLength(1);
    expect(await suppressed(s, ANN)).toBeUndefined();
    expect(relay.messages.map((c) => c.to[0])).toEqual([ANN, BOB]);
  });
});
