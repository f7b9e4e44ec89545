import { createHmac } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../functions/local/dynamodb-local.ts';
import { listening, type StartedStack, startLocalStack } from '../support/start.ts';
import { openStream } from '../support/stream.ts';

/**
 * `npm start` as a newcomer runs it: the stack comes up, writes .pmail/local.json, serves the
 * first-email curl, keeps its data across a restart, and takes DynamoDB Local down with it.
 */
const stateDir = mkdtempSync(join(tmpdir(), 'pmail-e2e-'));
const stacks: StartedStack[] = [];

afterAll(() => {
  for (const s of stacks) s.child.kill('SIGKILL');
});

/** `npm start` on this test's data and ports, the same at a restart. */
async function startStack(port: number, sesPort: number) {
  const stack = await startLocalStack({}, { stateDir, port, sesPort });
  stacks.push(stack);
  return stack;
}

/** The port of a process that has exited closes within moments; poll briefly rather than race it. */
async function portOpen(port: number): Promise<boolean> {
  for (let i = 0; i < 20; i++) {
    if (!(await listening(port))) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
  return true;
}

describe('npm start', () => {
  it('brings the stack up, sends the first email, survives a restart with its webhook and its event stream, and stops DynamoDB Local', async () => {
    const port = await freePort();
    const sesPort = await freePort();
    const first = await startStack(port, sesPort);
    const localFile = join(stateDir, 'local.json');
    expect(existsSync(localFile)).toBe(true);
    const local = JSON.parse(readFileSync(localFile, 'utf8'));
    expect(local).toMatchObject({
      api: `http://127.0.0.1:${port}`,
      stream: `ws://127.0.0.1:${port}/v1/stream`,
      tenantId: expect.stringMatching(/^ten_/),
    });
    expect(first.output()).toContain(
      `Event stream (WebSocket, same key as "Authorization: Bearer"): ${local.stream}`,
    );
    expect(local.identities.map((i: { name: string }) => i.name)).toEqual(['agent', 'peer']);
    expect(first.output()).toContain(local.apiKey);
    expect(first.output()).toContain(
      `curl -sS -X POST ${local.api}/v1/identities/${local.identities[0].id}/messages`,
    );

    const [agent, peer] = local.identities;
    const auth = { authorization: `Bearer ${local.apiKey}` };

    // A webhook receiver, registered before the send: its delivery must survive the restart too.
    const received: { headers: Record<string, string>; body: string }[] = [];
    const receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (d) => {
        body += d;
      });
      req.on('end', () => {
        received.push({ headers: req.headers as Record<string, string>, body });
        res.end();
      });
    });
    const hookPort = await freePort();
    await new Promise<void>((r) => receiver.listen(hookPort, '127.0.0.1', r));
    const hook = await fetch(`${local.api}/v1/webhooks`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ url: `http://127.0.0.1:${hookPort}/hook`, event_types: ['message.delivered'] }),
    });
    expect(hook.status).toBe(201);
    const { secret } = (await hook.json()) as { secret: string };
    // A stream client, open before the send: across the restart it must get every event once.
    const live = await openStream(local.stream, { key: local.apiKey });
    const sent = await fetch(`${local.api}/v1/identities/${agent.id}/messages`, {
      method: 'POST',
      headers: { ...auth, 'idempotency-key': 'first-email', 'content-type': 'application/json' },
      body: JSON.stringify({ to: [peer.address], subject: 'Hello', text: 'My first pmail.' }),
    });
    expect(sent.status).toBe(202);
    const message = (await sent.json()) as { id: string };

    const inbox = async () =>
      (
        (await (
          await fetch(`${local.api}/v1/identities/${peer.id}/messages?direction=inbound`, { headers: auth })
        ).json()) as { data: { subject: string }[] }
      ).data;
    const deadline = Date.now() + 20_000;
    while ((await inbox()).length === 0 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 200));
    expect((await inbox()).map((m) => m.subject)).toEqual(['Hello']);

    // Live mode: the live tenant's send leaves through the SES adapter to the local SES.
    expect(local.live.ses).toBe(`http://127.0.0.1:${sesPort}`);
    const liveSent = await fetch(`${local.api}/v1/identities/${local.live.identity.id}/messages`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${local.live.apiKey}`,
        'idempotency-key': 'first-live',
        'content-type': 'application/json',
      },
      body: JSON.stringify({
        to: ['someone@example.net'],
        subject: 'Through SES',
        text: 'Sent through SES.',
      }),
    });
    expect(liveSent.status).toBe(202);
    const liveId = ((await liveSent.json()) as { id: string }).id;
    const liveStatus = async () =>
      (await (
        await fetch(`${local.api}/v1/identities/${local.live.identity.id}/messages/${liveId}`, {
          headers: { authorization: `Bearer ${local.live.apiKey}` },
        })
      ).json()) as { status: string };
    const liveDeadline = Date.now() + 20_000;
    while ((await liveStatus()).status === 'queued' && Date.now() < liveDeadline)
      await new Promise((r) => setTimeout(r, 200));
    expect((await liveStatus()).status).toBe('submitted');
    const store = (await (await fetch(`${local.live.ses}/store`)).json()) as {
      emails: { subject: string; destination: { to: string[] } }[];
    };
    expect(store.emails.filter((e) => e.subject === 'Through SES').map((e) => e.destination.to)).toEqual([
      ['someone@example.net'],
    ]);

    // Stop before the delivered event (queued ~1 s after the send) is applied: it must survive.
    await first.stop();
    expect((await live.closed).code).toBe(1001);
    const seen = live.events().map((e) => e.id);
    expect(await portOpen(first.dynamoPort)).toBe(false);
    // On exit it prints the metrics it counted (the names production writes as EMF): the first
    // email and the live one.
    expect(first.output()).toMatch(/metrics since start[^\n]*\n( {2}.+\n)* {2}sends_accepted 2\n/);
    expect(first.output()).toMatch(/ {2}attempts\{transport=ses,outcome=accepted\} 1\n/);

    const second = await startStack(port, sesPort);
    try {
      expect(JSON.parse(readFileSync(localFile, 'utf8')).apiKey).toBe(local.apiKey);
      const status = async () =>
        (
          (await (
            await fetch(`${local.api}/v1/identities/${agent.id}/messages/${message.id}`, { headers: auth })
          ).json()) as { status: string }
        ).status;
      const until = Date.now() + 20_000;
      while ((await status()) !== 'delivered' && Date.now() < until)
        await new Promise((r) => setTimeout(r, 200));
      expect(await status()).toBe('delivered');

      // The stream client resumes after its last event and gets the rest — what the restart held
      // up and a send after it: every event of the tenant's feed once, in order.
      const resumed = await openStream(local.stream, {
        key: local.apiKey,
        ...(seen.length ? { query: { after: seen.at(-1)! } } : {}),
      });
      const again = await fetch(`${local.api}/v1/identities/${agent.id}/messages`, {
        method: 'POST',
        headers: { ...auth, 'idempotency-key': 'after-restart', 'content-type': 'application/json' },
        body: JSON.stringify({ to: [peer.address], subject: 'Again', text: 'After the restart.' }),
      });
      const againId = ((await again.json()) as { id: string }).id;
      const feed = async () =>
        (
          (await (await fetch(`${local.api}/v1/events?limit=100`, { headers: auth })).json()) as {
            data: { id: string; type: string; data: { message_id?: string } }[];
          }
        ).data;
      const feedUntil = Date.now() + 20_000;
      while (!(await feed()).some((e) => e.type === 'message.delivered' && e.data.message_id === againId)) {
        if (Date.now() > feedUntil) throw new Error('the second email was not delivered');
        await new Promise((r) => setTimeout(r, 200));
      }
      const all = (await feed()).map((e) => e.id);
      await resumed.waitForEvents(all.length - seen.length, 20_000);
      const both = [...live.events(), ...resumed.events()];
      expect(both.map((e) => e.id)).toEqual(all);
      for (const id of [message.id, againId])
        expect(both.filter((e) => e.type === 'message.delivered' && e.data.message_id === id)).toHaveLength(
          1,
        );
      await resumed.close();

      // The delivered event reaches the receiver, signed as Standard Webhooks says.
      const hookUntil = Date.now() + 20_000;
      const mine = () => received.filter((r) => JSON.parse(r.body).data?.message_id === message.id);
      while (mine().length === 0 && Date.now() < hookUntil) await new Promise((r) => setTimeout(r, 200));
      const [delivery] = mine();
      expect(JSON.parse(delivery.body)).toMatchObject({
        type: 'message.delivered',
        tenant_id: local.tenantId,
      });
      const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
      const signed = `${delivery.headers['webhook-id']}.${delivery.headers['webhook-timestamp']}.${delivery.body}`;
      expect(delivery.headers['webhook-signature']).toBe(
        `v1,${createHmac('sha256', key).update(signed).digest('base64')}`,
      );
    } finally {
      await second.stop();
      receiver.close();
    }
    expect(await portOpen(second.dynamoPort)).toBe(false);
  }, 120_000);
});
