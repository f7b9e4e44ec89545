import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { permissionsOf } from '../../functions/core/keys.ts';
import { searchShard } from '../../functions/core/search-text.ts';
import { ingestNotification } from '../../functions/inbound/ingest.ts';
import { INBOUND_RAW_PREFIX } from '../../functions/inbound/notification.ts';
import { receivedNotification } from '../../functions/inbound/received.ts';
import { type DepsFor, portsFor } from '../../functions/lambda-ports.ts';
import { type Call, faults, writes } from '../support/faults.ts';
import { type TestStack, testStack } from '../support/local.ts';

/**
 * Full-text search through the HTTP API on DynamoDB Local (docs/guides/receiving.md › Search,
 * docs/design/search.md › Full text): received mail through the ingest as the queue calls it, sent
 * mail through the send API, held mail under a hold policy, the index's writes made to crash and to
 * lose their answers.
 */
let s: TestStack;
let deps: DepsFor<'inbound-ingest'>;
/** The agent's own identity key (no messages:hold). */
let agentKey: string;
const customer = 'delivered@simulator.invalid';
let seq = 0;
const fresh = () => `${Date.now().toString(36)}${++seq}`;
/** A word no other message of the run holds. */
const rare = () => `zq${randomBytes(4).toString('hex').replace(/\d/g, 'x')}`;

beforeAll(async () => {
  s = await testStack();
  deps = portsFor(s.deps, 'inbound-ingest');
  const minted = await s.call('POST', '/v1/keys', {
    body: {
      name: 'agent',
      level: 'identity',
      identity_id: s.agent.id,
      permissions: permissionsOf('identity'),
    },
  });
  expect(minted.status).toBe(201);
  agentKey = minted.body.secret;
}, 60_000);

afterAll(async () => {
  await s?.settle();
  await s?.close();
});

interface Mail {
  subject: string;
  text: string;
  from?: string;
  to?: string;
  attachment?: string;
}

function mime(m: Mail): string {
  const head = [
    `From: ${m.from ?? 'Ann Lee <ann@brightwell.example>'}`,
    `To: ${m.to ?? s.agent.address}`,
    `Subject: ${m.subject}`,
    `Message-ID: <${fresh()}@brightwell.example>`,
    'Date: Mon, 07 Dec 2026 10:00:00 +0000',
  ];
  if (!m.attachment) return [...head, 'Content-Type: text/plain; charset=utf-8', '', m.text, ''].join('\r\n');
  return [
    ...head,
    'MIME-Version: 1.0',
    'Content-Type: multipart/mixed; boundary="b1"',
    '',
    '--b1',
    'Content-Type: text/plain; charset=utf-8',
    '',
    m.text,
    '--b1',
    `Content-Type: application/pdf; name="${m.attachment}"`,
    `Content-Disposition: attachment; filename="${m.attachment}"`,
    'Content-Transfer-Encoding: base64',
    '',
    'JVBERi0xLjQK',
    '--b1--',
    '',
  ].join('\r\n');
}

/** The copy where SES's S3 action stores it, and its notification. */
async function arrived(m: Mail, dmarc: 'PASS' | 'GRAY' = 'PASS') {
  const id = `search-${fresh()}`;
  await s.deps.blobs.put(`${INBOUND_RAW_PREFIX}${id}`, new TextEncoder().encode(mime(m)), {});
  const to = m.to ?? s.agent.address;
  return receivedNotification({
    id,
    at: Date.now(),
    source: 'ann@brightwell.example',
    destination: [to],
    recipients: [to],
    verdicts: { dmarc, spf: dmarc, dkim: dmarc },
  });
}

/** Receive `m` through the ingest: its message id. */
async function receive(m: Mail, dmarc: 'PASS' | 'GRAY' = 'PASS'): Promise<string> {
  const report = await ingestNotification(deps, await arrived(m, dmarc));
  expect(report.stored).toHaveLength(1);
  return report.stored[0]!;
}

interface Hit {
  id: string;
  identity_id: string;
  highlight: { field: string; text: string; matches: { start: number; end: number }[] };
}

async function search(query: Record<string, string>, o: { key?: string; identityId?: string } = {}) {
  const r = await s.call('GET', `/v1/identities/${o.identityId ?? s.agent.id}/messages`, {
    query,
    ...(o.key ? { key: o.key } : {}),
  });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body as { data: Hit[]; next_cursor: string | null };
}
const found = async (q: string, extra: Record<string, string> = {}, key?: string) =>
  (await search({ q, ...extra }, { key })).data.map((m) => m.id);

/** The message's search document, read directly. */
const doc = async (identityId: string, messageId: string) =>
  (
    await s.deps.db.get({
      TableName: s.deps.db.table,
      Key: { pk: `I#${identityId}#Q#${searchShard(messageId)}`, sk: messageId },
      ConsistentRead: true,
    })
  ).Item;

/** The document's put (its key as a value, or as DynamoDB's wire form inside the retry policy). */
const docPut = (c: Call) =>
  c.command === 'PutItem' && JSON.stringify((c.input.Item as { pk?: unknown })?.pk).includes('#Q#');

describe('GET …/messages?q=', () => {
  it('finds a received message by a word of its body, and not a message without it; the highlight points at the word', async () => {
    const word = rare();
    const hit = await receive({
      subject: 'Quarterly numbers',
      text: `The ${word} report is attached.\nRegards`,
    });
    const miss = await receive({ subject: 'Quarterly numbers', text: 'Nothing to report here.' });
    const page = await search({ q: word });
    expect(page.data.map((m) => m.id)).toEqual([hit]);
    expect(page.data.map((m) => m.id)).not.toContain(miss);
    const h = page.data[0]!.highlight;
    expect(h.field).toBe('text');
    expect(h.matches).toHaveLength(1);
    expect(h.text.slice(h.matches[0]!.start, h.matches[0]!.end)).toBe(word);
    expect(h.text).not.toContain('\n');
  });

  it('is case- and accent-insensitive: CAFÉ finds café, and the highlight spans the word as written', async () => {
    const word = rare();
    const id = await receive({
      subject: `Rendez-vous ${word}`,
      text: 'On se voit au café demain, à dix heures.',
    });
    expect(await found(`CAFÉ ${word}`)).toEqual([id]);
    expect(await found(`cafe ${word.toUpperCase()}`)).toEqual([id]);
    const [hit] = (await search({ q: `café ${word}` })).data;
    // The subject matched first (it holds the rare word).
    expect(hit!.highlight.field).toBe('subject');
    const body = (await search({ q: `"au CAFE demain" ${word}` })).data[0]!;
    expect(body.id).toBe(id);
  });

  it('matches a phrase only where its words are adjacent and in order', async () => {
    const tag = rare();
    const inOrder = await receive({ subject: tag, text: 'A red apple and a green pear.' });
    const apart = await receive({ subject: tag, text: 'A green apple and a red pear.' });
    expect(await found(`"red apple" ${tag}`)).toEqual([inOrder]);
    expect((await found(`red apple ${tag}`)).sort()).toEqual([inOrder, apart].sort());
    // A term with punctuation inside is the phrase of its words.
    expect((await found(`brightwell.example ${tag}`)).sort()).toEqual([inOrder, apart].sort());
    expect(await found(`example.brightwell ${tag}`)).toEqual([]);
  });

  it('finds by participant and attachment name, highlighting that field', async () => {
    const tag = rare();
    const id = await receive({
      subject: 'Papers',
      text: `see attached ${tag}`,
      from: 'Zoë Brightwell <zoe@ledger.example>',
      attachment: `invoice-${tag}.pdf`,
    });
    const byName = (await search({ q: `zoe ${tag}` })).data;
    expect(byName.map((m) => m.id)).toEqual([id]);
    expect(byName[0]!.highlight.field).toBe('from');
    const h = byName[0]!.highlight;
    expect(h.text.slice(h.matches[0]!.start, h.matches[0]!.end)).toBe('Zoë');
    const file = (await search({ q: `"invoice ${tag} pdf"` })).data;
    expect(file.map((m) => m.id)).toEqual([id]);
    expect(file[0]!.highlight.field).toBe('attachment');
  });

  it('combines q with label, from and since, and pages with the cursor', async () => {
    const tag = rare();
    const a = await receive({ subject: 'one', text: `status ${tag}`, from: 'ops@first.example' });
    const b = await receive({ subject: 'two', text: `status ${tag}`, from: 'ops@second.example' });
    const c = await receive({ subject: 'three', text: `status ${tag}`, from: 'ops@second.example' });
    const labelled = await s.call('POST', `/v1/identities/${s.agent.id}/messages/${b}/labels`, {
      body: { add: ['needs-reply'] },
    });
    expect(labelled.status).toBe(200);
    expect(await found(tag)).toEqual([c, b, a]);
    expect(await found(tag, { label: 'needs-reply' })).toEqual([b]);
    expect(await found(tag, { from: 'second.example' })).toEqual([c, b]);
    expect(await found(tag, { since: new Date(Date.now() + 60_000).toISOString() })).toEqual([]);
    expect(
      await found(tag, {
        since: new Date(Date.now()).toISOString(),
        until: new Date(Date.now() - 600_000).toISOString(),
      }),
    ).toEqual([]);
    expect(
      await found(tag, { since: new Date(Date.now() - 600_000).toISOString(), from: 'first.example' }),
    ).toEqual([a]);
    const first = await search({ q: tag, limit: '2' });
    expect(first.data.map((m) => m.id)).toEqual([c, b]);
    expect(first.next_cursor).not.toBeNull();
    const second = await search({ q: tag, limit: '2', cursor: first.next_cursor! });
    expect(second.data.map((m) => m.id)).toEqual([a]);
    expect(second.next_cursor).toBeNull();
  });

  it("finds a sent message by its text; a transactional template's text is never indexed", async () => {
    const word = rare();
    const sent = await s.send({ to: [customer], subject: 'Your order', text: `Order ${word} ships today.` });
    expect(sent.status).toBe(202);
    expect(await found(word, { direction: 'outbound' })).toEqual([sent.body.id]);
    const name = `signin_${fresh()}`;
    const tpl = await s.call('POST', `/v1/tenants/${s.tenantId}/templates`, {
      body: {
        name,
        subject: 'Sign in',
        text: 'Your sign-in code is {{code}}.',
        variables_schema: { type: 'object', properties: { code: { type: 'string' } }, required: ['code'] },
        category: 'transactional',
        kind: 'transactional',
      },
    });
    expect(tpl.status).toBe(201);
    const code = rare();
    const withCode = await s.send({ template: name, variables: { code }, to: [customer] });
    expect(withCode.status).toBe(202);
    await s.settle();
    expect(await found(code)).toEqual([]);
    expect(await doc(s.agent.id, withCode.body.id)).toBeUndefined();
    expect(await doc(s.agent.id, sent.body.id)).toBeDefined();
  });

  it('never finds held mail with a key without messages:hold, finds it with one; a deleted message leaves with its document', async () => {
    const policy = (hold: string) =>
      s.call('PATCH', `/v1/identities/${s.agent.id}`, { body: { receive_policy: { hold } } });
    expect((await policy('unauthenticated')).status).toBe(200);
    const word = rare();
    const id = await receive({ subject: 'Urgent', text: `Wire the ${word} today` }, 'GRAY');
    expect((await policy('none')).status).toBe(200);
    expect((await s.message(s.agent.id, id))!.held).toBeDefined();
    expect(await found(word, {}, agentKey)).toEqual([]);
    expect(await found(word)).toEqual([id]);
    // Another held message, released: the agent's key finds it from then on.
    expect((await policy('unauthenticated')).status).toBe(200);
    const other = rare();
    const released = await receive({ subject: 'Later', text: `Invoice ${other}` }, 'GRAY');
    expect((await policy('none')).status).toBe(200);
    expect(await found(other, {}, agentKey)).toEqual([]);
    const release = await s.call('POST', `/v1/identities/${s.agent.id}/messages/${released}/release`);
    expect(release.status).toBe(200);
    expect(await found(other, {}, agentKey)).toEqual([released]);
    const deleted = await s.call('DELETE', `/v1/identities/${s.agent.id}/messages/${id}`);
    expect(deleted.status).toBe(204);
    expect(await found(word)).toEqual([]);
    expect(await doc(s.agent.id, id)).toBeUndefined();
  });

  it("never finds another identity's or another tenant's mail", async () => {
    const word = rare();
    const peers = await receive({ subject: 'For the peer', text: `secret ${word}`, to: s.peer.address });
    expect(await found(word)).toEqual([]);
    expect((await search({ q: word }, { identityId: s.peer.id })).data.map((m) => m.id)).toEqual([peers]);
    const other = await s.call('GET', `/v1/identities/${s.peer.id}/messages`, {
      key: agentKey,
      query: { q: word },
    });
    expect([403, 404]).toContain(other.status);
    const plain = await s.call('GET', `/v1/identities/${s.peer.id}/messages`, { key: agentKey });
    expect(other.status).toBe(plain.status);
  });

  it('refuses a q outside its limits with 400 invalid_query', async () => {
    for (const q of [
      'x'.repeat(257),
      '',
      '"" ...',
      Array.from({ length: 17 }, (_, i) => `w${i}`).join(' '),
    ]) {
      const r = await s.call('GET', `/v1/identities/${s.agent.id}/messages`, { query: { q } });
      expect(r.status, q).toBe(400);
      expect(r.body.error.code).toBe('invalid_query');
    }
    const after = await s.call('GET', `/v1/identities/${s.agent.id}/messages`, {
      query: { q: 'x', after: 'msg_01jd0000000000000000000000' },
    });
    expect(after.status).toBe(400);
  });
});

describe('GET …/threads?q=', () => {
  it('lists the threads holding a match, newest matching message first, with its highlight; a thread filter applies', async () => {
    const tag = rare();
    const older = await receive({ subject: `Quote ${tag}`, text: 'first quote' });
    const newer = await receive({ subject: `Order ${tag}`, text: 'the order' });
    const olderThread = (await s.message(s.agent.id, older))!.thread_id;
    const newerThread = (await s.message(s.agent.id, newer))!.thread_id;
    const list = async (query: Record<string, string>) => {
      const r = await s.call('GET', `/v1/identities/${s.agent.id}/threads`, { query });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return r.body as { data: { id: string; highlight: Hit['highlight'] }[]; next_cursor: string | null };
    };
    const page = await list({ q: tag });
    expect(page.data.map((t) => t.id)).toEqual([newerThread, olderThread]);
    expect(page.data[0]!.highlight).toMatchObject({ field: 'subject', text: `Order ${tag}` });
    expect((await list({ q: `quote ${tag}` })).data.map((t) => t.id)).toEqual([olderThread]);
    const labelled = await s.call('POST', `/v1/identities/${s.agent.id}/threads/${olderThread}/labels`, {
      body: { add: ['escalated'] },
    });
    expect(labelled.status).toBe(200);
    expect((await list({ q: tag, label: 'escalated' })).data.map((t) => t.id)).toEqual([olderThread]);
    const first = await list({ q: tag, limit: '1' });
    expect(first.data.map((t) => t.id)).toEqual([newerThread]);
    const second = await list({ q: tag, limit: '1', cursor: first.next_cursor! });
    expect(second.data.map((t) => t.id)).toEqual([olderThread]);
    const bad = await s.call('GET', `/v1/identities/${s.agent.id}/threads`, { query: { q: '"" !' } });
    expect(bad.body.error.code).toBe('invalid_query');
  });
});

describe('the search document after a crash or a lost answer', () => {
  it('an ingest that dies between its commit and its document is repaired by the queue bringing the copy back', async () => {
    const word = rare();
    const n = await arrived({ subject: 'Crash', text: `after the ${word} commit` });
    const f = faults(s.deps.db);
    f.crashBefore(docPut);
    await expect(ingestNotification(deps, n)).rejects.toThrow();
    f.revive();
    expect(await found(word)).toEqual([]);
    const again = await ingestNotification(deps, n);
    expect(again).toMatchObject({ stored: [], duplicates: 1 });
    const hits = await found(word);
    expect(hits).toHaveLength(1);
    expect(await doc(s.agent.id, hits[0]!)).toBeDefined();
  });

  it('a send whose writer dies right after its commit is found all the same (its document went first)', async () => {
    const word = rare();
    const f = faults(s.deps.db);
    f.crashAfter(writes.message);
    const sent = await s.send({
      to: [customer],
      subject: 'Died after',
      text: `committed ${word} then stopped`,
    });
    expect(sent.status).toBeGreaterThanOrEqual(500);
    f.revive();
    const hits = await found(word, { direction: 'outbound' });
    expect(hits).toHaveLength(1);
    expect(await doc(s.agent.id, hits[0]!)).toBeDefined();
  });

  it('a document whose send never commits names no message and is never a result', async () => {
    const word = rare();
    const f = faults(s.deps.db);
    f.crashBefore(writes.message);
    const sent = await s.send({ to: [customer], subject: 'Never', text: `never ${word} committed` });
    expect(sent.status).toBeGreaterThanOrEqual(500);
    f.revive();
    expect(await found(word, { direction: 'outbound' })).toEqual([]);
  });

  it('a document put whose answer is lost is sent again (received and sent mail)', async () => {
    const word = rare();
    const f = faults(s.deps.db);
    const inbound = f.loseAnswerInRetry(docPut);
    const id = await receive({ subject: 'Lost', text: `lost ${word} answer` });
    expect(f.sent(inbound)).toBeGreaterThanOrEqual(2);
    expect(await found(word)).toEqual([id]);
    const outbound = f.loseAnswerInRetry(docPut);
    const sent = await s.send({ to: [customer], subject: 'Lost too', text: `sent ${word}` });
    expect(sent.status).toBe(202);
    expect(f.sent(outbound)).toBeGreaterThanOrEqual(2);
    expect(await found(word, { direction: 'outbound' })).toEqual([sent.body.id]);
  });
});

describe('GET /v1/tenants/{tenant_id}/messages?q=', () => {
  it("searches the tenant's identities together, newest first, each item with its identity", async () => {
    const word = rare();
    const mine = await receive({ subject: 'Tenant wide', text: `both ${word}` });
    const peers = await receive({ subject: 'Tenant wide', text: `both ${word}`, to: s.peer.address });
    const r = await s.call('GET', `/v1/tenants/${s.tenantId}/messages`, { query: { q: word } });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data.map((m: Hit) => [m.id, m.identity_id])).toEqual([
      [peers, s.peer.id],
      [mine, s.agent.id],
    ]);
    expect(r.body.data[0].highlight.field).toBe('text');
  });

  it('refuses an identity key (403), another tenant (404) and a missing q (400)', async () => {
    const byAgent = await s.call('GET', `/v1/tenants/${s.tenantId}/messages`, {
      key: agentKey,
      query: { q: 'x' },
    });
    expect(byAgent.status).toBe(403);
    const other = await testStack();
    try {
      const foreign = await other.call('GET', `/v1/tenants/${s.tenantId}/messages`, { query: { q: 'x' } });
      expect(foreign.status).toBe(404);
      expect(foreign.body.error.code).toBe('tenant_not_found');
    } finally {
      await other.close();
    }
    const none = await s.call('GET', `/v1/tenants/${s.tenantId}/messages`);
    expect(none.status).toBe(400);
  });

  it("leaves a deleted identity's mail out", async () => {
    const word = rare();
    const mine = await receive({ subject: 'Stays', text: `kept ${word}` });
    await receive({ subject: 'Goes', text: `kept ${word}`, to: s.peer.address });
    const tenantWide = async () =>
      (await s.call('GET', `/v1/tenants/${s.tenantId}/messages`, { query: { q: word } })).body.data.map(
        (m: Hit) => m.id,
      );
    expect(await tenantWide()).toHaveLength(2);
    expect((await s.call('DELETE', `/v1/identities/${s.peer.id}`)).status).toBe(200);
    expect(await tenantWide()).toEqual([mine]);
  });
});
