import { simpleParser } from 'mailparser';
import { beforeAll, describe, expect, it } from 'vitest';
import { normaliseRecipient } from '../../functions/core/inbound.ts';
import { returnPathFor } from '../../functions/core/return-path.ts';
import { addressHash } from '../../functions/core/suppressions.ts';
import { routeDsn } from '../../functions/inbound/dsn.ts';
import { ingestNotification } from '../../functions/inbound/ingest.ts';
import { INBOUND_RAW_PREFIX, type SesReceivedNotification } from '../../functions/inbound/notification.ts';
import { portsFor } from '../../functions/lambda-ports.ts';
import { mutateMessage } from '../../functions/store/messages.store.ts';
import { getSuppression } from '../../functions/store/suppressions.store.ts';
import { dsnReport, type ReportedRecipient } from '../support/dsn-report.ts';
import { stackPerTest, type TestStack, tenantItems } from '../support/local.ts';

const stack = stackPerTest();

let n = 0;
/**
 * A message as an SMTP relay send leaves it: submitted, every delivery submitted, the relay's
 * provider id (core/smtp-outcome.ts › smtpProviderMessageId). The recipients are simulator
 * `timeout` addresses, which make no simulator events of their own.
 */
async function relaySent(s: TestStack, count = 1) {
  const to = Array.from({ length: count }, () => `timeout+dsn${++n}@simulator.invalid`);
  const res = await s.send({ to, subject: `Order ${n}`, text: 'body' });
  expect(res.status).toBe(202);
  await s.settle();
  const sent = await mutateMessage(s.deps.db, s.agent.id, res.body.id, (m) => ({
    next: {
      ...m,
      status: 'submitted',
      status_reason: undefined,
      provider: 'smtp',
      provider_message_id: `smtp:relay.example:${m.rfc_message_id.replace(/^<|>$/g, '')}`,
      deliveries: m.deliveries!.map((d) => ({ ...d, status: 'submitted' as const })),
    },
    result: undefined,
  }));
  if (!sent.found) throw new Error('the sent message is missing');
  // Each recipient's signed return path, as Claim mints it for the relay (core/return-path.ts).
  const paths = to.map(
    (address, i) =>
      returnPathFor(
        s.deps.config.hashKey,
        { identityId: s.agent.id, messageId: res.body.id, from: sent.message.from.address },
        i,
        address,
      )!,
  );
  return { id: res.body.id as string, rfcId: sent.message.rfc_message_id, to, paths };
}

/** A report about `rfcId` of the agent's message (test/support/dsn-report.ts). */
const dsnFor = (s: TestStack, rfcId: string, reports: ReportedRecipient[], reportId?: string) =>
  dsnReport({
    to: s.agent.address,
    sender: s.agent.address,
    rfcId,
    reports,
    ...(reportId ? { reportId } : {}),
  });

/**
 * The way in every received message takes: the raw object where SES's S3 action puts it, then
 * ingest; from the null sender to `to` (a recipient's return path) unless told otherwise.
 */
async function receive(s: TestStack, raw: string, to: string, sesId = `ses-${++n}`) {
  const key = `${INBOUND_RAW_PREFIX}${sesId}`;
  await s.deps.blobs.put(key, new TextEncoder().encode(raw), {});
  const at = new Date(s.deps.clock()).toISOString();
  const notification: SesReceivedNotification = {
    notificationType: 'Received',
    mail: { timestamp: at, source: '', messageId: sesId, destination: [to] },
    receipt: {
      timestamp: at,
      recipients: [to],
      spfVerdict: { status: 'PASS' },
      dkimVerdict: { status: 'PASS' },
      spamVerdict: { status: 'PASS' },
      virusVerdict: { status: 'PASS' },
      dmarcVerdict: { status: 'PASS' },
      action: { type: 'S3', bucketName: 'local', objectKey: key },
    },
  };
  const report = await ingestNotification(portsFor(s.deps, 'inbound-ingest'), notification);
  await s.settle();
  return report;
}

const outboxOf = async (s: TestStack, messageId: string) =>
  (await tenantItems(s, 'E#'))
    .map((i) => i.event as { type: string; data: Record<string, unknown> })
    .filter((e) => e.data.message_id === messageId);

const suppressed = async (s: TestStack, address: string) =>
  getSuppression(s.deps.db, s.tenantId, addressHash(s.deps.config.hashKey, address));

describe('DSNs through ingest', () => {
  let s: TestStack;
  beforeAll(async () => {
    s = await stack();
  });

  it('a 5.x.x report of a relay-sent message bounces that recipient hard and suppresses it, not in the inbox', async () => {
    const m = await relaySent(s, 2);
    const inboxBefore = (await s.mailbox(s.agent.id, 'inbound')).length;
    const report = await receive(
      s,
      dsnFor(s, m.rfcId, [
        { recipient: m.to[0], action: 'failed', status: '5.1.1', diagnostic: '550 5.1.1 unknown' },
      ]),
      m.paths[0],
    );
    expect(report).toMatchObject({ stored: [], dsn_routed: 1 });
    const after = (await s.message(s.agent.id, m.id))!;
    expect(after.deliveries!.map((d) => [d.address, d.status, d.bounce_type])).toEqual([
      [m.to[0], 'bounced', 'hard'],
      [m.to[1], 'submitted', undefined],
    ]);
    expect(after.deliveries![0]).toMatchObject({ smtp_code: '550', enhanced_code: '5.1.1' });
    expect(await suppressed(s, m.to[0])).toMatchObject({ reason: 'hard_bounce', source_message_id: m.id });
    expect(await suppressed(s, m.to[1])).toBeUndefined();
    expect((await s.mailbox(s.agent.id, 'inbound')).length).toBe(inboxBefore);
    expect(s.metrics.get('dsn_routed')).toBeGreaterThan(0);
  });

  it('a 4.x.x report defers (delayed) or soft-bounces (failed), suppressing nothing', async () => {
    const m = await relaySent(s, 2);
    await receive(
      s,
      dsnFor(s, m.rfcId, [{ recipient: m.to[0], action: 'delayed', status: '4.4.1' }]),
      m.paths[0],
    );
    await receive(
      s,
      dsnFor(s, m.rfcId, [
        { recipient: m.to[1], action: 'failed', status: '4.4.7', diagnostic: '421 4.4.7 expired' },
      ]),
      m.paths[1],
    );
    const after = (await s.message(s.agent.id, m.id))!;
    expect(after.deliveries!.map((d) => [d.status, d.bounce_type])).toEqual([
      ['deferred', undefined],
      ['bounced', 'soft'],
    ]);
    expect(await suppressed(s, m.to[0])).toBeUndefined();
    expect(await suppressed(s, m.to[1])).toBeUndefined();
  });

  it('a report that proves nothing (to the plain address, of no message) is counted and kept as inbound mail, flagged dsn', async () => {
    const unmatchedBefore = s.metrics.get('dsn_unmatched');
    const report = await receive(
      s,
      dsnFor(s, '<01jf0000000000000000000000@elsewhere.example>', [
        { recipient: 'someone@elsewhere.example', action: 'failed', status: '5.1.1' },
      ]),
      s.agent.address,
    );
    expect(report.dsn_routed).toBe(0);
    expect(report.stored).toHaveLength(1);
    expect(s.metrics.get('dsn_unmatched')).toBe(unmatchedBefore + 1);
    const kept = (await s.message(s.agent.id, report.stored[0]))!;
    expect(kept).toMatchObject({
      direction: 'inbound',
      subject: 'Undelivered Mail Returned to Sender',
      inbound: { dsn_unmatched: true },
    });
    expect(kept.flags).toContain('dsn');
  });

  it('the same report received twice makes one event', async () => {
    const m = await relaySent(s);
    const raw = dsnFor(s, m.rfcId, [{ recipient: m.to[0], action: 'failed', status: '5.1.1' }]);
    await receive(s, raw, m.paths[0], `ses-twice-${n}`);
    // Another receipt of the same bytes (SES's retry or a second MX); and ingest's routing once more.
    await receive(s, raw, m.paths[0], `ses-twice-again-${n}`);
    await routeDsn(s.deps, {
      identityId: s.agent.id,
      tenantId: s.tenantId,
      parsed: await simpleParser(raw),
      receivedAt: s.deps.clock(),
      envelopeFrom: '',
      detail: normaliseRecipient(m.paths[0])?.detail,
    });
    await s.settle();
    const after = (await s.message(s.agent.id, m.id))!;
    expect(after.deliveries![0].status).toBe('bounced');
    expect(after.deliveries![0].event_ids).toHaveLength(1);
    expect((await outboxOf(s, m.id)).filter((e) => e.type === 'message.bounced')).toHaveLength(1);
  });
});

describe('DSN routing (functions/inbound/dsn.ts › routeDsn)', () => {
  let s: TestStack;
  beforeAll(async () => {
    s = await stack();
  });
  const route = async (raw: string, returnPath: string, identityId = s.agent.id) => {
    const out = await routeDsn(s.deps, {
      identityId,
      tenantId: s.tenantId,
      parsed: await simpleParser(raw),
      receivedAt: s.deps.clock(),
      envelopeFrom: '',
      detail: normaliseRecipient(returnPath)?.detail,
    });
    await s.settle();
    return out;
  };

  it('routes a report of the identity’s own message and only of it', async () => {
    const m = await relaySent(s);
    const raw = dsnFor(s, m.rfcId, [{ recipient: m.to[0], action: 'failed', status: '5.2.1' }]);
    // Through another identity of the same tenant the return path's signature does not verify.
    expect(await route(raw, m.paths[0], s.peer.id)).toBe('kept');
    expect((await s.message(s.agent.id, m.id))!.deliveries![0].status).toBe('submitted');
    expect(await route(raw, m.paths[0])).toBe('routed');
    expect((await s.message(s.agent.id, m.id))!.deliveries![0]).toMatchObject({
      status: 'bounced',
      bounce_type: 'hard',
    });
  });

  it('tells a message that is no report, and a report it cannot read', async () => {
    const plain = `From: a@outside.example\r\nTo: ${s.agent.address}\r\nSubject: hi\r\n\r\nAction: failed\r\n`;
    expect(await route(plain, s.agent.address)).toBe('not_dsn');
    const m = await relaySent(s);
    const unreadable = dsnFor(s, m.rfcId, []).replace('Reporting-MTA: dns; mx.example.net', 'no fields here');
    expect(await route(unreadable, m.paths[0])).toBe('kept');
    expect((await s.message(s.agent.id, m.id))!.deliveries![0].status).toBe('submitted');
  });
});
