import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpServer } from '../../functions/local/http-server.ts';
import { silentLogger } from '../../functions/log.ts';
import { type TestStack, testStack } from '../support/local.ts';

/**
 * The console in a real browser (Debian's chromium, driven by playwright-core) against the local
 * HTTP server on the real engines: sign in, read a delivered message, resolve an uncertain one
 * by clicking, add and remove a suppression, send a webhook test and see it in the endpoint's
 * recent deliveries, read a message received through the local MX, an identity key's narrower
 * view, axe-core on every page and a screenshot of each under test-output/console/.
 */
const CHROMIUM = process.env.PMAIL_CHROMIUM ?? '/usr/bin/chromium';
const SHOTS = join(import.meta.dirname, '../../test-output/console');
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

let s: TestStack;
let http: Awaited<ReturnType<typeof startHttpServer>>;
let browser: Browser;
let context: BrowserContext;
let page: Page;
/** Content-Security-Policy reports of the page: the console must load nothing the policy refuses. */
const cspViolations: string[] = [];
let delivered: { id: string; subject: string };
let uncertain: { id: string; subject: string };
let peerSubject: string;
/** A webhook receiver on 127.0.0.1: the event types it was sent. */
let hooks: Server;
let hookUrl = '';
const hooked: string[] = [];

async function sendAs(identityId: string, to: string, subject: string) {
  const res = await s.call('POST', `/v1/identities/${identityId}/messages`, {
    body: { to: [to], subject, text: 'Console test body.' },
    headers: { 'idempotency-key': `console-${subject}` },
  });
  expect(res.status).toBe(202);
  return { id: res.body.id as string, subject };
}

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  hooks = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => {
      body += d;
    });
    req.on('end', () => {
      hooked.push(JSON.parse(body).type);
      res.end();
    });
  });
  await new Promise<void>((r) => hooks.listen(0, '127.0.0.1', () => r()));
  hookUrl = `http://127.0.0.1:${(hooks.address() as { port: number }).port}/console-hook`;
  s = await testStack({
    config: { simEventDelaySeconds: 0 },
    webhooks: true,
    webhookScheduleScale: 0.001,
    inbound: { port: 0 },
    stream: {},
  });
  http = await startHttpServer(s.groups, { port: 0, log: silentLogger, stream: s.stream });
  delivered = await sendAs(s.agent.id, 'delivered@simulator.invalid', 'Console delivered one');
  uncertain = await sendAs(s.agent.id, 'timeout@simulator.invalid', 'Console uncertain one');
  peerSubject = (await sendAs(s.peer.id, 'delivered@simulator.invalid', 'Peer only message')).subject;
  await s.settle();
  await s.eventually(async () => (await s.message(s.agent.id, delivered.id))?.status === 'delivered');
  await s.eventually(async () => (await s.message(s.agent.id, uncertain.id))?.status === 'uncertain');
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  context.setDefaultTimeout(8000);
  page = await context.newPage();
  page.on('console', (m) => {
    if (/Content[- ]Security[- ]Policy/i.test(m.text())) cspViolations.push(m.text());
  });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await http?.close();
  await s?.settle();
  await s?.close();
  await new Promise((r) => hooks?.close(r));
});

async function signIn(p: Page, key: string) {
  await p.goto(`${http.url}/console`);
  await p.getByLabel('API key').fill(key);
  await p.getByRole('button', { name: 'Sign in' }).click();
  await p.getByRole('navigation', { name: 'Pages' }).waitFor();
}

/** axe-core on the page as it stands: no serious or critical violation. */
async function accessible(p: Page, name: string) {
  await p.evaluate(AXE);
  // A string, run in the page: this suite's types have no DOM.
  const found = (await p.evaluate(
    `axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length })))`,
  )) as { id: string; impact: string; nodes: number }[];
  expect(
    found.filter((v: { impact: string }) => v.impact === 'serious' || v.impact === 'critical'),
    `${name}: ${JSON.stringify(found)}`,
  ).toEqual([]);
  await p.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}

async function open(p: Page, hash: string, heading: string) {
  await p.goto(`${http.url}/console#/${hash}`);
  await p.getByRole('heading', { level: 1, name: heading }).waitFor();
  await p.getByText('Loading…').first().waitFor({ state: 'detached' });
}

describe('console', () => {
  it('serves its page with a strict policy, short-lived, and its files immutable', async () => {
    const res = await fetch(`${http.url}/console`);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|https?:/);
    expect(res.headers.get('cache-control')).toContain('no-cache');
    const html = await res.text();
    expect(html).not.toMatch(/<script>|<script [^>]*>[^<]/);
    const script = /src="(\/console\/main-[^"]+\.js)"/.exec(html)![1];
    // The tab's icon, served from the console's own files like its script.
    const icon = /<link rel="icon" type="image\/svg\+xml" href="(\/console\/favicon-[0-9a-f]{8}\.svg)">/.exec(
      html,
    )![1];
    const svg = await fetch(`${http.url}${icon}`);
    expect([svg.status, svg.headers.get('content-type')]).toEqual([200, 'image/svg+xml']);
    expect(await svg.text()).toMatch(/^<svg /);
    const asset = await fetch(`${http.url}${script}`);
    expect(asset.headers.get('cache-control')).toContain('immutable');
    expect(asset.headers.get('content-type')).toContain('javascript');
    expect((await fetch(`${http.url}/console/nothing-here.js`)).status).toBe(404);
  });

  it('signs in with the API key, kept in sessionStorage only, and shows a delivered message and its recipient', async () => {
    await signIn(page, s.apiKey);
    expect(await page.evaluate<string[]>('Object.values(sessionStorage)')).toContain(s.apiKey);
    expect(await page.evaluate<number>('Object.keys(localStorage).length + document.cookie.length')).toBe(0);
    expect(page.url()).not.toContain(s.apiKey);
    await open(page, 'messages', 'Messages');
    await page.getByLabel('Identity').selectOption(s.agent.id);
    await page.getByRole('link', { name: delivered.subject }).waitFor();
    // The filter is part of the address: a reload (or a shared link) shows the same list.
    expect(page.url()).toContain(`identity=${s.agent.id}`);
    await page.reload();
    await page.getByRole('link', { name: delivered.subject }).waitFor();
    await accessible(page, 'messages');
    await page.getByRole('link', { name: delivered.subject }).click();
    await page.getByRole('heading', { name: delivered.subject }).waitFor();
    const row = page.locator('tr[data-recipient="delivered@simulator.invalid"]');
    await expect.poll(() => row.locator('.status').textContent()).toBe('delivered');
    expect(page.url()).toContain(`#/messages/${s.agent.id}/${delivered.id}`);
    await page.getByText('message.delivered').first().waitFor();
    await page.screenshot({ path: join(SHOTS, 'console.png') });
    // Its body as sent: the stored MIME, read on request and shown as text.
    await page.getByRole('button', { name: 'Show original' }).click();
    expect(await page.locator('pre.original').textContent()).toContain(`Subject: ${delivered.subject}`);
    await accessible(page, 'message');
  });

  it('resolves an uncertain message by clicking Mark as sent (confirmed), and the API agrees', async () => {
    await page.goto(`${http.url}/console#/messages/${s.agent.id}/${uncertain.id}`);
    await page.getByRole('heading', { name: uncertain.subject }).waitFor();
    await page.getByRole('button', { name: 'Mark as sent' }).click();
    const dialog = page.getByRole('dialog', { name: 'Confirm: Mark as sent' });
    await accessible(page, 'message-resolve');
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    // Resolved as sent, the message goes on as a submitted send: the page and the API say so.
    await page.getByRole('button', { name: 'Mark as sent' }).waitFor({ state: 'detached' });
    const shown = await page.locator('p', { hasText: 'Status:' }).locator('.status').textContent();
    const res = await s.call('GET', `/v1/identities/${s.agent.id}/messages/${uncertain.id}`);
    expect(res.body.status).toBe('submitted');
    expect(shown).toBe(res.body.status);
    await page.getByText('message.sent').waitFor();
    expect(await page.getByRole('button', { name: 'Mark as sent' }).count()).toBe(0);
  });

  it('adds and removes a suppression', async () => {
    const base = `/v1/tenants/${s.tenantId}/suppressions`;
    const address = 'console-suppressed@example.net';
    await open(page, 'suppressions', 'Suppressions');
    await page.getByLabel('Address', { exact: true }).fill(address);
    await page.getByRole('button', { name: 'Add suppression' }).click();
    await page.getByRole('status').getByText(`Suppressed ${address}.`).waitFor();
    expect((await s.call('GET', base, { query: { address } })).body.data).toHaveLength(1);
    await page.getByRole('cell', { name: 'manual' }).first().waitFor();
    await accessible(page, 'suppressions');
    await page.getByLabel('Address to remove').fill(address);
    await page.getByRole('button', { name: 'Remove suppression' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
    await page.getByRole('status').getByText(`Removed the suppression of ${address}.`).waitFor();
    expect((await s.call('GET', base, { query: { address } })).body.data).toHaveLength(0);
  });

  it('sends a webhook test from the endpoint page and shows it in its recent deliveries', async () => {
    const created = await s.call('POST', '/v1/webhooks', {
      body: { url: hookUrl, event_types: ['message.bounced'], description: 'Console hook' },
    });
    expect(created.status).toBe(201);
    await open(page, 'webhooks', 'Webhooks');
    await page.getByRole('link', { name: hookUrl }).click();
    await page.getByRole('heading', { level: 1, name: 'Webhook' }).waitFor();
    await page.getByText('No deliveries in the last 3 days.').waitFor();
    await page.getByRole('button', { name: 'Send test' }).click();
    const queued = await page
      .getByRole('status')
      .getByText(/^Test event evt_[0-9a-z]{26} queued\.$/)
      .textContent();
    const eventId = /evt_[0-9a-z]{26}/.exec(queued ?? '')![0];
    const row = page.locator(`tr[data-event="${eventId}"]`);
    await expect.poll(() => row.locator('.status').textContent(), { timeout: 8000 }).toBe('delivered');
    expect(await row.getByRole('cell').allTextContents()).toEqual([
      expect.any(String),
      `webhook.test${eventId}`,
      '1',
      expect.stringMatching(/^200 \(\d+ ms\)$/),
      'delivered',
    ]);
    // The receiver got it, and the API lists the same attempt.
    expect(hooked).toEqual(['webhook.test']);
    const listed = await s.call('GET', `/v1/webhooks/${created.body.id}/deliveries`);
    expect(listed.body.data.map((a: { event_id: string }) => a.event_id)).toEqual([eventId]);
    await accessible(page, 'webhook');
  });

  it('shows a message received through the local MX in the inbox, its text, and its HTML without scripts', async () => {
    const subject = 'Console inbound hello';
    const mx = nodemailer.createTransport({
      host: s.mx!.host,
      port: s.mx!.port,
      secure: false,
      ignoreTLS: true,
    });
    // A reply to the delivered message: it joins that message's thread.
    const sent = await s.call('GET', `/v1/identities/${s.agent.id}/messages/${delivered.id}`);
    await mx.sendMail({
      from: 'Customer <customer@simulator.invalid>',
      to: s.agent.address,
      subject,
      inReplyTo: sent.body.rfc_message_id,
      references: [sent.body.rfc_message_id],
      text: 'Plain words from outside.',
      html: '<p>Hello from outside.</p><script>parent.document.title = "pwned"</script><b onclick="parent.document.title = \'pwned\'">Bold</b>',
    });
    await s.eventually(async () =>
      (await s.mailbox(s.agent.id, 'inbound')).some((m) => m.subject === subject),
    );
    await open(page, 'inbox', 'Inbox');
    await page.getByLabel('Identity').selectOption(s.agent.id);
    const link = page.getByRole('link', { name: subject });
    await link.waitFor();
    const cells = await page.locator('tr', { has: link }).getByRole('cell').allTextContents();
    expect(cells[0]).toBe(`${subject}Plain words from outside.`);
    // Who wrote it, and whom it was written to (the To, not the sender).
    expect(cells.slice(1, 3)).toEqual(['customer@simulator.invalid', s.agent.address]);
    await accessible(page, 'inbox-received');
    await link.click();
    await page.getByRole('heading', { name: subject }).waitFor();
    expect(await page.locator('pre.body').textContent()).toContain('Plain words from outside.');
    const frame = page.frameLocator('iframe[title="HTML preview"]');
    await frame.getByText('Hello from outside.').waitFor();
    expect(await page.locator('iframe[title="HTML preview"]').getAttribute('sandbox')).toBe('');
    expect(await frame.locator('script, [onclick]').count()).toBe(0);
    await frame.getByText('Bold').click();
    // Nothing in the mail ran: the console's title is its own.
    expect(await page.title()).toBe('Message · pmail console');
    await accessible(page, 'message-received');
    // The conversation: the sent message, then the reply with its new text.
    await open(page, 'threads', 'Threads');
    await page.getByLabel('Identity').selectOption(s.agent.id);
    await page.getByRole('link', { name: delivered.subject }).click();
    await page.getByRole('heading', { level: 1, name: 'Thread' }).waitFor();
    const items = page.locator('ol.thread > li');
    await expect.poll(() => items.count()).toBe(2);
    expect(await items.nth(0).textContent()).toMatch(/^Sent /);
    expect(await items.nth(0).locator('pre.body').textContent()).toBe('Console test body.');
    expect(await items.nth(1).locator('pre.body').textContent()).toBe('Plain words from outside.');
    await accessible(page, 'thread');
  });

  it('previews a template rendered by the API, with samples from its schema, then with typed variables', async () => {
    const created = await s.call('POST', `/v1/tenants/${s.tenantId}/templates`, {
      body: {
        name: 'console_welcome',
        subject: 'Welcome, {{name}}',
        text: 'Hello {{name}}{{#if vip}}, our best customer{{/if}}.',
        html: '<p>Hello <b>{{name}}</b></p>',
        variables_schema: {
          type: 'object',
          properties: { name: { type: 'string', examples: ['Ada'] }, vip: { type: 'boolean' } },
          required: ['name'],
        },
        category: 'transactional',
        kind: 'transactional',
      },
    });
    expect(created.status).toBe(201);
    await open(page, 'templates', 'Templates');
    await page.getByRole('button', { name: 'console_welcome' }).click();
    await page.getByText('Welcome, Ada', { exact: true }).waitFor();
    expect(await page.locator('pre.body').textContent()).toBe('Hello Ada, our best customer.');
    await page.frameLocator('iframe[title="Preview of console_welcome"]').getByText('Ada').waitFor();
    await page.getByLabel('Sample variables').fill('{ "name": "Grace", "vip": false }');
    await page.getByRole('button', { name: 'Render preview' }).click();
    await page.getByText('Welcome, Grace', { exact: true }).waitFor();
    expect(await page.locator('pre.body').textContent()).toBe('Hello Grace.');
    await accessible(page, 'templates-preview');
  });

  it('shows a domain’s DNS records with copy buttons, and verifies it by clicking (confirmed)', async () => {
    const name = `console-${Date.now()}.example.com`;
    const created = await s.call('POST', `/v1/tenants/${s.tenantId}/domains`, {
      body: { name, transport: 'ses' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const first = created.body.dns_records[0] as { name: string; value: string };
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: http.url });
    await open(page, 'domains', 'Domains');
    const section = page.locator('section', { has: page.getByRole('heading', { name }) });
    await section
      .getByRole('button', { name: `Copy value of ${first.name}` })
      .first()
      .click();
    await section
      .getByRole('button', { name: `Copied value of ${first.name}` })
      .first()
      .waitFor();
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(first.value);
    await section.getByRole('button', { name: `Verify ${name}` }).click();
    await page
      .getByRole('dialog', { name: `Confirm: Verify ${name}` })
      .getByRole('button', { name: 'Confirm' })
      .click();
    const after = await s.eventually(async () => {
      const d = await s.call('GET', `/v1/tenants/${s.tenantId}/domains/${created.body.id}`);
      return d.body.checked_at ? d.body : undefined;
    });
    await expect.poll(() => section.locator('.status').first().textContent()).toBe(after.state);
    await accessible(page, 'domains-verified');
  });

  it('approves one held send and rejects another by clicking (each confirmed), and the API agrees', async () => {
    await open(page, 'approvals', 'Approvals');
    await page.getByText('No approvals waiting.').waitFor();
    const held = await s.call('PATCH', `/v1/identities/${s.peer.id}`, {
      body: { send_policy: { require_approval: true } },
    });
    expect(held.status, JSON.stringify(held.body)).toBe(200);
    const keep = await sendAs(s.peer.id, 'delivered@simulator.invalid', 'Console held, approve me');
    const drop = await sendAs(s.peer.id, 'delivered@simulator.invalid', 'Console held, reject me');
    expect((await s.message(s.peer.id, keep.id))?.status).toBe('pending_approval');
    await page.reload();
    const row = (m: { id: string }) => page.locator(`article[data-message="${m.id}"]`);
    await row(keep).waitFor();
    await row(drop).waitFor();
    await accessible(page, 'approvals-held');
    await row(keep).getByRole('button', { name: 'Approve' }).click();
    await row(keep)
      .getByRole('dialog', { name: 'Confirm: Approve' })
      .getByRole('button', { name: 'Confirm' })
      .click();
    await row(keep).waitFor({ state: 'detached' });
    await row(drop).getByRole('button', { name: 'Reject' }).click();
    await row(drop)
      .getByRole('dialog', { name: 'Confirm: Reject' })
      .getByRole('button', { name: 'Confirm' })
      .click();
    await row(drop).waitFor({ state: 'detached' });
    await page.getByText('No approvals waiting.').waitFor();
    await s.settle();
    await s.eventually(async () => (await s.message(s.peer.id, keep.id))?.status === 'delivered');
    const rejected = await s.call('GET', `/v1/identities/${s.peer.id}/messages/${drop.id}`);
    expect([rejected.body.status, rejected.body.status_reason]).toEqual(['canceled', 'rejected_by_reviewer']);
  });

  it('passes axe on every other page and keeps a screenshot of each', async () => {
    for (const [hash, title] of [
      ['overview', 'Overview'],
      ['inbox', 'Inbox'],
      ['threads', 'Threads'],
      ['approvals', 'Approvals'],
      ['templates', 'Templates'],
      ['domains', 'Domains'],
      ['webhooks', 'Webhooks'],
      ['keys', 'Keys'],
    ]) {
      await open(page, hash, title);
      await accessible(page, hash);
    }
    await open(page, 'overview', 'Overview');
    await page.locator('.chart canvas').first().waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API key').waitFor();
    await accessible(page, 'sign-in');
    expect(await page.evaluate<number>('sessionStorage.length')).toBe(0);
  });

  it('shows a key limited to one identity only its messages, and no Keys actions it may not take', async () => {
    const minted = await s.call('POST', '/v1/keys', {
      body: {
        name: 'console agent reader',
        level: 'identity',
        identity_id: s.agent.id,
        permissions: ['messages:read', 'identities:read'],
      },
    });
    expect(minted.status).toBe(201);
    const own = await browser.newContext();
    own.setDefaultTimeout(8000);
    const p = await own.newPage();
    await signIn(p, minted.body.secret);
    await open(p, 'messages', 'Messages');
    await p.getByRole('link', { name: delivered.subject }).waitFor();
    const options = await p.getByLabel('Identity').locator('option').allTextContents();
    expect(options).toHaveLength(1);
    expect(options[0]).toContain(s.agent.address);
    expect(await p.getByText(peerSubject).count()).toBe(0);
    // The peer's messages are not reachable by URL either: the API refuses them.
    const nav = await p.getByRole('navigation', { name: 'Pages' }).getByRole('link').allTextContents();
    expect(nav).toEqual(['Messages', 'Inbox', 'Threads', 'Approvals', 'Keys']);
    await open(p, 'keys', 'Keys');
    await p.getByText('This key may not manage keys').waitFor();
    expect(await p.getByRole('button', { name: /Create key|Revoke/ }).count()).toBe(0);
    await accessible(p, 'keys-identity');
    await open(p, `messages/${s.agent.id}/${uncertain.id}`, 'Message');
    expect(await p.getByRole('button', { name: /Mark as|Cancel|Retry/ }).count()).toBe(0);
    await own.close();
  });

  it('updates the Messages, Inbox, Threads and message pages live, from the event stream', async () => {
    const live = () => page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
    // Messages: a send made after the page loaded appears with its first event, without a reload.
    await signIn(page, s.apiKey);
    await open(page, 'messages', 'Messages');
    await page.getByLabel('Identity').selectOption(s.agent.id);
    await live();
    await sendAs(s.agent.id, 'delivered@simulator.invalid', 'Live outbound');
    await page.getByRole('link', { name: 'Live outbound' }).waitFor();
    // The message page: an uncertain send resolved through the API shows its new status at once.
    const unsure = await sendAs(s.agent.id, 'timeout@simulator.invalid', 'Live resolve');
    await s.eventually(async () => (await s.message(s.agent.id, unsure.id))?.status === 'uncertain');
    await open(page, `messages/${s.agent.id}/${unsure.id}`, 'Message');
    await live();
    expect(await page.locator('p', { hasText: 'Status:' }).locator('.status').textContent()).toBe(
      'uncertain',
    );
    const resolved = await s.call('POST', `/v1/identities/${s.agent.id}/messages/${unsure.id}/resolve`, {
      body: { outcome: 'sent' },
      headers: { 'idempotency-key': 'console-live-resolve' },
    });
    expect(resolved.status).toBe(200);
    // Resolved as sent, it goes on as a submitted send: the page shows it without a reload.
    await page.locator('p', { hasText: 'Status:' }).locator('.status', { hasText: 'submitted' }).waitFor();
    // Inbox and Threads: mail from the peer arrives while each is open (the peer sends without
    // review again: the approvals test holds its sends).
    const free = await s.call('PATCH', `/v1/identities/${s.peer.id}`, {
      body: { send_policy: { require_approval: false } },
    });
    expect(free.status, JSON.stringify(free.body)).toBe(200);
    await open(page, 'inbox', 'Inbox');
    await page.getByLabel('Identity').selectOption(s.agent.id);
    await live();
    await sendAs(s.peer.id, s.agent.address, 'Live inbound');
    await page.getByRole('link', { name: 'Live inbound' }).waitFor();
    await open(page, 'threads', 'Threads');
    await page.getByLabel('Identity').selectOption(s.agent.id);
    await live();
    await sendAs(s.peer.id, s.agent.address, 'Live thread');
    await page.getByRole('link', { name: 'Live thread' }).waitFor();
    await accessible(page, 'threads-live');
  });

  it('loaded nothing the Content-Security-Policy refused', () => {
    expect(cspViolations).toEqual([]);
    expect(existsSync(join(SHOTS, 'messages.png'))).toBe(true);
  });
});
