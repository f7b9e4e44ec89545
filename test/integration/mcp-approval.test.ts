import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, describe, expect, it } from 'vitest';
import { PENDING_APPROVAL_NOTE } from '../../functions/api/mcp.api.ts';
import { startHttpServer } from '../../functions/local/http-server.ts';
import { silentLogger } from '../../functions/log.ts';
import { stackPerTest } from '../support/local.ts';

/**
 * The MCP send tools of an identity whose sends wait for a person's approval, driven by the MCP
 * SDK's client over the local HTTP server: the answer says so, before the untrusted content.
 */
const stack = stackPerTest();
const closers: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const c of closers) await c();
});

describe('MCP send tools under require_approval', () => {
  it('send_email and forward answer pending_approval with the note that a person approves', async () => {
    const s = await stack({ seed: { identity: { send_policy: { require_approval: true } } } });
    const http = await startHttpServer(s.groups, { port: 0, log: silentLogger });
    closers.push(http.close);
    const client = new Client({ name: 'pmail-test-agent', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${http.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${s.apiKey}` } },
      }),
    );
    closers.push(() => client.close());
    const sent = (await client.callTool({
      name: 'send_email',
      arguments: {
        identity_id: s.agent.id,
        idempotency_key: 'mcp-approve-1',
        to: [s.peer.address],
        subject: 'Quote',
        text: 'Here is the quote.',
      },
    })) as {
      content: { type: string; text: string }[];
      structuredContent: { id: string; status: string };
      isError?: boolean;
    };
    expect(sent.isError).toBeFalsy();
    expect(sent.structuredContent).toMatchObject({
      status: 'pending_approval',
      attempt: { status: 'pending' },
    });
    expect(sent.content[0].text).toBe(PENDING_APPROVAL_NOTE);
    expect(sent.content.at(-1)!.text).toContain('<untrusted_email_content>');

    const forwarded = (await client.callTool({
      name: 'forward',
      arguments: {
        identity_id: s.agent.id,
        message_id: sent.structuredContent.id,
        idempotency_key: 'mcp-approve-2',
        to: [s.peer.address],
        text: 'FYI',
      },
    })) as { content: { type: string; text: string }[]; structuredContent: { id: string; status: string } };
    expect(forwarded.structuredContent.status).toBe('pending_approval');
    expect(forwarded.content[0].text).toBe(PENDING_APPROVAL_NOTE);
  });
});
