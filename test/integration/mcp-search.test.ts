import { randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpServer } from '../../functions/local/http-server.ts';
import { silentLogger } from '../../functions/log.ts';
import { type TestStack, testStack } from '../support/local.ts';

/**
 * `search_messages` (docs/guides/mcp.md › Searching mail) through the official SDK's client over
 * Streamable HTTP: mail arrives through the local MX, and the tool finds it by a word of its body,
 * per identity or, for a tenant key without identity_id, across the tenant; a bad query is the
 * API's invalid_query as a tool error. The fence around a hit's hostile text: mcp-fence.test.ts.
 */
const word = (prefix: string) => `${prefix}${randomBytes(4).toString('hex')}`;
const INVOICE = word('brightwell');
const OTHER = word('tuesday');
const PEERS = word('harbour');

let s: TestStack;
let url: string;
let client: Client;
const closers: (() => Promise<unknown>)[] = [];

async function connect(key: string): Promise<Client> {
  const c = new Client({ name: 'pmail-search-agent', version: '1.0.0' });
  await c.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    }),
  );
  closers.push(() => c.close());
  return c;
}

/** A mail through the local MX. */
async function mail(to: string, subject: string, text: string): Promise<void> {
  const info = await nodemailer
    .createTransport({ host: s.mx!.host, port: s.mx!.port, secure: false, ignoreTLS: true })
    .sendMail({ from: { name: 'Ann Brightwell', address: 'ann@simulator.invalid' }, to, subject, text });
  expect(info.response).toMatch(/^250 /);
}

interface Hit {
  id: string;
  identity_id?: string;
  subject: string;
  highlight: { field: string; text: string; matches: { start: number; end: number }[] };
}
type Result = Awaited<ReturnType<Client['callTool']>>;
const hitsOf = (res: Result) => (res.structuredContent as { data: Hit[] }).data;

/** search_messages until it finds `n` hits (the index may trail the message's commit). */
async function found(c: Client, args: Record<string, unknown>, n = 1): Promise<Result> {
  return s.eventually(async () => {
    const res = await c.callTool({ name: 'search_messages', arguments: args });
    expect(res.isError, JSON.stringify(res.content)).toBeFalsy();
    return hitsOf(res).length >= n && res;
  }, 20_000);
}

beforeAll(async () => {
  s = await testStack({ inbound: { port: 0 }, config: { simEventDelaySeconds: 0 } });
  const http = await startHttpServer(s.groups, { port: 0, log: silentLogger });
  closers.push(http.close);
  url = http.url;
  client = await connect(s.apiKey);
  await mail(s.agent.address, 'March', `Hello,\nthe ${INVOICE} invoice for March is attached.\nAnn`);
  await mail(s.agent.address, 'Lunch', `Lunch on ${OTHER}? No invoice in this one.`);
  await mail(s.peer.address, 'Dock', `The ${PEERS} dock is ready; ${INVOICE} too.`);
}, 60_000);

afterAll(async () => {
  for (const c of closers.reverse()) await c();
  await s?.settle();
  await s?.close();
});

describe('search_messages', () => {
  it('finds a received message by a word of its body, not a message without it, with the match highlighted', async () => {
    const res = await found(client, { identity_id: s.agent.id, q: INVOICE });
    const hits = hitsOf(res);
    expect(hits.map((h) => h.subject)).toEqual(['March']);
    const { highlight } = hits[0];
    expect(['text', 'extracted_text']).toContain(highlight.field);
    expect(highlight.matches.length).toBeGreaterThan(0);
    const [m] = highlight.matches;
    expect(highlight.text.slice(m.start, m.end).toLowerCase()).toBe(INVOICE);
    // Every word must match: the other message has "invoice" but not the word.
    const both = await found(client, { identity_id: s.agent.id, q: `invoice ${OTHER}` });
    expect(hitsOf(both).map((h) => h.subject)).toEqual(['Lunch']);
    // A filter narrows the search: from a domain no hit is from.
    const none = await client.callTool({
      name: 'search_messages',
      arguments: { identity_id: s.agent.id, q: INVOICE, from: 'nowhere.example' },
    });
    expect(hitsOf(none)).toEqual([]);
  });

  it('answers a query over the limits with invalid_query as a tool error', async () => {
    const res = await client.callTool({
      name: 'search_messages',
      arguments: { identity_id: s.agent.id, q: Array.from({ length: 17 }, (_, i) => `w${i}`).join(' ') },
    });
    expect(res.isError).toBe(true);
    expect(res.structuredContent).toMatchObject({ error: { code: 'invalid_query' } });
  });

  it('searches the whole tenant for a tenant key without identity_id, and only its own identity for an identity key', async () => {
    const tenant = await found(client, { q: INVOICE }, 2);
    const hits = hitsOf(tenant);
    expect(hits.map((h) => [h.identity_id, h.subject]).sort()).toEqual(
      [
        [s.agent.id, 'March'],
        [s.peer.id, 'Dock'],
      ].sort(),
    );
    const minted = await s.call('POST', '/v1/keys', {
      body: {
        name: 'searcher',
        level: 'identity',
        tenant_id: s.tenantId,
        identity_id: s.agent.id,
        permissions: ['messages:read'],
      },
    });
    expect(minted.status).toBe(201);
    const reader = await connect(minted.body.secret);
    const own = await found(reader, { q: INVOICE });
    expect(hitsOf(own).map((h) => h.subject)).toEqual(['March']);
    const peers = await reader.callTool({ name: 'search_messages', arguments: { q: PEERS } });
    expect(hitsOf(peers)).toEqual([]);
    const foreign = await reader.callTool({
      name: 'search_messages',
      arguments: { identity_id: s.peer.id, q: PEERS },
    });
    expect(foreign.isError).toBe(true);
  });

  it('says the syntax, the limits and that it is no feed in its description', async () => {
    const { tools } = await client.listTools();
    const search = tools.find((t) => t.name === 'search_messages')!;
    expect(search.inputSchema.required).toEqual(['q']);
    expect(search.description).toMatch(/"quoted phrases"/);
    expect(search.description).toMatch(/256 characters and 16 words/);
    expect(search.description).toMatch(/newest first/);
    expect(search.description).toMatch(/wait_for_message/);
    expect(search._meta?.['pmail/outside_text']).toMatchObject({
      in: 'data[]',
      fields: expect.arrayContaining([expect.stringMatching(/^highlight\.text/)]),
    });
  });
});
