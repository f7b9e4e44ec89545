import { beforeAll, describe, expect, it } from 'vitest';
import { MESSAGE_ID_WINDOW_MS } from '../../functions/core/inbound.ts';
import { ingestNotification } from '../../functions/inbound/ingest.ts';
import { INBOUND_RAW_PREFIX } from '../../functions/inbound/notification.ts';
import { receivedNotification } from '../../functions/inbound/received.ts';
import { type DepsFor, portsFor } from '../../functions/lambda-ports.ts';
import { getMessageIdMarker } from '../../functions/store/inbound.store.ts';
import { type Call, faults } from '../support/faults.ts';
import { listEvents } from '../support/feeds.ts';
import { type TestStack, testStack } from '../support/local.ts';

/**
 * Duplicates by Message-ID (docs/guides/receiving.md › Duplicates) where the timing matters: two
 * copies whose ingests overlap (held at the store's transaction), lost answers to the marker's and
 * the duplicate's transactions, the window, and the authentication of each copy. Through
 * `ingestNotification`, as the ingest queue calls it, on DynamoDB Local.
 */
let s: TestStack;
let deps: DepsFor<'inbound-ingest'>;
beforeAll(async () => {
  s = await testStack();
  deps = portsFor(s.deps, 'inbound-ingest');
});

let seq = 0;
const fresh = () => `${Date.now().toString(36)}${++seq}`;
type Verdict = 'PASS' | 'GRAY' | 'FAIL';

/** One copy of a message: its bytes differ by `date`; its From and Message-ID are given. */
function copy(h: { messageId: string; from: string; subject: string; date: string }): string {
  return [
    `From: ${h.from}`,
    `To: ${s.agent.address}`,
    `Subject: ${h.subject}`,
    `Message-ID: ${h.messageId}`,
    `Date: ${h.date}`,
    'Content-Type: text/plain; charset=utf-8',
    '',
    'One message, more than one copy.',
    '',
  ].join('\r\n');
}

/** The raw copy where SES's S3 action stores it, and its notification (SES's DMARC verdict given). */
async function arrived(raw: string, dmarc: Verdict = 'GRAY') {
  const id = `dup-${fresh()}`;
  await s.deps.blobs.put(`${INBOUND_RAW_PREFIX}${id}`, new TextEncoder().encode(raw), {});
  return receivedNotification({
    id,
    at: Date.now(),
    source: 'mta@example.org',
    destination: [s.agent.address],
    recipients: [s.agent.address],
    verdicts: { dmarc: dmarc === 'FAIL' ? 'GRAY' : dmarc },
  });
}

/** A message's copies with these dates; `from` defaults to one sender for all. */
function copies(subject: string, dates: string[], from = `sender-${fresh()}@example.org`) {
  const messageId = `<${fresh()}@example.org>`;
  return { messageId, from, raws: dates.map((date) => copy({ messageId, from, subject, date })) };
}

const FIRST_DATE = 'Mon, 07 Dec 2026 10:00:00 +0000';
const LATER_DATE = 'Mon, 07 Dec 2026 10:20:00 +0000';

const inbox = async (subject: string) =>
  (await s.mailbox(s.agent.id, 'inbound')).filter((m) => m.subject === subject);
const receivedEvents = async (messageId: string) =>
  (await listEvents(s.deps.db, s.tenantId, { limit: 500 })).data.filter(
    (e) => e.type === 'message.received' && e.data.message_id === messageId,
  );
async function rawCopies(): Promise<string[]> {
  const keys: string[] = [];
  for await (const k of s.deps.blobs.list(`t/${s.tenantId}/i/${s.agent.id}/in/`)) keys.push(k);
  return keys;
}

/** The transaction that stores a first copy with its Message-ID's marker. */
const storeTx = (c: Call) =>
  c.command === 'TransactWriteItems' && JSON.stringify(c.input).includes('"inbound_message_id"');
/** The transaction that records a later copy as a duplicate. */
const duplicateTx = (c: Call) =>
  c.command === 'TransactWriteItems' && JSON.stringify(c.input).includes('"duplicate_of"');

describe('two copies whose ingests overlap', () => {
  it('one copy held at its store while the other is stored: one message; the held copy is a duplicate and leaves no raw copy', async () => {
    const subject = `held ${fresh()}`;
    const c = copies(subject, [FIRST_DATE, LATER_DATE]);
    const [first, second] = [await arrived(c.raws[0]), await arrived(c.raws[1])];
    const f = faults(s.deps.db);
    const held = f.pauseBefore(storeTx);
    const firstIngest = ingestNotification(deps, first);
    await held.reached;
    const secondReport = await ingestNotification(deps, second);
    held.go();
    const firstReport = await firstIngest;
    expect(secondReport).toMatchObject({ stored: [expect.any(String)], duplicates: 0 });
    expect(firstReport).toMatchObject({ stored: [], duplicates: 1 });
    const [m, ...rest] = await inbox(subject);
    expect(rest).toHaveLength(0);
    expect(m.id).toBe(secondReport.stored[0]);
    expect(await receivedEvents(m.id)).toHaveLength(1);
    expect((await rawCopies()).filter((k) => k.includes(m.id.slice(4, 14)))).toEqual([m.raw_key]);
    expect((await getMessageIdMarker(s.deps.db, s.agent.id, c.messageId, Date.now()))?.duplicates).toBe(1);
  });

  it('held the same way, a copy with another From is stored beside it, flagged, in its thread', async () => {
    const subject = `held, other From ${fresh()}`;
    const c = copies(subject, [FIRST_DATE]);
    const forged = copy({
      messageId: c.messageId,
      from: `forger-${fresh()}@example.org`,
      subject,
      date: LATER_DATE,
    });
    const [genuine, other] = [await arrived(c.raws[0]), await arrived(forged)];
    const f = faults(s.deps.db);
    const held = f.pauseBefore(storeTx);
    const forgedIngest = ingestNotification(deps, other);
    await held.reached;
    const genuineReport = await ingestNotification(deps, genuine);
    held.go();
    const forgedReport = await forgedIngest;
    const first = (await s.message(s.agent.id, genuineReport.stored[0]))!;
    const later = (await s.message(s.agent.id, forgedReport.stored[0]))!;
    expect(first.flags).not.toContain('possible_duplicate');
    expect(later.flags).toContain('possible_duplicate');
    expect(later.thread_id).toBe(first.thread_id);
    expect(later.inbound).toMatchObject({ possible_duplicate: { of: first.id, reason: 'other_sender' } });
  });

  it('five messages, two copies each, ingested at once: five messages, five events', async () => {
    const subject = `at once ${fresh()}`;
    const all = Array.from({ length: 5 }, () => copies(subject, [FIRST_DATE, LATER_DATE]));
    const notes = await Promise.all(all.flatMap((c) => c.raws.map((r) => arrived(r))));
    const reports = await Promise.all(notes.map((n) => ingestNotification(deps, n)));
    expect(reports.flatMap((r) => r.stored)).toHaveLength(5);
    const got = await inbox(subject);
    expect(new Set(got.map((m) => m.rfc_message_id))).toEqual(new Set(all.map((c) => c.messageId)));
    expect(got).toHaveLength(5);
  });
});

describe('which copy is a duplicate', () => {
  it.each([
    ['unverified, then unverified', 'GRAY', 'GRAY', 'duplicate'],
    ['authenticated, then authenticated', 'PASS', 'PASS', 'duplicate'],
    ['authenticated, then unverified: the later one cannot hide or replace it', 'PASS', 'GRAY', 'kept'],
    [
      'unverified, then authenticated: an unproven first copy cannot hide the proven one',
      'GRAY',
      'PASS',
      'kept',
    ],
  ] as const)('%s', async (_name, firstDmarc, laterDmarc, expected) => {
    const subject = `auth ${fresh()}`;
    const c = copies(subject, [FIRST_DATE, LATER_DATE]);
    await ingestNotification(deps, await arrived(c.raws[0], firstDmarc));
    const later = await ingestNotification(deps, await arrived(c.raws[1], laterDmarc));
    const got = await inbox(subject);
    if (expected === 'duplicate') {
      expect(later).toMatchObject({ stored: [], duplicates: 1 });
      expect(got).toHaveLength(1);
    } else {
      expect(got).toHaveLength(2);
      const flagged = (await s.message(s.agent.id, later.stored[0]))!;
      expect(flagged.inbound?.possible_duplicate?.reason).toBe('authentication_differs');
    }
  });

  it('a copy more than 30 days after the first is a message of its own', async () => {
    const subject = `window ${fresh()}`;
    const c = copies(subject, [FIRST_DATE, LATER_DATE]);
    await ingestNotification(deps, await arrived(c.raws[0]));
    const later = { ...deps, clock: () => Date.now() + MESSAGE_ID_WINDOW_MS + 60_000 };
    const report = await ingestNotification(later, await arrived(c.raws[1]));
    expect(report.stored).toHaveLength(1);
    const m = (await s.message(s.agent.id, report.stored[0]))!;
    expect(m.flags).not.toContain('possible_duplicate');
    expect((await getMessageIdMarker(s.deps.db, s.agent.id, c.messageId, later.clock()))?.message_id).toBe(
      m.id,
    );
  });
});

describe("inbound.store.ts › messageIdMarkerPut: the first copy's marker under a lost answer", () => {
  it('is resent with its token after the next copy found it: one message, the next copy a duplicate', async () => {
    const subject = `marker lost ${fresh()}`;
    const c = copies(subject, [FIRST_DATE, LATER_DATE]);
    const [first, second] = [await arrived(c.raws[0]), await arrived(c.raws[1])];
    const f = faults(s.deps.db);
    let next: Awaited<ReturnType<typeof ingestNotification>> | undefined;
    const rule = f.loseAnswerInRetry(storeTx, {
      // biome-ignore lint/suspicious/noThenProperty: the fault helper's option (test/support/faults.ts)
      then: async () => {
        next = await ingestNotification(deps, second);
      },
    });
    const report = await ingestNotification(deps, first);
    expect(f.sent(rule)).toBe(2);
    expect(report).toMatchObject({ stored: [expect.any(String)], duplicates: 0 });
    expect(next).toMatchObject({ stored: [], duplicates: 1 });
    expect(await inbox(subject)).toHaveLength(1);
    expect(await receivedEvents(report.stored[0])).toHaveLength(1);
  });
});

describe('inbound.store.ts › recordDuplicate: a duplicate recorded under a lost answer', () => {
  it('after a redelivery of the same copy found it recorded, the resend still answers recorded; counted once', async () => {
    const subject = `duplicate lost ${fresh()}`;
    const c = copies(subject, [FIRST_DATE, LATER_DATE]);
    await ingestNotification(deps, await arrived(c.raws[0]));
    const second = await arrived(c.raws[1]);
    const f = faults(s.deps.db);
    let redelivered: Awaited<ReturnType<typeof ingestNotification>> | undefined;
    const rule = f.loseAnswerInRetry(duplicateTx, {
      // biome-ignore lint/suspicious/noThenProperty: the fault helper's option (test/support/faults.ts)
      then: async () => {
        redelivered = await ingestNotification(deps, second);
      },
    });
    const report = await ingestNotification(deps, second);
    expect(f.sent(rule)).toBe(3);
    expect(report).toMatchObject({ stored: [], duplicates: 1 });
    expect(redelivered).toMatchObject({ stored: [], duplicates: 1 });
    expect(await inbox(subject)).toHaveLength(1);
    expect((await getMessageIdMarker(s.deps.db, s.agent.id, c.messageId, Date.now()))?.duplicates).toBe(1);
  });
});
