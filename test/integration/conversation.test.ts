import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import nodemailer from 'nodemailer';
import type Mail from 'nodemailer/lib/mailer/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpServer } from '../../functions/local/http-server.ts';
import { silentLogger } from '../../functions/log.ts';
import { REPLY_SHAPES } from '../fixtures/replies/shapes.ts';
import { getBytes, type TestStack, testStack } from '../support/local.ts';

/**
 * The whole conversation, both directions, on the local stack with its MX (docs/guides/receiving.md
 * › One shape for both directions, › Reading a thread under a budget): a sent message's text, HTML
 * and attachments on the Message as a received one's are; a thread read in one call by the HTTP API
 * and the MCP SDK's client with what was sent beside the answers' new text, in order, under a
 * budget; a transactional template's body withheld once its payload is spent; the test-mode thread
 * token, answered through the MX, landing in its thread.
 */
let s: TestStack;
const closers: (() => Promise<unknown>)[] = [];
const customer = 'delivered@simulator.invalid';

beforeAll(async () => {
  s = await testStack({ inbound: { port: 0 }, config: { simEventDelaySeconds: 0 } });
});
afterAll(async () => {
  for (const c of closers) await c();
  await s?.settle();
  await s?.close();
});

let seq = 0;
const fresh = () => `${Date.now().toString(36)}-${++seq}`;
const get = (path: string, query?: Record<string, string>) =>
  s.call('GET', `/v1/identities/${s.agent.id}${path}`, query ? { query } : {});

/** Mail from the customer through the local MX, to `to` (the agent's address by default). */
async function mailFromCustomer(mail: Mail.Options) {
  const transport = nodemailer.createTransport({
    host: s.mx!.host,
    port: s.mx!.port,
    secure: false,
    ignoreTLS: true,
  });
  await transport.sendMail({
    from: customer,
    to: s.agent.address,
    messageId: `<${fresh()}@simulator.invalid>`,
    ...mail,
  });
}

async function receivedWith(subject: string) {
  await s.settle();
  return s.eventually(async () =>
    (await s.mailbox(s.agent.id, 'inbound')).find((m) => m.subject === subject),
  );
}

async function mcp(): Promise<Client> {
  const http = await startHttpServer(s.groups, { port: 0, log: silentLogger });
  closers.push(http.close);
  const client = new Client({ name: 'conversation-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${http.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${s.apiKey}` } },
    }),
  );
  closers.push(() => client.close());
  return client;
}

describe('a sent message has a body, as a received one does', () => {
  it('shows the text, the sanitised HTML, the extracted text and the snippet of what was sent', async () => {
    const sent = await s.send({
      to: [customer],
      subject: 'Your order',
      text: 'Your order 1042 has shipped.',
      html: '<p onclick="steal()">Your order <b>1042</b> has shipped.</p><script>alert(1)</script>',
    });
    expect(sent.status).toBe(202);
    // The send's answer leaves the body out, and says so.
    expect(sent.body).toMatchObject({ text: null, html: null, body_omitted: true });
    const view = await get(`/messages/${sent.body.id}`);
    expect(view.body).toMatchObject({
      direction: 'outbound',
      text: 'Your order 1042 has shipped.',
      extracted_text: 'Your order 1042 has shipped.',
      snippet: 'Your order 1042 has shipped.',
      html: '<p>Your order <b>1042</b> has shipped.</p>',
      body_omitted: false,
      body_withheld: null,
      inbound: null,
    });
    const list = await get('/messages', { direction: 'outbound', limit: '5' });
    const listed = list.body.data.find((m: { id: string }) => m.id === sent.body.id);
    expect(listed).toMatchObject({ text: null, snippet: 'Your order 1042 has shipped.', body_omitted: true });
  });

  it('lists a sent message’s attachments and serves each one, inline parts too', async () => {
    const pdf = Buffer.from('%PDF-1.4 the invoice');
    const logo = Buffer.from('PNG pretend logo');
    const sent = await s.send({
      to: [customer],
      subject: 'Invoice',
      text: 'Attached.',
      html: '<p>Attached.</p><img src="cid:logo@shop">',
      attachments: [
        { filename: 'invoice.pdf', content_type: 'application/pdf', content_base64: pdf.toString('base64') },
        {
          filename: 'logo.png',
          content_type: 'image/png',
          content_base64: logo.toString('base64'),
          disposition: 'inline',
          content_id: 'logo@shop',
        },
      ],
    });
    const view = await get(`/messages/${sent.body.id}`);
    expect(view.body.attachments).toMatchObject([
      {
        id: 'att_1',
        filename: 'invoice.pdf',
        content_type: 'application/pdf',
        size: pdf.length,
        content_id: null,
      },
      {
        id: 'att_2',
        filename: 'logo.png',
        content_type: 'image/png',
        size: logo.length,
        content_id: 'logo@shop',
      },
    ]);
    const path = `/v1/identities/${s.agent.id}/messages/${sent.body.id}/attachments`;
    const one = await getBytes(s, `${path}/att_1`);
    expect([one.status, one.body.equals(pdf)]).toEqual([200, true]);
    const two = await getBytes(s, `${path}/att_2`);
    expect([two.status, two.body.equals(logo)]).toEqual([200, true]);
  });

  it('reads a body back from the MIME when its body item is missing (its writer stopped after the commit)', async () => {
    const sent = await s.send({ to: [customer], subject: 'No body item', text: 'Read back from the MIME.' });
    await s.deps.db.delete({
      TableName: s.deps.db.table,
      Key: { pk: `I#${s.agent.id}`, sk: `MB#${sent.body.id}` },
    });
    const view = await get(`/messages/${sent.body.id}`);
    expect(view.body.text).toBe('Read back from the MIME.');
    // A page of the list reads no MIME: the body is left out there, and says so.
    const list = await get('/messages', { direction: 'outbound', limit: '5' });
    expect(list.body.data.find((m: { id: string }) => m.id === sent.body.id)).toMatchObject({
      snippet: null,
      body_omitted: true,
    });
  });

  it('withholds a transactional template message’s body once its payload is spent, and shows it until then', async () => {
    const name = `signin_${fresh().replace(/-/g, '_')}`;
    const template = (on: TestStack) =>
      on.call('POST', `/v1/tenants/${on.tenantId}/templates`, {
        body: {
          name,
          subject: 'Sign in',
          text: 'Your sign-in code is {{code}}.',
          variables_schema: { type: 'object', properties: { code: { type: 'string' } }, required: ['code'] },
          category: 'transactional',
          kind: 'transactional',
        },
      });
    const bodyItem = (on: TestStack, id: string) =>
      on.deps.db.get({
        TableName: on.deps.db.table,
        Key: { pk: `I#${on.agent.id}`, sk: `MB#${id}` },
        ConsistentRead: true,
      });
    // Before its attempt (a stack whose executions never start): shown, read back from the MIME,
    // as such a body is never stored apart from it.
    const held = await testStack({ dispatcher: { start: async () => undefined } });
    closers.push(() => held.close());
    expect((await template(held)).status).toBe(201);
    const queued = await held.send({ template: name, variables: { code: '417 093' }, to: [customer] });
    const before = await held.call('GET', `/v1/identities/${held.agent.id}/messages/${queued.body.id}`);
    expect(before.body).toMatchObject({
      status: 'queued',
      text: 'Your sign-in code is 417 093.',
      body_withheld: null,
    });
    expect((await bodyItem(held, queued.body.id)).Item).toBeUndefined();
    // Once final: withheld, in the message and in its thread.
    expect((await template(s)).status).toBe(201);
    const tpl = await s.send({ template: name, variables: { code: '417 093' }, to: [customer] });
    await s.settle();
    const final = await get(`/messages/${tpl.body.id}`);
    expect(final.body.status).toBe('delivered');
    expect(final.body).toMatchObject({
      text: null,
      html: null,
      extracted_text: null,
      snippet: null,
      body_withheld: 'payload_redacted',
    });
    expect(JSON.stringify(final.body)).not.toContain('417 093');
    expect(JSON.stringify((await get(`/threads/${tpl.body.thread_id}`)).body)).not.toContain('417 093');
  });
});

describe('a thread read in one call, both sides', () => {
  it('gives what the agent sent beside the answers’ new text, in order, by the API and MCP, under a budget', async () => {
    const subject = `Delivery ${fresh()}`;
    const asked = `Can we deliver on Tuesday morning? ${'The driver calls half an hour ahead; the parcel needs a signature. '.repeat(4)}`;
    const first = await s.send({ to: [customer], subject, text: asked });
    await s.settle();
    const gmail = REPLY_SHAPES[0];
    await mailFromCustomer({
      subject: `Re: ${subject}`,
      inReplyTo: first.body.rfc_message_id,
      text: gmail.text,
    });
    const answer = await receivedWith(`Re: ${subject}`);
    const reply = await s.call('POST', `/v1/identities/${s.agent.id}/messages/${answer.id}/reply`, {
      body: { text: 'Booked: Tuesday 9–12.' },
      headers: { 'idempotency-key': `r-${fresh()}` },
    });
    expect(reply.status).toBe(202);
    await s.settle();

    const whole = await get(`/threads/${first.body.thread_id}`);
    expect(whole.body.messages.map((m: { id: string; direction: string }) => [m.id, m.direction])).toEqual([
      [first.body.id, 'outbound'],
      [answer.id, 'inbound'],
      [reply.body.id, 'outbound'],
    ]);
    expect(whole.body.messages.map((m: { text_form: string }) => m.text_form)).toEqual([
      'whole',
      'whole',
      'whole',
    ]);
    expect(whole.body.messages[0].text).toContain('Can we deliver on Tuesday morning?');
    expect(whole.body.messages[1].text).toContain('wrote:');
    expect(whole.body.text_budget).toMatchObject({
      max_chars: 20000,
      messages_omitted: 0,
      messages_trimmed: 0,
    });

    // A budget under the whole: the oldest trimmed first (the answer to its new text), the newest whole.
    const wholeChars = whole.body.text_budget.used_chars;
    const tight = await get(`/threads/${first.body.thread_id}`, { max_chars: String(wholeChars - 1) });
    expect(tight.body.messages.map((m: { text_form: string }) => m.text_form)).toEqual([
      'extracted',
      'extracted',
      'whole',
    ]);
    expect(tight.body.messages[1].text).toBe(gmail.expected);
    expect(tight.body.text_budget.used_chars).toBeLessThanOrEqual(wholeChars - 1);
    // Tighter still: the oldest left out, counted.
    const newest = [...whole.body.messages[2].text].length;
    const least = await get(`/threads/${first.body.thread_id}`, {
      max_chars: String(Math.max(200, newest + gmail.expected.length)),
    });
    expect(least.body.text_budget).toMatchObject({ messages_omitted: 1 });
    expect(least.body.messages.map((m: { id: string }) => m.id)).toEqual([answer.id, reply.body.id]);

    // The same through MCP: fenced as untrusted (the sent text too), the marker before the fence.
    const client = await mcp();
    const got = await client.callTool({
      name: 'get_thread',
      arguments: { identity_id: s.agent.id, thread_id: first.body.thread_id, text: 'extracted' },
    });
    expect(got.isError).toBeFalsy();
    const doc = got.structuredContent as { messages: { id: string; text: string; direction: string }[] };
    expect(doc.messages.map((m) => [m.direction, m.text])).toEqual([
      ['outbound', expect.stringContaining('Can we deliver on Tuesday morning?')],
      ['inbound', gmail.expected],
      ['outbound', expect.stringContaining('Booked: Tuesday 9–12.')],
    ]);
    const fencedText = (got.content as { text: string }[]).at(-1)!.text;
    expect(fencedText).toMatch(
      /^<untrusted_email_content>\n[\s\S]*Can we deliver[\s\S]*<\/untrusted_email_content>$/,
    );
    const cut = await client.callTool({
      name: 'get_thread',
      arguments: {
        identity_id: s.agent.id,
        thread_id: first.body.thread_id,
        max_chars: Math.max(200, newest + gmail.expected.length),
      },
    });
    expect((cut.content as { text: string }[])[0].text).toMatch(
      /^TEXT BUDGET: 1 older message was left out to fit max_chars=/,
    );
    const tools = (await client.listTools()).tools;
    expect(tools.find((t) => t.name === 'get_thread')?.description).toContain('max_chars (default 20000');
  });
});

describe('the local loop shows the thread token', () => {
  it('a test-mode send carries the thread-token Reply-To, and an answer to it through the MX lands in its thread', async () => {
    const subject = `Token ${fresh()}`;
    const sent = await s.send({ to: [customer], subject, text: 'Reply to this one.' });
    const [local, domain] = s.agent.address.split('@');
    const token = sent.body.reply_to[0]?.address as string;
    expect(token).toMatch(
      new RegExp(
        `^${local}\\+t${sent.body.thread_id.slice(4)}\\.[0-9a-f]{6}@${domain.replaceAll('.', '\\.')}$`,
      ),
    );
    await s.settle();
    // No In-Reply-To, no References: only the address says which thread it answers.
    await mailFromCustomer({ to: token, subject: 'Answer by token', text: 'Found it by the token.' });
    const got = await receivedWith('Answer by token');
    expect(got.thread_id).toBe(sent.body.thread_id);
    expect(got.inbound?.threaded_by).toBe('token');
  });
});
