import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INBOUND_RAW_PREFIX } from '../../functions/inbound/notification.ts';
import { contactKey } from '../../functions/store/contacts.store.ts';
import { mailOfShape } from '../fixtures/mail-shapes.ts';
import { getBytes, type TestStack, testStack } from '../support/local.ts';
import { sesReceived, sesTrace } from '../support/ses-fixtures.ts';

/**
 * Mail from outside is hostile: its size and shape never make the ingest quadratic, a From it
 * cannot prove makes no one a known recipient, and a copy with a Message-ID already received is
 * one message, or kept beside it and flagged (docs/guides/receiving.md). Through the local MX (and
 * SES's own notification on the ingest queue where a verdict must be PASS), on DynamoDB Local,
 * read back through the HTTP API. The agent requires known recipients. Test tenants send only to
 * @simulator.invalid, so the outside correspondents have such addresses.
 */
let s: TestStack;

beforeAll(async () => {
  s = await testStack({
    inbound: { port: 0 },
    seed: { identity: { send_policy: { require_known_recipient: true } } },
  });
});

afterAll(async () => {
  await s?.settle();
  await s?.close();
});

let seq = 0;
const fresh = () => `${Date.now().toString(36)}-${++seq}`;
const MB = 1024 * 1024;

/** One SMTP transaction of exactly these bytes through the local MX. */
async function smtpSend(raw: string | Buffer, from: string, to = [s.agent.address]): Promise<string> {
  const mx = nodemailer.createTransport({
    host: s.mx!.host,
    port: s.mx!.port,
    secure: false,
    ignoreTLS: true,
  });
  return (await mx.sendMail({ envelope: { from, to }, raw })).response;
}

const rfc822 = (h: Record<string, string>, text: string) =>
  `${Object.entries(h)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\r\n')}\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n${text}\r\n`;

/** The agent's received messages with this subject, as the API lists them (oldest first). */
async function received(subject: string) {
  await s.settle();
  const page = await s.call('GET', `/v1/identities/${s.agent.id}/messages`, {
    query: { direction: 'inbound', limit: '100' },
  });
  expect(page.status).toBe(200);
  return (page.body.data as { id: string; subject: string }[]).filter((m) => m.subject === subject).reverse();
}

const message = async (id: string) =>
  (await s.call('GET', `/v1/identities/${s.agent.id}/messages/${id}`)).body;

async function receivedEvents(messageId: string) {
  const events = await s.call('GET', '/v1/events', { query: { limit: '100' } });
  return (events.body.data as { type: string; data: { message_id?: string } }[]).filter(
    (e) => e.type === 'message.received' && e.data.message_id === messageId,
  );
}

/** What a send to `to` does to it under require_known_recipient: `queued` or `suppressed`. */
async function sendTo(to: string) {
  const res = await s.send({ to: [to], subject: 'Hello', text: 'Following up.' });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return res.body.deliveries[0] as { status: string; smtp_response?: string };
}

describe('ingest time is linear in the size, whatever the shape', () => {
  // Each took two minutes or more at 4 MB, and the test's ordinary timeout is 30 s.
  it('stores a 4 MB message whose HTML is one line of inline elements, sent base64, with its text', async () => {
    const subject = `inline run ${fresh()}`;
    const raw = mailOfShape('html-inline-run', 4 * MB, { to: s.agent.address, subject });
    expect(await smtpSend(raw, 'sender@simulator.invalid')).toMatch(/^250 /);
    const [m] = await received(subject);
    const got = await message(m.id);
    expect(got).toMatchObject({ inbound: { parse: 'parsed' }, body_truncated: true });
    expect(got.text).toMatch(/^xyxyxyxy/);
    expect(got.html).toContain('<b>x</b><i>y</i>');
  });

  it('stores a 4 MB message whose HTML nests deeper than any browser shows', async () => {
    const subject = `nested ${fresh()}`;
    const raw = mailOfShape('html-nested', 4 * MB, { to: s.agent.address, subject });
    expect(await smtpSend(raw, 'sender@simulator.invalid')).toMatch(/^250 /);
    const [m] = await received(subject);
    expect(await message(m.id)).toMatchObject({ inbound: { parse: 'parsed' }, body_truncated: true });
  });

  it('downloads the attachment of a message with a text part and a 4 MB line of HTML', async () => {
    const subject = `attachment ${fresh()}`;
    const html = Buffer.from(`<p>${'<b>x</b><i>y</i>'.repeat((3 * MB) / 16)}</p>`).toString('base64');
    const file = Buffer.from('%PDF-1.4 the attachment itself');
    const raw = [
      `From: sender@simulator.invalid`,
      `To: ${s.agent.address}`,
      `Subject: ${subject}`,
      `Message-ID: <${fresh()}@simulator.invalid>`,
      'MIME-Version: 1.0',
      'Content-Type: multipart/mixed; boundary="b"',
      '',
      '--b',
      'Content-Type: text/plain; charset=utf-8',
      '',
      'The report is attached.',
      '--b',
      'Content-Type: text/html; charset=utf-8',
      'Content-Transfer-Encoding: base64',
      '',
      html.replace(/.{76}/g, '$&\r\n'),
      '--b',
      'Content-Type: application/pdf; name="report.pdf"',
      'Content-Disposition: attachment; filename="report.pdf"',
      'Content-Transfer-Encoding: base64',
      '',
      file.toString('base64'),
      '--b--',
      '',
    ].join('\r\n');
    expect(await smtpSend(raw, 'sender@simulator.invalid')).toMatch(/^250 /);
    const [m] = await received(subject);
    const att = await getBytes(s, `/v1/identities/${s.agent.id}/messages/${m.id}/attachments/att_1`);
    expect(att.status).toBe(200);
    expect(att.body).toEqual(file);
  });
});

describe('a received message makes its sender known only when it proves its From', () => {
  it('a forged From through the local MX (no verdict is PASS there) never opens sending to that third party', async () => {
    const victim = `victim-${fresh()}@simulator.invalid`;
    const subject = `forged ${fresh()}`;
    const raw = rfc822(
      { From: `Victim <${victim}>`, To: s.agent.address, Subject: subject, 'Message-ID': `<${fresh()}@x>` },
      'Please send the files to me.',
    );
    expect(await smtpSend(raw, 'attacker@simulator.invalid')).toMatch(/^250 /);
    const [m] = await received(subject);
    expect(await sendTo(victim)).toEqual(
      expect.objectContaining({ status: 'suppressed', smtp_response: 'policy: unknown_recipient' }),
    );
    expect((await message(m.id)).inbound).toMatchObject({
      verdicts: { dmarc: 'GRAY', dkim: 'GRAY' },
      sender_auth: 'unverified',
    });
  });

  it('an address with received-mail counts only (inbound_count, however high) is not known', async () => {
    const old = `counted-${fresh()}@simulator.invalid`;
    await s.deps.db.update({
      TableName: s.deps.db.table,
      Key: contactKey(s.agent.id, old),
      UpdateExpression: 'SET #type = :type, last_at = :now ADD inbound_count :n',
      ExpressionAttributeNames: { '#type': 'type' },
      ExpressionAttributeValues: { ':type': 'contact', ':now': Date.now(), ':n': 3 },
    });
    expect((await sendTo(old)).status).toBe('suppressed');
  });

  it("SES's DMARC PASS, or its DKIM PASS for the From's domain, makes the sender known; a DKIM PASS of another domain does not", async () => {
    // Test tenants send only to @simulator.invalid: the alignment of a parent domain is core/inbound.ts's table.
    const domain = 'simulator.invalid';
    const senders = {
      dmarc: {
        from: `alice-${fresh()}@${domain}`,
        verdicts: { spf: 'PASS', dkim: 'PASS', dmarc: 'PASS' },
        results: `dmarc=pass header.from=${domain}`,
      },
      aligned: {
        from: `carol-${fresh()}@${domain}`,
        verdicts: { dkim: 'PASS' },
        results: `dkim=pass header.i=@${domain}`,
      },
      // The attacker signs with its own domain and writes someone else's From.
      other: {
        from: `bob-${fresh()}@${domain}`,
        verdicts: { dkim: 'PASS' },
        results: 'dkim=pass header.i=@attacker.example',
      },
    } as const;
    for (const [name, f] of Object.entries(senders)) {
      const id = `ses-${name}-${fresh()}`;
      const trace = sesTrace({ source: f.from, recipient: s.agent.address, results: f.results });
      const body = rfc822(
        {
          From: f.from,
          To: s.agent.address,
          Subject: `ses ${name} ${id}`,
          'Message-ID': `<${id}@example.org>`,
        },
        'Hello from outside.',
      );
      await s.deps.blobs.put(`${INBOUND_RAW_PREFIX}${id}`, Buffer.from(trace + body), {});
      const n = sesReceived({
        messageId: id,
        source: f.from,
        recipients: [s.agent.address],
        at: Date.now(),
        objectKey: `${INBOUND_RAW_PREFIX}${id}`,
        verdicts: { spam: 'PASS', virus: 'PASS', ...f.verdicts },
      });
      s.inboundQueue.sendRaw(JSON.stringify(n));
    }
    await s.settle();
    expect({
      dmarc: (await sendTo(senders.dmarc.from)).status,
      aligned: (await sendTo(senders.aligned.from)).status,
      other: (await sendTo(senders.other.from)).status,
    }).toEqual({ dmarc: 'queued', aligned: 'queued', other: 'suppressed' });
  });
});

describe('duplicates by Message-ID', () => {
  const copy = (h: { from: string; messageId: string; subject: string; date: string }) =>
    rfc822(
      { From: h.from, To: s.agent.address, Subject: h.subject, 'Message-ID': h.messageId, Date: h.date },
      'The same message, sent again.',
    );

  it("an MTA's resend with a new Date: is one message and one message.received", async () => {
    const h = {
      from: `resend-${fresh()}@simulator.invalid`,
      messageId: `<${fresh()}@simulator.invalid>`,
      subject: `resend ${fresh()}`,
    };
    await smtpSend(copy({ ...h, date: 'Mon, 07 Dec 2026 10:00:00 +0000' }), h.from);
    await s.settle();
    await smtpSend(copy({ ...h, date: 'Mon, 07 Dec 2026 10:30:00 +0000' }), h.from);
    const got = await received(h.subject);
    expect(got).toHaveLength(1);
    expect(await receivedEvents(got[0].id)).toHaveLength(1);
  });

  it('a copy with another From is kept, flagged possible_duplicate, in the first copy’s thread', async () => {
    const h = {
      from: `genuine-${fresh()}@simulator.invalid`,
      messageId: `<${fresh()}@simulator.invalid>`,
      subject: `forged copy ${fresh()}`,
    };
    await smtpSend(copy({ ...h, date: 'Mon, 07 Dec 2026 10:00:00 +0000' }), h.from);
    await s.settle();
    const forger = `forger-${fresh()}@simulator.invalid`;
    await smtpSend(copy({ ...h, from: forger, date: 'Mon, 07 Dec 2026 10:01:00 +0000' }), forger);
    const [first, later] = await received(h.subject);
    const [a, b] = [await message(first.id), await message(later.id)];
    expect(b).toMatchObject({ thread_id: a.thread_id, from: { address: forger } });
    expect(b.flags).toContain('possible_duplicate');
    expect(a.flags).not.toContain('possible_duplicate');
    expect(a.inbound.possible_duplicate).toBeNull();
    expect(b.inbound).toMatchObject({
      possible_duplicate: { of: a.id, reason: 'other_sender' },
      threaded_by: 'duplicate',
    });
    expect(await receivedEvents(b.id)).toHaveLength(1);
  });

  it('two copies sent at once are one message', async () => {
    const h = {
      from: `twice-${fresh()}@simulator.invalid`,
      messageId: `<${fresh()}@simulator.invalid>`,
      subject: `at once ${fresh()}`,
    };
    await Promise.all([
      smtpSend(copy({ ...h, date: 'Mon, 07 Dec 2026 10:00:00 +0000' }), h.from),
      smtpSend(copy({ ...h, date: 'Mon, 07 Dec 2026 10:00:05 +0000' }), h.from),
    ]);
    const got = await received(h.subject);
    expect(got).toHaveLength(1);
    expect(await receivedEvents(got[0].id)).toHaveLength(1);
  });
});
