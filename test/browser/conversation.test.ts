import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpServer } from '../../functions/local/http-server.ts';
import { silentLogger } from '../../functions/log.ts';
import { REPLY_SHAPES } from '../fixtures/replies/shapes.ts';
import { type TestStack, testStack } from '../support/local.ts';

/**
 * The conversation in the console, in a real browser (Debian's chromium, driven by playwright-core)
 * against the local HTTP server (docs/guides/console.md): the thread page with what was sent beside
 * the answer's new text and its quote one click away, a sent message's HTML in the sandboxed frame
 * as a received one's, held sends read whole before Approve and Reject (apart), the Messages list's
 * Recipients column on received mail, the identity the pages open on and keep for the session, the
 * tab's icon. Screenshots under test-output/console-conversation/.
 */
const CHROMIUM = process.env.PMAIL_CHROMIUM ?? '/usr/bin/chromium';
const SHOTS = join(import.meta.dirname, '../../test-output/console-conversation');

let s: TestStack;
let http: Awaited<ReturnType<typeof startHttpServer>>;
let browser: Browser;
/** The seeded identities: `quiet` (never any mail, listed first), `agent` (the conversation), `peer`. */
let quiet: TestStack['identities'][number];
let agent: TestStack['identities'][number];
let peer: TestStack['identities'][number];
let sent: { id: string; thread_id: string; rfc_message_id: string };
let answerId: string;
const customer = 'delivered@simulator.invalid';
const gmail = REPLY_SHAPES[0];

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  s = await testStack({
    config: { simEventDelaySeconds: 0 },
    inbound: { port: 0 },
    seed: { names: ['quiet', 'agent', 'peer'] },
  });
  [quiet, agent, peer] = s.identities;
  http = await startHttpServer(s.groups, { port: 0, log: silentLogger });
  const res = await s.call('POST', `/v1/identities/${agent.id}/messages`, {
    body: {
      to: [customer],
      subject: 'Your delivery slot',
      text: 'Can we deliver on Tuesday morning?',
      html: '<p>Can we deliver on <b>Tuesday morning</b>?</p><script>parent.document.title="pwned"</script>',
    },
    headers: { 'idempotency-key': 'conv-first' },
  });
  expect(res.status).toBe(202);
  sent = res.body;
  await s.settle();
  await mailFromOutside({
    from: `Customer <${customer}>`,
    to: agent.address,
    subject: 'Re: Your delivery slot',
    inReplyTo: sent.rfc_message_id,
    text: gmail.text,
  });
  answerId = (
    await s.eventually(async () =>
      (await s.mailbox(agent.id, 'inbound')).find((m) => m.subject === 'Re: Your delivery slot'),
    )
  ).id;
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await http?.close();
  await s?.settle();
  await s?.close();
});

/** HTML that would run or load something if a page let it: each asks the server for /pwned-…. */
const HOSTILE_HTML = [
  '<p>Pay now</p>',
  '<script>fetch("/pwned-script")</script>',
  '<img src="x" onerror="fetch(\'/pwned-onerror\')">',
  '<svg onload="fetch(\'/pwned-svg\')"></svg>',
  '<a href="javascript:fetch(\'/pwned-link\')">click</a>',
  '<iframe srcdoc="<script>fetch(\'/pwned-frame\')</script>"></iframe>',
  '<meta http-equiv="refresh" content="0;url=/pwned-refresh">',
  '<form action="/pwned-form"><input name="card"><button>Send</button></form>',
].join('');

/** Mail from outside, through the stack's MX as a stranger's server would send it. */
const mailFromOutside = (mail: Parameters<ReturnType<typeof nodemailer.createTransport>['sendMail']>[0]) =>
  nodemailer
    .createTransport({ host: s.mx!.host, port: s.mx!.port, secure: false, ignoreTLS: true })
    .sendMail(mail);

/** A new tab session (its own sessionStorage), signed in with the tenant key. */
async function session(): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  context.setDefaultTimeout(8000);
  const p = await context.newPage();
  await p.goto(`${http.url}/console`);
  await p.getByLabel('API key').fill(s.apiKey);
  await p.getByRole('button', { name: 'Sign in' }).click();
  await p.getByRole('navigation', { name: 'Pages' }).waitFor();
  return p;
}

async function open(p: Page, hash: string, heading: string) {
  await p.goto(`${http.url}/console#/${hash}`);
  await p.getByRole('heading', { level: 1, name: heading }).waitFor();
  await p.getByText('Loading…').first().waitFor({ state: 'detached' });
}

const shot = (p: Page, name: string) => p.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });

describe('the conversation in the console', () => {
  it('opens Messages, Inbox and Threads on an identity with mail, and keeps a choice for the session', async () => {
    const p = await session();
    await open(p, 'messages', 'Messages');
    // The first identity listed has no mail (`agent` alone has): the page opens on `agent`.
    await expect.poll(() => p.getByLabel('Identity').inputValue()).toBe(agent.id);
    const first = await p.getByLabel('Identity').locator('option').first().getAttribute('value');
    expect([quiet.id, peer.id]).toContain(first);
    await p.getByRole('link', { name: 'Your delivery slot', exact: true }).waitFor();
    await open(p, 'threads', 'Threads');
    await expect.poll(() => p.getByLabel('Identity').inputValue()).toBe(agent.id);
    await p.getByLabel('Identity').selectOption(peer.id);
    await open(p, 'inbox', 'Inbox');
    await expect.poll(() => p.getByLabel('Identity').inputValue()).toBe(peer.id);
    // Another session starts afresh.
    const other = await session();
    await open(other, 'inbox', 'Inbox');
    await expect.poll(() => other.getByLabel('Identity').inputValue()).toBe(agent.id);
    await other.context().close();
    // The tab's icon.
    const icon = await p.locator('link[rel="icon"]').getAttribute('href');
    const res = await fetch(`${http.url}${icon}`);
    expect(res.headers.get('content-type')).toBe('image/svg+xml');
    await p.context().close();
  });

  it('lists received mail with its recipients (the To), not its sender, in the Recipients column', async () => {
    const p = await session();
    await open(p, 'messages', 'Messages');
    const link = p.getByRole('link', { name: 'Re: Your delivery slot' });
    await link.waitFor();
    const cells = await p.locator('tr', { has: link }).getByRole('cell').allTextContents();
    expect(cells.slice(1, 3)).toEqual([customer, agent.address]);
    const out = await p
      .locator('tr', { has: p.getByRole('link', { name: 'Your delivery slot', exact: true }) })
      .getByRole('cell')
      .allTextContents();
    expect(out.slice(1, 3)).toEqual([agent.address, customer]);
    await shot(p, 'messages');
    await p.context().close();
  });

  it('shows the thread: what was sent beside the answer’s new text, the quote one click away', async () => {
    const p = await session();
    await open(p, `threads/${agent.id}/${sent.thread_id}`, 'Thread');
    const items = p.locator('ol.thread > li');
    await expect.poll(() => items.count()).toBe(2);
    // The sent message: its sender, whom it went to, its time and status, then its text.
    const out = (await items.nth(0).locator('p').first().textContent())!;
    expect(out).toMatch(
      new RegExp(`^Sent ${agent.address} → ${customer} \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d`),
    );
    expect(await items.nth(0).locator('.status').textContent()).toBe('delivered');
    expect(await items.nth(0).locator('pre.body').textContent()).toBe('Can we deliver on Tuesday morning?');
    expect(await items.nth(1).textContent()).toMatch(/^Received /);
    expect(await items.nth(1).locator('pre.body').textContent()).toBe(gmail.expected);
    await shot(p, 'thread');
    await items.nth(1).getByRole('button', { name: 'Show quoted history' }).click();
    await expect.poll(() => items.nth(1).locator('pre.body').textContent()).toContain('wrote:');
    await shot(p, 'thread-quote');
    await p.context().close();
  });

  it('shows a sent message’s body as a received one’s: its text, and its HTML in the sandboxed frame', async () => {
    const p = await session();
    await open(p, `messages/${agent.id}/${sent.id}`, 'Message');
    await p.getByRole('heading', { name: 'Your delivery slot' }).waitFor();
    expect(await p.locator('pre.body').first().textContent()).toBe('Can we deliver on Tuesday morning?');
    const frame = p.frameLocator('iframe[title="HTML preview"]');
    await frame.getByText('Tuesday morning').waitFor();
    expect(await p.locator('iframe[title="HTML preview"]').getAttribute('sandbox')).toBe('');
    expect(await frame.locator('script').count()).toBe(0);
    expect(await p.title()).toBe('Message · pmail console');
    await shot(p, 'message-sent');
    await open(p, `messages/${agent.id}/${answerId}`, 'Message');
    await p.getByRole('heading', { name: 'Re: Your delivery slot' }).waitFor();
    expect(await p.locator('pre.body').first().textContent()).toContain('wrote:');
    await shot(p, 'message-received');
    await p.context().close();
  });

  it('shows hostile mail as text: its markup never runs, in the thread nor in the message’s HTML frame', async () => {
    // Whatever a page loads or runs from the mail would ask the server for /pwned-…: none may come.
    const hostileText = '<img src=x onerror="fetch(\'/pwned-text\')"><script>fetch("/pwned-text")</script>';
    await mailFromOutside({
      from: 'Stranger <stranger@simulator.invalid>',
      to: agent.address,
      subject: 'Invoice <b>overdue</b>',
      text: hostileText,
      html: HOSTILE_HTML,
    });
    const hostile = await s.eventually(async () =>
      (await s.mailbox(agent.id, 'inbound')).find((m) => m.subject === 'Invoice <b>overdue</b>'),
    );
    const p = await session();
    const asked: string[] = [];
    p.on('request', (r) => asked.push(new URL(r.url()).pathname));
    const ran: string[] = [];
    p.on('dialog', (d) => {
      ran.push(d.message());
      return d.dismiss();
    });
    await open(p, `threads/${agent.id}/${hostile.thread_id}`, 'Thread');
    const item = p.locator('ol.thread > li').first();
    expect(await item.locator('pre.body').textContent()).toBe(hostileText);
    expect(await item.locator('img, script').count()).toBe(0);
    await item.getByRole('button', { name: 'Show quoted history' }).click();
    await expect.poll(() => item.locator('pre.body').textContent()).toBe(hostileText);
    await shot(p, 'thread-hostile');
    await open(p, `messages/${agent.id}/${hostile.id}`, 'Message');
    await p.getByRole('heading', { name: 'Invoice <b>overdue</b>' }).waitFor();
    const frame = p.frameLocator('iframe[title="HTML preview"]');
    await frame.getByText('Pay now').waitFor();
    expect(await p.locator('iframe[title="HTML preview"]').getAttribute('sandbox')).toBe('');
    expect(await frame.locator('script, iframe, form, meta, [onerror], [onload]').count()).toBe(0);
    // A click on what is left of the link runs nothing either.
    await frame.getByText('click').click();
    await p.waitForTimeout(300);
    expect(asked.filter((u) => u.includes('pwned'))).toEqual([]);
    expect(ran).toEqual([]);
    expect(await p.title()).toBe('Message · pmail console');
    await shot(p, 'message-hostile');
    await p.context().close();
  });

  it('never runs HTML that reached it unsanitised: it sanitises again and frames it in a sandbox', async () => {
    // pmail sanitises every body it stores; the console guards on its own, for an API answer that
    // carried raw HTML. The sent message's answer is rewritten on its way to the page.
    const p = await session();
    const asked: string[] = [];
    p.on('request', (r) => asked.push(new URL(r.url()).pathname));
    await p.route(`**/v1/identities/${agent.id}/messages/${sent.id}`, async (route) => {
      const res = await route.fetch();
      await route.fulfill({ response: res, json: { ...(await res.json()), html: HOSTILE_HTML } });
    });
    await open(p, `messages/${agent.id}/${sent.id}`, 'Message');
    const frame = p.frameLocator('iframe[title="HTML preview"]');
    await frame.getByText('Pay now').waitFor();
    expect(
      await frame.locator('script, iframe, form, meta, [onerror], [onload], [href^="javascript"]').count(),
    ).toBe(0);
    await frame.getByText('click').click();
    await p.waitForTimeout(300);
    expect(asked.filter((u) => u.includes('pwned'))).toEqual([]);
    expect(await p.title()).toBe('Message · pmail console');
    await p.context().close();
  });

  it('shows a held send’s recipients, subject and body before Approve, with Approve and Reject apart', async () => {
    const policy = await s.call('PATCH', `/v1/identities/${peer.id}`, {
      body: { send_policy: { require_approval: true } },
    });
    expect(policy.status).toBe(200);
    const held = await s.call('POST', `/v1/identities/${peer.id}/messages`, {
      body: {
        to: ['delivered@simulator.invalid'],
        cc: ['delivered+cc@simulator.invalid'],
        subject: 'Refund of order 1042',
        text: 'We have refunded 42.00 EUR to your card.',
        html: '<p>We have refunded <b>42.00 EUR</b> to your card.</p>',
        attachments: [
          {
            filename: 'credit-note.pdf',
            content_type: 'application/pdf',
            content_base64: Buffer.from('%PDF-1.4 note').toString('base64'),
          },
        ],
      },
      headers: { 'idempotency-key': 'conv-held' },
    });
    expect(held.body.status).toBe('pending_approval');
    const p = await session();
    await open(p, 'approvals', 'Approvals');
    const card = p.locator(`article[data-message="${held.body.id}"]`);
    await card.waitFor();
    await card.getByRole('heading', { name: 'Refund of order 1042' }).waitFor();
    const headers = await card.locator('dl.headers').textContent();
    expect(headers).toContain('delivered@simulator.invalid');
    expect(headers).toContain('delivered+cc@simulator.invalid');
    expect(await card.locator('pre.body').textContent()).toBe('We have refunded 42.00 EUR to your card.');
    await card.frameLocator('iframe').getByText('42.00 EUR').waitFor();
    expect(await card.textContent()).toContain('credit-note.pdf');
    // The body comes before the decision, and the two buttons sit at the two ends of its footer.
    const body = (await card.locator('pre.body').boundingBox())!;
    const approve = (await card.getByRole('button', { name: 'Approve' }).boundingBox())!;
    const reject = (await card.getByRole('button', { name: 'Reject' }).boundingBox())!;
    expect(approve.y).toBeGreaterThan(body.y + body.height);
    expect(reject.x - (approve.x + approve.width)).toBeGreaterThan(300);
    await shot(p, 'approvals');
    await card.getByRole('button', { name: 'Approve' }).click();
    await card
      .getByRole('dialog', { name: 'Confirm: Approve' })
      .getByRole('button', { name: 'Confirm' })
      .click();
    await card.waitFor({ state: 'detached' });
    await s.settle();
    await s.eventually(async () => (await s.message(peer.id, held.body.id))?.status === 'delivered');
    await p.context().close();
  });
});
