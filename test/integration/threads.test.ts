import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import nodemailer from 'nodemailer';
import type Mail from 'nodemailer/lib/mailer/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpServer } from '../../functions/local/http-server.ts';
import { seedTestTenant } from '../../functions/local/seed.ts';
import { silentLogger } from '../../functions/log.ts';
import { REPLY_SHAPES } from '../fixtures/replies/shapes.ts';
import { getBytes, type TestStack, testStack } from '../support/local.ts';

/**
 * Conversations on the local stack with the MX on (docs/guides/receiving.md › Threads, › The new
 * text, › Attachments): an outbound message, the answer through the local MX and a reply through
 * the API read as one thread, through the HTTP API's route groups and the MCP SDK's client. Test
 * tenants send only to @simulator.invalid, so the correspondent has such an address.
 */
let s: TestStack;
const outside = 'customer@simulator.invalid';
const closers: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  // One correspondent writes dozens of messages here: above the stranger rate's default, which
  // would hold them (docs/guides/receiving.md › How much a stranger can make an agent read).
  s = await testStack({
    inbound: { port: 0 },
    seed: { identity: { receive_policy: { stranger_rate: { per_sender: 1000, total: 1000 } } } },
  });
});

afterAll(async () => {
  for (const c of closers) await c();
  await s?.settle();
  await s?.close();
});

let seq = 0;
const fresh = () => `${Date.now().toString(36)}-${++seq}`;

/** One message into the local MX, from the outside correspondent to the agent. */
async function receive(mail: Mail.Options & { to?: string }) {
  const transport = nodemailer.createTransport({
    host: s.mx!.host,
    port: s.mx!.port,
    secure: false,
    ignoreTLS: true,
  });
  await transport.sendMail({
    from: outside,
    to: s.agent.address,
    messageId: `<${fresh()}@simulator.invalid>`,
    ...mail,
  });
}

async function received(subject: string) {
  await s.settle();
  return s.eventually(async () =>
    (await s.mailbox(s.agent.id, 'inbound')).find((m) => m.subject === subject),
  );
}

async function agentSends(subject: string, text: string) {
  const res = await s.send({ to: [outside], subject, text });
  expect(res.status).toBe(202);
  await s.settle();
  return (await s.message(s.agent.id, res.body.id))!;
}

const threads = (query: Record<string, string> = {}, identityId = s.agent.id, key?: string) =>
  s.call('GET', `/v1/identities/${identityId}/threads`, { query, key });
const thread = (threadId: string, identityId = s.agent.id, key?: string) =>
  s.call('GET', `/v1/identities/${identityId}/threads/${threadId}`, { key });

/** GET …/attachments/{id} through the threads group: the answer is bytes. */
const download = (messageId: string, attachmentId: string) =>
  getBytes(s, `/v1/identities/${s.agent.id}/messages/${messageId}/attachments/${attachmentId}`);

async function mcpClient(): Promise<Client> {
  const http = await startHttpServer(s.groups, { port: 0, log: silentLogger });
  closers.push(http.close);
  const client = new Client({ name: 'pmail-test-agent', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${http.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${s.apiKey}` } },
    }),
  );
  closers.push(() => client.close());
  return client;
}

describe('threads', () => {
  it('reads an outbound message, the answer through the MX and the reply as one thread, in order', async () => {
    const subject = `Meeting ${fresh()}`;
    const sent = await agentSends(subject, 'Can we meet on Tuesday?');
    const gmail = REPLY_SHAPES[0];
    await receive({ subject: `Re: ${subject}`, inReplyTo: sent.rfc_message_id, text: gmail.text });
    const answer = await received(`Re: ${subject}`);
    expect(answer.thread_id).toBe(sent.thread_id);
    const reply = await s.call('POST', `/v1/identities/${s.agent.id}/messages/${answer.id}/reply`, {
      body: { text: 'Booked for Tuesday.' },
      headers: { 'idempotency-key': `reply-${fresh()}` },
    });
    expect(reply.status, JSON.stringify(reply.body)).toBe(202);
    await s.settle();

    const list = await threads();
    expect(list.status).toBe(200);
    expect(list.body.data[0]).toEqual({
      id: sent.thread_id,
      subject,
      participants: [outside, s.agent.address].sort(),
      message_count: 3,
      last_message_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      snippet: 'Booked for Tuesday.',
      labels: [],
    });

    const one = await thread(sent.thread_id);
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ id: sent.thread_id, subject, message_count: 3 });
    expect(one.body.messages.map((m: { id: string }) => m.id)).toEqual([sent.id, answer.id, reply.body.id]);
    expect(one.body.messages.map((m: { direction: string }) => m.direction)).toEqual([
      'outbound',
      'inbound',
      'outbound',
    ]);
    // Both sides' text on the thread: what the agent sent, the answer whole within the budget.
    expect(one.body.messages[0].text).toContain('Can we meet on Tuesday?');
    expect(one.body.messages[1]).toMatchObject({ text_form: 'whole', extracted_text: null, html: null });
    expect(one.body.messages[1].text).toContain('wrote:');
    expect(one.body.messages[2].text).toContain('Booked for Tuesday.');
    // The new text alone, on the thread trimmed and on the message.
    const trimmed = await s.call('GET', `/v1/identities/${s.agent.id}/threads/${sent.thread_id}`, {
      query: { text: 'extracted' },
    });
    expect(trimmed.body.messages[1]).toMatchObject({ text: gmail.expected, text_form: 'extracted' });
    const full = await s.call('GET', `/v1/identities/${s.agent.id}/messages/${answer.id}`);
    expect(full.body.text).toContain('wrote:');
    expect(full.body.extracted_text).toBe(gmail.expected);

    // The same through MCP, marked untrusted.
    const client = await mcpClient();
    const tools = (await client.listTools()).tools.map((t) => t.name);
    expect(tools).toEqual(expect.arrayContaining(['list_threads', 'get_thread']));
    const listed = await client.callTool({ name: 'list_threads', arguments: { identity_id: s.agent.id } });
    expect(listed.isError).toBeFalsy();
    expect((listed.structuredContent as { data: { id: string }[] }).data[0].id).toBe(sent.thread_id);
    expect(listed._meta).toMatchObject({ 'pmail/untrusted_content': true });
    const got = await client.callTool({
      name: 'get_thread',
      arguments: { identity_id: s.agent.id, thread_id: sent.thread_id },
    });
    expect(got.isError).toBeFalsy();
    const content = got.content as { type: string; text: string }[];
    expect(content[0].text).toMatch(/^UNTRUSTED CONTENT/);
    expect(content[1].text).toMatch(/^<untrusted_email_content>\n[\s\S]*<\/untrusted_email_content>$/);
    const doc = got.structuredContent as { messages: { id: string; attempt?: { status: string } }[] };
    expect(doc.messages.map((m) => m.id)).toEqual([sent.id, answer.id, reply.body.id]);
    expect(doc.messages[0].attempt?.status).toBeDefined();
    const missing = await client.callTool({
      name: 'get_thread',
      arguments: { identity_id: s.agent.id, thread_id: `thr_${'0'.repeat(26)}` },
    });
    expect(missing.isError).toBe(true);
    expect(missing.structuredContent).toMatchObject({ error: { code: 'thread_not_found' } });
  });

  it('answers a thread of another identity or tenant with the same 404 as a missing one', async () => {
    const sent = await agentSends(`Private ${fresh()}`, 'Only for the agent.');
    const other = await seedTestTenant(s.deps);
    const missing = await thread(`thr_${'0'.repeat(26)}`);
    const peers = await thread(sent.thread_id, s.peer.id);
    const foreign = await thread(sent.thread_id, other.identities[0].id, other.apiKey);
    for (const res of [missing, peers, foreign]) {
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('thread_not_found');
    }
    // The other tenant's key does not reach the agent's identity at all.
    expect((await thread(sent.thread_id, s.agent.id, other.apiKey)).body.error.code).toBe(
      'identity_not_found',
    );
    expect((await threads({}, s.agent.id, other.apiKey)).status).toBe(404);
    expect((await threads({}, other.identities[0].id, other.apiKey)).body.data).toEqual([]);
    expect((await thread('not-a-thread')).body.error.code).toBe('thread_not_found');
  });

  it('pages the list newest activity first, and an answer moves its thread to the top', async () => {
    const subjects = [0, 1, 2].map((i) => `Page ${i} ${fresh()}`);
    const sent = [];
    for (const subject of subjects) sent.push(await agentSends(subject, 'Hello'));
    await receive({ subject: `Re: ${subjects[0]}`, inReplyTo: sent[0].rfc_message_id, text: 'Back to you.' });
    await received(`Re: ${subjects[0]}`);

    const all = (await threads({ limit: '100' })).body.data as { id: string; last_message_at: string }[];
    expect(all.slice(0, 3).map((t) => t.id)).toEqual([
      sent[0].thread_id,
      sent[2].thread_id,
      sent[1].thread_id,
    ]);
    const times = all.map((t) => Date.parse(t.last_message_at));
    expect(times).toEqual([...times].sort((a, b) => b - a));

    const paged: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await threads({ limit: '2', ...(cursor ? { cursor } : {}) });
      expect(page.status).toBe(200);
      expect(page.body.data.length).toBeLessThanOrEqual(2);
      paged.push(...page.body.data.map((t: { id: string }) => t.id));
      cursor = page.body.next_cursor ?? undefined;
    } while (cursor);
    expect(paged).toEqual(all.map((t) => t.id));

    const bad = await threads({ cursor: 'bm90LWEtY3Vyc29y' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('invalid_request');
  });

  it('stores extracted_text for each reply shape received through the MX', async () => {
    const tag = fresh();
    await Promise.all(
      REPLY_SHAPES.map((shape, i) => receive({ subject: `Shape ${i} ${tag}`, text: shape.text })),
    );
    await s.settle();
    const inbox = await s.mailbox(s.agent.id, 'inbound');
    const got = REPLY_SHAPES.map((shape, i) => {
      const m = inbox.find((x) => x.subject === `Shape ${i} ${tag}`);
      return { name: shape.name, extracted: m?.inbound?.extracted_text };
    });
    expect(got).toEqual(REPLY_SHAPES.map((shape) => ({ name: shape.name, extracted: shape.expected })));
  });

  it('lists attachments with id and risky, and serves each as an attachment, risky ones as bytes only', async () => {
    const subject = `Files ${fresh()}`;
    const pdf = Buffer.from('%PDF-1.4 pretend report');
    const exe = Buffer.from('MZ pretend program');
    const html = Buffer.from('<script>alert(1)</script>');
    await receive({
      subject,
      text: 'Files attached.',
      attachments: [
        { filename: 'report.pdf', content: pdf, contentType: 'application/pdf' },
        { filename: 'setup.exe', content: exe, contentType: 'application/x-msdownload' },
        { filename: 'page "1".html', content: html, contentType: 'text/html' },
      ],
    });
    const m = await received(subject);
    const view = await s.call('GET', `/v1/identities/${s.agent.id}/messages/${m.id}`);
    expect(view.body.attachments).toMatchObject([
      { id: 'att_1', filename: 'report.pdf', content_type: 'application/pdf', risky: false, risk: null },
      { id: 'att_2', filename: 'setup.exe', risky: true, risk: 'executable' },
      { id: 'att_3', risky: false },
    ]);
    expect(view.body.flags).toContain('risky_attachment');

    const one = await download(m.id, 'att_1');
    expect(one.status).toBe(200);
    expect(one.body.equals(pdf)).toBe(true);
    expect(one.headers).toMatchObject({
      'content-type': 'application/pdf',
      'content-disposition': `attachment; filename="report.pdf"; filename*=UTF-8''report.pdf`,
      'x-content-type-options': 'nosniff',
    });
    const risky = await download(m.id, 'att_2');
    expect(risky.body.equals(exe)).toBe(true);
    expect(risky.headers['content-type']).toBe('application/octet-stream');
    expect(risky.headers['content-disposition']).toMatch(/^attachment; filename="setup\.exe"/);
    const page = await download(m.id, 'att_3');
    expect(page.headers['content-type']).toBe('application/octet-stream');
    expect(page.headers['content-disposition']).toMatch(/^attachment; filename="page _1_\.html"/);

    for (const id of ['att_4', 'att_0', 'nope']) {
      const res = await download(m.id, id);
      expect(res.status).toBe(404);
      expect(JSON.parse(res.body.toString()).error.code).toBe('attachment_not_found');
    }
  });
});
