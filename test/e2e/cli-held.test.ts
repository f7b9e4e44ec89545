import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpServer } from '../../functions/local/http-server.ts';
import { silentLogger } from '../../functions/log.ts';
import { runInProcess } from '../support/cli.ts';
import { type TestStack, testStack } from '../support/local.ts';

/**
 * `pmail held list|release|delete` (docs/guides/cli.md › Held mail) against the local stack's HTTP
 * server: mail the local MX held back from the agent, listed with its reason and its subject made
 * safe for a terminal, released (the agent's inbox shows it then) and deleted.
 */
const EMPTY_STATE = mkdtempSync(join(tmpdir(), 'pmail-cli-held-'));
let s: TestStack;
let http: Awaited<ReturnType<typeof startHttpServer>>;

beforeAll(async () => {
  s = await testStack({
    inbound: { port: 0 },
    seed: { identity: { receive_policy: { hold: 'unauthenticated' } } },
  });
  http = await startHttpServer(s.groups, { port: 0, log: silentLogger });
});
afterAll(async () => {
  await http?.close();
  await s?.settle();
  await s?.close();
});

const P = () => ({
  PATH: process.env.PATH,
  PMAIL_STATE_DIR: EMPTY_STATE,
  PMAIL_API: http.url,
  PMAIL_KEY: s.apiKey,
  PMAIL_IDENTITY: s.agent.id,
});
const pmail = (args: string[]) => runInProcess(args, P());

async function mailAgent(subject: string) {
  const raw = `From: x@outside.example\r\nTo: ${s.agent.address}\r\nSubject: ${subject}\r\n\r\nhi\r\n`;
  await nodemailer
    .createTransport({ host: s.mx!.host, port: s.mx!.port, secure: false, ignoreTLS: true })
    .sendMail({ envelope: { from: 'x@outside.example', to: [s.agent.address] }, raw });
  await s.settle();
}

describe('pmail held', () => {
  it('lists held mail with its reason, releases it to the agent, and deletes another', async () => {
    await mailAgent('Urgent \x1b[31mwire');
    await mailAgent('Second stranger');
    const list = await pmail(['held', 'list']);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(/^ID +RECEIVED +REASON +AUTHENTICATED +FROM +SUBJECT$/m);
    expect(list.stdout).toContain('unauthenticated');
    expect(list.stdout).toContain('Urgent \uFFFD[31mwire');
    expect(list.stdout).not.toContain('\x1b');
    expect(list.stdout).toMatch(/^held: 2 of 1000/m);
    const json = JSON.parse((await pmail(['held', 'list', '--json'])).stdout);
    const [urgent, second] = ['Urgent \x1b[31mwire', 'Second stranger'].map(
      (subject) => json.data.find((m: { subject: string }) => m.subject === subject).id as string,
    );

    const inboxBefore = JSON.parse((await pmail(['inbox', '--json'])).stdout);
    expect(inboxBefore.data).toEqual([]);
    const released = await pmail(['held', 'release', urgent]);
    expect(released.code, released.stderr).toBe(0);
    expect(released.stdout).toMatch(new RegExp(`^released: ${urgent}`));
    const inbox = JSON.parse((await pmail(['inbox', '--json'])).stdout);
    expect(inbox.data.map((m: { id: string }) => m.id)).toEqual([urgent]);

    expect((await pmail(['held', 'delete', second])).code).toBe(0);
    expect(await s.message(s.agent.id, second)).toBeUndefined();
    // A message that is not held: refused (409, exit 6).
    expect((await pmail(['held', 'delete', urgent])).code).toBe(6);

    // pmail label: a message's labels and its conversation's, each change printing them after it.
    const labelled = await pmail(['label', urgent, '--add', 'needs-reply,crm:x']);
    expect(labelled.code, labelled.stderr).toBe(0);
    expect(labelled.stdout).toBe(`${urgent}: needs-reply, crm:x\n`);
    const removed = JSON.parse((await pmail(['label', urgent, '--remove', 'crm:x', '--json'])).stdout);
    expect(removed).toEqual({ message_id: urgent, labels: ['needs-reply'] });
    const thread = (await s.message(s.agent.id, urgent))!.thread_id!;
    expect((await pmail(['label', thread, '--add', 'handled'])).stdout).toBe(`${thread}: handled\n`);
    // pmail list filters by the label.
    const listed = JSON.parse((await pmail(['list', '--label', 'needs-reply', '--json'])).stdout);
    expect(listed.data.map((m: { id: string }) => m.id)).toEqual([urgent]);
    const bad = await pmail(['label', urgent, '--add', 'no spaces']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('invalid_label');
  });
});
