import { connect } from 'node:net';
import { simpleParser } from 'mailparser';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MX_MAX_BYTES } from '../../functions/local/mx.ts';
import { type TestStack, testStack } from '../support/local.ts';

/**
 * Mail comes back on the local stack with the MX on (docs/guides/receiving.md › Receiving on your
 * laptop): SMTP into the MX, the raw message stored and its notification on the ingest queue, the
 * ingest storing, threading and announcing it, and a reply through the API leaving for the sender.
 * Test tenants send only to @simulator.invalid, so the outside correspondent has such an address.
 */
let s: TestStack;
const outside = 'customer@simulator.invalid';

beforeAll(async () => {
  s = await testStack({ inbound: { port: 0 }, seed: { replyToken: 'subaddress' } });
});

afterAll(async () => {
  await s?.settle();
  await s?.close();
});

const mxTransport = () =>
  nodemailer.createTransport({ host: s.mx!.host, port: s.mx!.port, secure: false, ignoreTLS: true });

/** One SMTP transaction of exactly these bytes; resolves with the final reply line. */
async function smtpSend(raw: string, to: string[], from = outside): Promise<string> {
  const info = await mxTransport().sendMail({ envelope: { from, to }, raw });
  return info.response;
}

const rfc822 = (h: Record<string, string>, text: string) =>
  `${Object.entries(h)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\r\n')}\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n${text}\r\n`;

let seq = 0;
const fresh = () => `${Date.now().toString(36)}-${++seq}`;

async function inboundWith(identityId: string, subject: string) {
  await s.settle();
  return (await s.mailbox(identityId, 'inbound')).filter((m) => m.subject === subject);
}

/** The agent's outbound message to the outside address, as Record left it. */
async function agentSent(subject: string) {
  const res = await s.send({ to: [outside], subject, text: 'Any questions?' });
  expect(res.status).toBe(202);
  await s.settle();
  return (await s.message(s.agent.id, res.body.id))!;
}

describe('the local MX', () => {
  it('stores mail from an outside address once, however often the same bytes are sent', async () => {
    const subject = `Hello ${fresh()}`;
    const raw = rfc822(
      {
        From: `Customer <${outside}>`,
        To: s.agent.address,
        Subject: subject,
        'Message-ID': `<${fresh()}@simulator.invalid>`,
        Date: new Date().toUTCString(),
      },
      'Hi agent, a question.',
    );
    expect(await smtpSend(raw, [s.agent.address])).toMatch(/^250 /);
    expect(await smtpSend(raw, [s.agent.address])).toMatch(/^250 /);
    // Stored as SES's S3 action stores it: under inbound/raw/, a Received trace header first.
    const keys: string[] = [];
    for await (const k of s.deps.blobs.list('inbound/raw/')) keys.push(k);
    const copies = [];
    for (const k of keys) {
      const b = Buffer.from((await s.deps.blobs.get(k))!.body).toString('utf8');
      if (b.includes(subject)) copies.push(b);
    }
    expect(copies).toHaveLength(2);
    for (const c of copies) {
      expect(c.startsWith(`Return-Path: <${outside}>\r\nReceived: from `)).toBe(true);
      expect(c.endsWith(raw)).toBe(true);
    }

    const got = await inboundWith(s.agent.id, subject);
    expect(got).toHaveLength(1);
    expect(got[0]).toMatchObject({ direction: 'inbound', from: { address: outside } });
  });

  it('threads an answer to the thread token onto the outbound message, with message.received', async () => {
    const sent = await agentSent(`Offer ${fresh()}`);
    const token = sent.reply_to[0].address;
    expect(token).toMatch(/\+t/);
    const subject = `Re: ${sent.subject}`;
    // No In-Reply-To: only the token in the envelope recipient threads it.
    await smtpSend(
      rfc822(
        { From: outside, To: token, Subject: subject, 'Message-ID': `<${fresh()}@simulator.invalid>` },
        'Yes.',
      ),
      [token],
    );
    const [got] = await inboundWith(s.agent.id, subject);
    expect(got.thread_id).toBe(sent.thread_id);

    const events = await s.call('GET', '/v1/events', { query: { limit: '100' } });
    const received = events.body.data.filter(
      (e: { type: string; data: { message_id?: string } }) =>
        e.type === 'message.received' && e.data.message_id === got.id,
    );
    expect(received).toHaveLength(1);
    expect(received[0].data).toMatchObject({ thread_id: sent.thread_id, subject });
  });

  it('threads an answer by its In-Reply-To, and a reply through the API leaves for the sender', async () => {
    const sent = await agentSent(`Quote ${fresh()}`);
    const subject = `Re: ${sent.subject}`;
    const answerId = `<${fresh()}@simulator.invalid>`;
    await smtpSend(
      rfc822(
        {
          From: outside,
          To: s.agent.address,
          Subject: subject,
          'Message-ID': answerId,
          'In-Reply-To': sent.rfc_message_id!,
        },
        'Sounds good.',
      ),
      [s.agent.address],
    );
    const [got] = await inboundWith(s.agent.id, subject);
    expect(got.thread_id).toBe(sent.thread_id);

    const reply = await s.call('POST', `/v1/identities/${s.agent.id}/messages/${got.id}/reply`, {
      body: { text: 'Thanks, booked.' },
      headers: { 'idempotency-key': `reply-${fresh()}` },
    });
    expect(reply.status, JSON.stringify(reply.body)).toBe(202);
    await s.settle();
    const out = (await s.message(s.agent.id, reply.body.id))!;
    expect(out).toMatchObject({ status: 'delivered', thread_id: sent.thread_id, subject });
    const mail = await simpleParser(Buffer.from((await s.deps.blobs.get(out.raw_key))!.body));
    expect(mail.inReplyTo).toBe(answerId);
    expect(mail.to).toMatchObject({ value: [{ address: outside }] });
  });

  it('answers RCPT TO with 550 5.1.1 for an unknown address of its domain and 550 5.7.1 for others; SIZE is 40 MB', async () => {
    const domain = s.agent.address.split('@')[1];
    const lines = await smtpDialog([
      'EHLO client.simulator.invalid',
      `MAIL FROM:<${outside}> SIZE=${MX_MAX_BYTES + 1}`,
      `MAIL FROM:<${outside}>`,
      `RCPT TO:<nobody-${fresh()}@${domain}>`,
      'RCPT TO:<someone@example.org>',
      `RCPT TO:<${s.peer.address.replace('@', '+anything@')}>`,
      'QUIT',
    ]);
    expect(lines[1]).toContain(`SIZE ${MX_MAX_BYTES}`);
    expect(lines[1]).not.toMatch(/AUTH|STARTTLS/);
    expect(lines[2]).toMatch(/^552 /);
    expect(lines[3]).toMatch(/^250 /);
    expect(lines[4]).toMatch(/^550 5\.1\.1 /);
    expect(lines[5]).toMatch(/^550 5\.7\.1 /);
    expect(lines[6]).toMatch(/^250 /);
  });
});

/** Speak SMTP line by line: the greeting, then one reply (all its lines) per command. */
async function smtpDialog(commands: string[]): Promise<string[]> {
  const socket = connect(s.mx!.port, s.mx!.host);
  socket.setEncoding('utf8');
  let buffer = '';
  const replies: string[] = [];
  let waiting: (() => void) | undefined;
  socket.on('data', (d: string) => {
    buffer += d;
    // A reply ends with a line whose code is followed by a space.
    for (;;) {
      const m = /^(?:\d{3}-[^\r\n]*\r\n)*\d{3} [^\r\n]*\r\n/.exec(buffer);
      if (!m) break;
      replies.push(m[0]);
      buffer = buffer.slice(m[0].length);
      waiting?.();
    }
  });
  const next = async (n: number) => {
    while (replies.length < n) await new Promise<void>((r) => (waiting = r));
  };
  await next(1);
  for (let i = 0; i < commands.length; i++) {
    socket.write(`${commands[i]}\r\n`);
    await next(i + 2);
  }
  socket.end();
  return replies;
}
