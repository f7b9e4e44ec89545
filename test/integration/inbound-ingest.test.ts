import { beforeAll, describe, expect, it } from 'vitest';
import type { MessageRecord } from '../../functions/core/model.ts';
import { threadTokenReplyTo } from '../../functions/core/submit-pipeline.ts';
import { ingestBatch, ingestNotification } from '../../functions/inbound/ingest.ts';
import { INBOUND_RAW_PREFIX, type SesReceivedNotification } from '../../functions/inbound/notification.ts';
import { type DepsFor, portsFor } from '../../functions/lambda-ports.ts';
import type { MemoryMetrics } from '../../functions/metrics.ts';
import { getContacts } from '../../functions/store/contacts.store.ts';
import { findOutboundByRfcId } from '../../functions/store/inbound.store.ts';
import { type Call, faults } from '../support/faults.ts';
import { listEvents } from '../support/feeds.ts';
import { submittedVia, type TestStack, testStack } from '../support/local.ts';

/**
 * Ingest through `ingestNotification` on the local stack, as SES receiving (and the local MX) hand
 * it a message: the raw bytes in the blob store under INBOUND_RAW_PREFIX first, then the notification.
 */
let s: TestStack;
let deps: DepsFor<'inbound-ingest'>;
beforeAll(async () => {
  s = await testStack();
  deps = portsFor(s.deps, 'inbound-ingest');
});

let seq = 0;
const CUSTOMER = 'customer@example.org';

function mime(
  opts: {
    subject?: string;
    messageId?: string;
    headers?: string[];
    body?: string;
    to?: string;
    from?: string;
  } = {},
) {
  const id = opts.messageId ?? `<m${++seq}.${Math.random().toString(36).slice(2)}@example.org>`;
  return [
    `From: Customer <${opts.from ?? CUSTOMER}>`,
    `To: ${opts.to ?? s.agent.address}`,
    `Subject: ${opts.subject ?? 'Hello'}`,
    `Message-ID: ${id}`,
    'Date: Thu, 03 Dec 2026 10:00:00 +0000',
    ...(opts.headers ?? []),
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    '',
    opts.body ?? 'Thanks, that works for me.',
    '',
  ].join('\r\n');
}

/** Store the raw message as the receipt's S3 action would, and ingest its notification. */
async function deliver(
  raw: string,
  recipients: string[],
  opts: { sesId?: string; at?: string; virus?: 'PASS' | 'FAIL'; source?: string } = {},
) {
  const n = notification(raw.length, recipients, opts);
  await s.deps.blobs.put(n.receipt.action.objectKey, new TextEncoder().encode(raw), {});
  return { n, report: await ingestNotification(deps, n) };
}

function notification(
  _size: number,
  recipients: string[],
  opts: { sesId?: string; at?: string; virus?: 'PASS' | 'FAIL'; source?: string },
): SesReceivedNotification {
  const sesId = opts.sesId ?? `ses${++seq}${Math.random().toString(36).slice(2)}`;
  const at = opts.at ?? new Date().toISOString();
  return {
    notificationType: 'Received',
    mail: { timestamp: at, source: opts.source ?? CUSTOMER, messageId: sesId, destination: recipients },
    receipt: {
      timestamp: at,
      recipients,
      spfVerdict: { status: 'PASS' },
      dkimVerdict: { status: 'PASS' },
      dmarcVerdict: { status: 'PASS' },
      spamVerdict: { status: 'PASS' },
      virusVerdict: { status: opts.virus ?? 'PASS' },
      action: { type: 'S3', bucketName: 'local', objectKey: `${INBOUND_RAW_PREFIX}${sesId}` },
    },
  };
}

const inbox = async (identityId: string, subject: string) =>
  (await s.mailbox(identityId, 'inbound')).filter((m) => m.subject === subject);
const receivedEvents = async (messageId: string) =>
  (await listEvents(s.deps.db, s.tenantId, { limit: 500 })).data.filter(
    (e) => e.type === 'message.received' && e.data.message_id === messageId,
  );

/** An outbound message of the agent, sent to the simulator (its rfc_message_id is pmail's own). */
async function outbound(subject: string): Promise<MessageRecord> {
  const res = await s.send({ to: ['delivered@simulator.invalid'], subject, text: 'first' });
  expect(res.status).toBe(202);
  return (await s.message(s.agent.id, res.body.id))!;
}

describe('ingest, exactly once', () => {
  it('stores a message once when the same notification comes twice, with message.received and one inbound_count', async () => {
    const raw = mime({ subject: 'twice', body: 'Twice   the same\nnotification.' });
    const { n, report } = await deliver(raw, [s.agent.address]);
    expect(report).toEqual({
      stored: [expect.stringMatching(/^msg_/)],
      duplicates: 0,
      unknown_recipients: 0,
      dsn_routed: 0,
      held_dropped: 0,
    });
    const again = await ingestNotification(deps, n);
    expect(again).toEqual({
      stored: [],
      duplicates: 1,
      unknown_recipients: 0,
      dsn_routed: 0,
      held_dropped: 0,
    });

    const [m, ...rest] = await inbox(s.agent.id, 'twice');
    expect(rest).toHaveLength(0);
    expect(m).toMatchObject({
      id: report.stored[0],
      direction: 'inbound',
      status: 'received',
      from: { address: CUSTOMER, name: 'Customer' },
      thread_id: `thr_${m.id.slice(4)}`,
      inbound: {
        parse: 'parsed',
        threaded_by: 'new',
        routed_to: s.agent.address,
        text: expect.stringContaining('Twice'),
        verdicts: { spf: 'PASS', dkim: 'PASS', dmarc: 'PASS', spam: 'PASS', virus: 'PASS' },
      },
    });
    // The raw copy the message's raw route serves.
    expect(new TextDecoder().decode((await s.deps.blobs.get(m.raw_key))!.body)).toBe(raw);
    const events = await receivedEvents(m.id);
    expect(events).toHaveLength(1);
    expect(events[0].data).toMatchObject({
      identity_id: s.agent.id,
      thread_id: m.thread_id,
      from: { address: CUSTOMER },
      subject: 'twice',
      snippet: 'Twice the same notification.',
    });
    expect(JSON.stringify(events[0].data)).not.toContain('"text"');
    const contacts = await getContacts(s.deps.db, s.agent.id, [CUSTOMER]);
    expect(contacts.get(CUSTOMER)?.inbound_count).toBe(1);
  });

  it('stores it once when the same bytes come again with another SES messageId and more Received headers', async () => {
    const raw = mime({ subject: 'resent bytes' });
    const first = await deliver(raw, [s.agent.address], { at: '2026-12-03T10:00:01.000Z' });
    const traced = [
      'Return-Path: <customer@example.org>',
      'Received: from mx2.example.net by inbound-smtp.eu-west-1.amazonaws.com with SMTP id abc',
      '\tfor <agent>; Thu, 03 Dec 2026 10:05:00 +0000',
      'X-SES-Spam-Verdict: PASS',
      'Authentication-Results: amazonses.com; spf=pass',
      raw,
    ].join('\r\n');
    const second = await deliver(traced, [s.agent.address], { at: '2026-12-03T10:05:00.000Z' });
    expect(first.report.stored).toHaveLength(1);
    expect(second.report).toMatchObject({ stored: [], duplicates: 1 });
    expect(await inbox(s.agent.id, 'resent bytes')).toHaveLength(1);
  });

  it('stores one message per envelope recipient; the same recipient with a +detail is the same mailbox', async () => {
    const raw = mime({ subject: 'two recipients', to: `${s.agent.address}, ${s.peer.address}` });
    const [local, domain] = s.agent.address.split('@');
    const { report } = await deliver(raw, [
      s.agent.address,
      s.peer.address,
      `${local}+news@${domain.toUpperCase()}`,
    ]);
    expect(report.stored).toHaveLength(2);
    expect(await inbox(s.agent.id, 'two recipients')).toHaveLength(1);
    const [peerCopy] = await inbox(s.peer.id, 'two recipients');
    expect(peerCopy).toMatchObject({ identity_id: s.peer.id, bcc: [] });
  });

  it('counts and drops a recipient that is no identity address', async () => {
    const [, domain] = s.agent.address.split('@');
    const metrics = s.deps.metrics as MemoryMetrics;
    const before = metrics.get('inbound_unknown_recipients');
    const { report } = await deliver(mime({ subject: 'nobody' }), [`nobody-here@${domain}`]);
    expect(report).toEqual({
      stored: [],
      duplicates: 0,
      unknown_recipients: 1,
      dsn_routed: 0,
      held_dropped: 0,
    });
    expect(metrics.get('inbound_unknown_recipients')).toBe(before + 1);
  });

  it('keeps a message over the part cap raw, headers only, flagged oversize', async () => {
    const parts = Array.from(
      { length: 600 },
      (_, i) => `--b\r\nContent-Type: text/plain\r\n\r\npart ${i}\r\n`,
    );
    const raw = mime({ subject: 'many parts' }).replace(
      'Content-Type: text/plain; charset=utf-8\r\n\r\nThanks, that works for me.\r\n',
      `Content-Type: multipart/mixed; boundary="b"\r\n\r\n${parts.join('')}--b--\r\n`,
    );
    const { report } = await deliver(raw, [s.agent.address]);
    const m = (await s.message(s.agent.id, report.stored[0]))!;
    expect(m.flags).toEqual(expect.arrayContaining(['oversize', 'unparsed']));
    expect(m.inbound).toMatchObject({ parse: 'oversize', cap: 'parts', attachments: [] });
    expect(m.inbound?.text).toBeUndefined();
    expect(m.subject).toBe('many parts');
    expect((await s.deps.blobs.get(m.raw_key))?.body.byteLength).toBe(raw.length);
  });

  it('keeps headers only of a message SES found a virus in, flagged quarantined, its sender not counted', async () => {
    const sender = 'infected@example.net';
    const raw = mime({ subject: 'virus' }).replace(`<${CUSTOMER}>`, `<${sender}>`);
    const { report } = await deliver(raw, [s.agent.address], { virus: 'FAIL' });
    const m = (await s.message(s.agent.id, report.stored[0]))!;
    expect(m.flags).toContain('quarantined');
    expect(m.inbound).toMatchObject({ parse: 'quarantined', verdicts: { virus: 'FAIL' } });
    expect(m.inbound?.text).toBeUndefined();
    expect((await getContacts(s.deps.db, s.agent.id, [sender])).get(sender)).toBeUndefined();
  });

  it('flags automatic mail auto_reply (and automated, which the auto-reply rule reads)', async () => {
    const { report } = await deliver(mime({ subject: 'away', headers: ['Auto-Submitted: auto-replied'] }), [
      s.agent.address,
    ]);
    const m = (await s.message(s.agent.id, report.stored[0]))!;
    expect(m.flags).toEqual(expect.arrayContaining(['auto_reply', 'automated']));
    expect(m.inbound?.auto).toBe('auto_submitted');
  });

  it('acks a batch record that is stored and fails one whose raw message is missing', async () => {
    const good = notification(0, [s.agent.address], {});
    await s.deps.blobs.put(
      good.receipt.action.objectKey,
      new TextEncoder().encode(mime({ subject: 'batch' })),
      {},
    );
    const missing = notification(0, [s.agent.address], {});
    const out = await ingestBatch(deps, {
      Records: [
        { messageId: 'r1', body: JSON.stringify(good) },
        { messageId: 'r2', body: JSON.stringify(missing) },
      ] as never,
    });
    expect(out.batchItemFailures).toEqual([{ itemIdentifier: 'r2' }]);
    expect(await inbox(s.agent.id, 'batch')).toHaveLength(1);
  });
});

describe('threading', () => {
  it('threads by In-Reply-To onto the outbound message, and a reply through the API answers it', async () => {
    const sent = await outbound('quote');
    expect(await findOutboundByRfcId(s.deps.db, s.agent.id, sent.rfc_message_id)).toMatchObject({
      id: sent.id,
    });
    expect(await findOutboundByRfcId(s.deps.db, s.peer.id, sent.rfc_message_id)).toBeUndefined();
    // From an address of this deployment: a test tenant replies only to those.
    const raw = mime({
      subject: 'Re: quote',
      from: s.peer.address,
      headers: [`In-Reply-To: ${sent.rfc_message_id}`, `References: ${sent.rfc_message_id}`],
    });
    const { report } = await deliver(raw, [s.agent.address]);
    const m = (await s.message(s.agent.id, report.stored[0]))!;
    expect(m.thread_id).toBe(sent.thread_id);
    expect(m.inbound?.threaded_by).toBe('in_reply_to');

    const reply = await s.call('POST', `/v1/identities/${s.agent.id}/messages/${m.id}/reply`, {
      body: { text: 'Booked.' },
      headers: { 'idempotency-key': `reply-${m.id}` },
    });
    expect(reply.status).toBe(202);
    const answer = (await s.message(s.agent.id, reply.body.id))!;
    expect(answer).toMatchObject({
      thread_id: sent.thread_id,
      in_reply_to: m.rfc_message_id,
      subject: 'Re: quote',
      to: [{ address: s.peer.address }],
      from: { address: s.agent.address },
    });
  });

  it("threads by SES's Message-ID of an SES send (the provider id index), for its own identity only", async () => {
    const sent = await submittedVia(s, 'ses', {
      to: ['timeout@simulator.invalid'],
      subject: 'via ses',
      providerMessageId: (u) => `0100018c-in-${u}`,
    });
    const sesRfcId = `<${sent.providerMessageId}@eu-west-1.amazonses.com>`;
    expect(await findOutboundByRfcId(s.deps.db, s.agent.id, sesRfcId)).toMatchObject({ id: sent.id });
    expect(await findOutboundByRfcId(s.deps.db, s.peer.id, sesRfcId)).toBeUndefined();
    const { report } = await deliver(
      mime({ subject: 'Re: via ses', headers: [`In-Reply-To: ${sesRfcId}`] }),
      [s.agent.address],
    );
    const m = (await s.message(s.agent.id, report.stored[0]))!;
    expect(m.thread_id).toBe((await s.message(s.agent.id, sent.id))!.thread_id);
  });

  it('threads by a verified thread token; a forged or stale token threads nothing', async () => {
    const sent = await outbound('token');
    const token = threadTokenReplyTo(
      s.deps.config.hashKey,
      { address: s.agent.address },
      s.agent.id,
      sent.thread_id,
    )!;
    const byToken = await deliver(mime({ subject: 'by token' }), [token.address]);
    const m = (await s.message(s.agent.id, byToken.report.stored[0]))!;
    expect(m).toMatchObject({ thread_id: sent.thread_id, inbound: { threaded_by: 'token' } });

    const forged = token.address.replace(
      /\.([0-9a-f]{6})@/,
      (_, mac: string) => `.${mac === '000000' ? '000001' : '000000'}@`,
    );
    const f = await deliver(mime({ subject: 'forged token' }), [forged]);
    const fm = (await s.message(s.agent.id, f.report.stored[0]))!;
    expect(fm).toMatchObject({ thread_id: `thr_${fm.id.slice(4)}`, inbound: { threaded_by: 'new' } });

    // Another identity's valid token, on this identity's address: its MAC is not this identity's.
    const peers = threadTokenReplyTo(
      s.deps.config.hashKey,
      { address: s.agent.address },
      s.peer.id,
      sent.thread_id,
    )!;
    const p = await deliver(mime({ subject: 'other identity token' }), [peers.address]);
    expect((await s.message(s.agent.id, p.report.stored[0]))?.inbound?.threaded_by).toBe('new');

    // A genuine MAC for a thread that does not exist (stale).
    const gone = `thr_${'0'.repeat(10)}${'z'.repeat(16)}`;
    const stale = threadTokenReplyTo(s.deps.config.hashKey, { address: s.agent.address }, s.agent.id, gone)!;
    const st = await deliver(mime({ subject: 'stale token' }), [stale.address]);
    const sm = (await s.message(s.agent.id, st.report.stored[0]))!;
    expect(sm.thread_id).not.toBe(gone);
    expect(sm.inbound?.threaded_by).toBe('new');
  });
});

describe("inbound.store.ts › storeInbound: the store's transaction under a lost answer", () => {
  const storeTx = (c: Call) => c.command === 'TransactWriteItems' && JSON.stringify(c.input).includes('"IN#');

  it('is resent by the SDK with its token and stored once: never answered as a duplicate of itself', async () => {
    const f = faults(s.deps.db);
    const rule = f.loseAnswerInRetry(storeTx);
    const { report } = await deliver(mime({ subject: 'lost answer' }), [s.agent.address]);
    expect(f.sent(rule)).toBe(2);
    expect(report).toMatchObject({ stored: [expect.any(String)], duplicates: 0 });
    expect(await inbox(s.agent.id, 'lost answer')).toHaveLength(1);
    expect(await receivedEvents(report.stored[0])).toHaveLength(1);
  });

  it('after a redelivery stored nothing in between, the resend still answers stored, and the sender counted once', async () => {
    const sender = `lost-${Math.random().toString(36).slice(2)}@example.com`;
    const raw = mime({ subject: 'lost answer, redelivered' }).replace(`<${CUSTOMER}>`, `<${sender}>`);
    const n = notification(0, [s.agent.address], {});
    await s.deps.blobs.put(n.receipt.action.objectKey, new TextEncoder().encode(raw), {});
    const f = faults(s.deps.db);
    let redelivered: Awaited<ReturnType<typeof ingestNotification>> | undefined;
    const rule = f.loseAnswerInRetry(storeTx, {
      // biome-ignore lint/suspicious/noThenProperty: the fault helper's option (test/support/faults.ts)
      then: async () => {
        redelivered = await ingestNotification(deps, n);
      },
    });
    const report = await ingestNotification(deps, n);
    expect(f.sent(rule)).toBe(3);
    expect(report.stored).toHaveLength(1);
    expect(redelivered).toMatchObject({ stored: [], duplicates: 1 });
    expect(await inbox(s.agent.id, 'lost answer, redelivered')).toHaveLength(1);
    expect((await getContacts(s.deps.db, s.agent.id, [sender])).get(sender)?.inbound_count).toBe(1);
    const dedupe = await s.deps.db.get({
      TableName: s.deps.db.table,
      Key: {
        pk: `I#${s.agent.id}`,
        sk: `IN#${(await s.message(s.agent.id, report.stored[0]))!.inbound!.dedupe_key}`,
      },
    });
    expect(dedupe.Item?.message_id).toBe(report.stored[0]);
  });
});
