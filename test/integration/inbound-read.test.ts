import { beforeAll, describe, expect, it } from 'vitest';
import type { ApiEvent } from '../../functions/api/http.ts';
import type { MessageRecord } from '../../functions/core/model.ts';
import { ingestNotification } from '../../functions/inbound/ingest.ts';
import { INBOUND_RAW_PREFIX } from '../../functions/inbound/notification.ts';
import { portsFor } from '../../functions/lambda-ports.ts';
import { seedTestTenant } from '../../functions/local/seed.ts';
import { inboundKey } from '../../functions/store/blobs.ts';
import { storeMessage } from '../support/feeds.ts';
import { stackPerTest, type TestStack } from '../support/local.ts';

const stack = stackPerTest();

/** GET …/raw through the messages group: the answer is bytes, not JSON. */
async function getRaw(s: TestStack, identityId: string, messageId: string, key = s.apiKey) {
  const path = `/v1/identities/${identityId}/messages/${messageId}/raw`;
  const res = await s.groups.messages({
    version: '2.0',
    routeKey: '$default',
    rawPath: path,
    rawQueryString: '',
    headers: { authorization: `Bearer ${key}` },
    requestContext: { http: { method: 'GET', path } },
    isBase64Encoded: false,
  } as unknown as ApiEvent);
  const body = res.isBase64Encoded ? Buffer.from(res.body ?? '', 'base64') : Buffer.from(res.body ?? '');
  return { status: res.statusCode, headers: res.headers, body };
}

const RAW = [
  'Return-Path: <customer@outside.example>',
  'From: "A Customer" <Customer@Outside.example>',
  'To: agent',
  'Subject: Where is my order?',
  'Message-ID: <q-1@outside.example>',
  'Content-Type: text/plain; charset=utf-8',
  '',
  'Hello, it has been a week.',
  '',
].join('\r\n');

/** A received message as ingest stores it (MessageRecord.inbound), with its raw original. */
async function storeReceived(s: TestStack): Promise<string> {
  const id = `msg_${s.deps.newId()}`;
  const key = inboundKey(s.tenantId, s.peer.id, id);
  const now = s.deps.clock();
  await s.deps.blobs.put(key, new TextEncoder().encode(RAW), {
    tenant: s.tenantId,
    identity: s.peer.id,
    message: id,
  });
  const record: MessageRecord = {
    id,
    tenant_id: s.tenantId,
    identity_id: s.peer.id,
    thread_id: `thr_${s.deps.newId()}`,
    direction: 'inbound',
    status: 'received',
    from: { address: 'Customer@Outside.example', name: 'A Customer' },
    to: [{ address: s.peer.address }],
    cc: [],
    bcc: [],
    reply_to: [],
    subject: 'Where is my order?',
    kind: 'transactional',
    labels: [],
    flags: ['auto_reply'],
    rfc_message_id: '<q-1@outside.example>',
    raw_key: key,
    raw_size: RAW.length,
    created_at: now,
    updated_at: now,
    version: 1,
    inbound: {
      ses_message_id: 'local-q1',
      received_at: now,
      envelope_from: 'customer@outside.example',
      envelope_recipient: s.peer.address,
      routed_to: s.peer.address,
      dedupe_key: 'k',
      canonical: { from: 'customer@outside.example', to: [s.peer.address], cc: [], reply_to: [] },
      parse: 'parsed',
      threaded_by: 'new',
      text: `Hello,   it has been\n a week. ${'x'.repeat(400)}`,
      html: '<p>Hello</p>',
      headers: [{ name: 'Auto-Submitted', value: 'auto-replied' }],
      attachments: [
        { filename: 'invoice.exe', content_type: 'application/x-msdownload', size: 12, risky: 'executable' },
      ],
      verdicts: { spf: 'PASS', dkim: 'GRAY', dmarc: 'PASS', spam: 'PASS', virus: 'PASS' },
      auto: 'auto_submitted',
    },
  };
  await storeMessage(s.deps.db, record, now);
  return id;
}

/** `raw` received for the peer the way SES's S3 action hands it over, through ingest. */
async function ingest(s: TestStack, raw: string): Promise<string> {
  const sesId = `ses-read-${s.deps.newId()}`;
  const key = `${INBOUND_RAW_PREFIX}${sesId}`;
  await s.deps.blobs.put(key, new TextEncoder().encode(raw), {});
  const at = new Date(s.deps.clock()).toISOString();
  const report = await ingestNotification(portsFor(s.deps, 'inbound-ingest'), {
    notificationType: 'Received',
    mail: {
      timestamp: at,
      source: 'customer@outside.example',
      messageId: sesId,
      destination: [s.peer.address],
    },
    receipt: {
      timestamp: at,
      recipients: [s.peer.address],
      spfVerdict: { status: 'PASS' },
      dkimVerdict: { status: 'GRAY' },
      action: { type: 'S3', bucketName: 'local', objectKey: key },
    },
  });
  expect(report.stored).toHaveLength(1);
  return report.stored[0];
}

describe('reading received mail through the API', () => {
  let s: TestStack;
  let loopbackId: string;
  let receivedId: string;
  let sentId: string;
  let ingestedId: string;
  beforeAll(async () => {
    s = await stack();
    const sent = await s.send({ to: [s.peer.address], subject: 'Hello peer', text: 'hi there' });
    expect(sent.status).toBe(202);
    sentId = sent.body.id;
    await s.settle();
    const inbox = await s.eventually(async () => {
      const m = await s.mailbox(s.peer.id, 'inbound');
      return m.length > 0 && m;
    });
    loopbackId = inbox[0].id;
    receivedId = await storeReceived(s);
    ingestedId = await ingest(s, RAW.replace('To: agent', `To: ${s.peer.address}`));
  });

  it('lists only inbound messages with direction=inbound, bodies left out', async () => {
    const res = await s.call('GET', `/v1/identities/${s.peer.id}/messages`, {
      query: { direction: 'inbound' },
    });
    expect(res.status).toBe(200);
    const ids = res.body.data.map((m: { id: string }) => m.id);
    expect(ids).toEqual(expect.arrayContaining([loopbackId, receivedId, ingestedId]));
    expect(res.body.data.every((m: { direction: string }) => m.direction === 'inbound')).toBe(true);
    const received = res.body.data.find((m: { id: string }) => m.id === receivedId);
    expect(received).toMatchObject({ text: null, html: null, extracted_text: null, body_omitted: true });
    expect(received.snippet).toMatch(/^Hello, it has been a week\. x+$/);
    expect(received.snippet).toHaveLength(200);
    expect(received.inbound).not.toHaveProperty('text');
    const outbound = await s.call('GET', `/v1/identities/${s.agent.id}/messages`, {
      query: { direction: 'inbound' },
    });
    expect(outbound.body.data.map((m: { id: string }) => m.id)).not.toContain(sentId);
  });

  it('shows the fields ingest stored on one received message', async () => {
    const res = await s.call('GET', `/v1/identities/${s.peer.id}/messages/${receivedId}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: receivedId,
      direction: 'inbound',
      status: 'received',
      from: { address: 'Customer@Outside.example', name: 'A Customer' },
      flags: ['auto_reply'],
      inbound: {
        envelope_from: 'customer@outside.example',
        routed_to: s.peer.address,
        canonical: { from: 'customer@outside.example' },
        parse: 'parsed',
        threaded_by: 'new',
        headers: [{ name: 'Auto-Submitted', value: 'auto-replied' }],
        verdicts: { spf: 'PASS', dkim: 'GRAY', dmarc: 'PASS', spam: 'PASS', virus: 'PASS' },
        auto: 'auto_submitted',
        dsn_unmatched: false,
      },
      html: '<p>Hello</p>',
      attachments: [
        {
          filename: 'invoice.exe',
          content_type: 'application/x-msdownload',
          size: 12,
          risky: true,
          risk: 'executable',
        },
      ],
      body_omitted: false,
      body_withheld: null,
    });
    expect(res.body.text).toMatch(/^Hello, {3}it has been\n a week\./);
    expect(res.body.inbound).not.toHaveProperty('attachments');
    expect(res.body).not.toHaveProperty('deliveries');
    expect(res.body.inbound).not.toHaveProperty('dedupe_key');
    const sent = await s.call('GET', `/v1/identities/${s.agent.id}/messages/${sentId}`);
    expect(sent.body.inbound).toBeNull();
    // The same fields, both directions: what the agent sent beside what came back.
    expect(sent.body).toMatchObject({
      text: 'hi there',
      extracted_text: 'hi there',
      snippet: 'hi there',
      html: null,
    });
  });

  it('serves the stored original of a received message byte for byte', async () => {
    const res = await getRaw(s, s.peer.id, receivedId);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('message/rfc822');
    expect(res.headers['content-disposition']).toBe(`attachment; filename="${receivedId}.eml"`);
    expect(res.body.toString('utf8')).toBe(RAW);
  });

  it('shows and serves a message as ingest stored it', async () => {
    const res = await s.call('GET', `/v1/identities/${s.peer.id}/messages/${ingestedId}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      direction: 'inbound',
      subject: 'Where is my order?',
      rfc_message_id: '<q-1@outside.example>',
      inbound: {
        envelope_from: 'customer@outside.example',
        routed_to: s.peer.address,
        canonical: { from: 'customer@outside.example', to: [s.peer.address] },
        parse: 'parsed',
        verdicts: { spf: 'PASS', dkim: 'GRAY' },
        dsn_unmatched: false,
      },
    });
    expect(res.body.text).toContain('Hello, it has been a week.');
    const raw = await getRaw(s, s.peer.id, ingestedId);
    expect(raw.status).toBe(200);
    expect(raw.body.toString('utf8')).toBe(RAW.replace('To: agent', `To: ${s.peer.address}`));
  });

  it('serves the MIME an outbound message was sent with, and the loopback copy of it', async () => {
    const sent = (await s.message(s.agent.id, sentId))!;
    const stored = (await s.deps.blobs.get(sent.raw_key))!.body;
    const out = await getRaw(s, s.agent.id, sentId);
    expect(out.status).toBe(200);
    expect(Buffer.compare(out.body, Buffer.from(stored))).toBe(0);
    expect(out.body.toString('utf8')).toContain('Subject: Hello peer');
    const copy = await getRaw(s, s.peer.id, loopbackId);
    expect(Buffer.compare(copy.body, Buffer.from(stored))).toBe(0);
  });

  it('answers 404 for another identity’s message, another tenant’s key, an unknown id', async () => {
    // The message exists, in the peer's mailbox: through the agent's identity it is not found.
    expect((await getRaw(s, s.agent.id, receivedId)).status).toBe(404);
    expect((await s.call('GET', `/v1/identities/${s.agent.id}/messages/${receivedId}`)).status).toBe(404);
    const other = await seedTestTenant(s.deps);
    const foreign = await getRaw(s, s.peer.id, receivedId, other.apiKey);
    expect(foreign.status).toBe(404);
    expect(JSON.parse(foreign.body.toString('utf8')).error.code).toBe('identity_not_found');
    const unknown = await getRaw(s, s.peer.id, `msg_${s.deps.newId()}`);
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.body.toString('utf8')).error.code).toBe('message_not_found');
    expect((await getRaw(s, s.peer.id, 'not-an-id')).status).toBe(404);
  });
});
