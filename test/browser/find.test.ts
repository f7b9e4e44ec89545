import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpServer } from '../../functions/local/http-server.ts';
import { silentLogger } from '../../functions/log.ts';
import { type TestStack, testStack } from '../support/local.ts';

/**
 * Finding mail in the console, in a real browser (Debian's chromium, driven by playwright-core)
 * against the local HTTP server (docs/guides/console.md › Labels and search): a thread's labels
 * added and removed on its page, shown as chips on the Threads list, a chip filtering the list by
 * its label, a refused label shown as the API's refusal; the search box on Messages, Inbox and
 * Threads, each hit's highlight with the matched words in <mark>, and hostile mail shown as text
 * (nothing of it becomes an element or runs). Screenshots under test-output/console-find/.
 */
const CHROMIUM = process.env.PMAIL_CHROMIUM ?? '/usr/bin/chromium';
const SHOTS = join(import.meta.dirname, '../../test-output/console-find');
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

let s: TestStack;
let http: Awaited<ReturnType<typeof startHttpServer>>;
let browser: Browser;
let page: Page;

async function sendAs(subject: string) {
  const res = await s.call('POST', `/v1/identities/${s.agent.id}/messages`, {
    body: { to: ['delivered@simulator.invalid'], subject, text: 'Find test body.' },
    headers: { 'idempotency-key': `find-${subject}` },
  });
  expect(res.status).toBe(202);
  return { id: res.body.id as string, thread: res.body.thread_id as string };
}

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  s = await testStack({ config: { simEventDelaySeconds: 0 }, inbound: { port: 0 } });
  http = await startHttpServer(s.groups, { port: 0, log: silentLogger });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  context.setDefaultTimeout(8000);
  page = await context.newPage();
  await page.goto(`${http.url}/console`);
  await page.getByLabel('API key').fill(s.apiKey);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Pages' }).waitFor();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await http?.close();
  await s?.settle();
  await s?.close();
});

async function open(hash: string, heading: string) {
  await page.goto(`${http.url}/console#/${hash}`);
  // The same page at another address is not opened again: reload it, so its list is read now.
  await page.reload();
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
  await page.getByText('Loading…').first().waitFor({ state: 'detached' });
}

/** Mail from outside, through the stack's MX as a stranger's server would send it. */
async function receive(subject: string, text: string): Promise<string> {
  await nodemailer
    .createTransport({ host: s.mx!.host, port: s.mx!.port, secure: false, ignoreTLS: true })
    .sendMail({ from: 'Stranger <stranger@outside.example>', to: s.agent.address, subject, text });
  await s.settle();
  return (
    await s.eventually(async () =>
      (await s.mailbox(s.agent.id, 'inbound')).find((m) => m.subject === subject),
    )
  ).id;
}

/** Markup that would make an element and run if a page parsed it as HTML. */
const HOSTILE = '<img src="x" onerror="window.pwned=1"> Quarterly statement';

/** Nothing from the mail became an element or ran. */
async function nothingRan() {
  expect(await page.locator('img[src="x"]').count()).toBe(0);
  expect(await page.evaluate('window.pwned')).toBeUndefined();
}

/** axe-core on the page as it stands: no serious or critical violation. */
async function accessible() {
  await page.evaluate(AXE);
  const found = (await page.evaluate(
    `axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id))`,
  )) as string[];
  expect(found).toEqual([]);
}

const threadLabels = async (thread: string) =>
  (await s.call('GET', `/v1/identities/${s.agent.id}/threads/${thread}`)).body.labels as string[];

describe('console › labels', () => {
  it('adds a label on a thread, shows its chip on Threads, filters by it, and removes it', async () => {
    const labeled = await sendAs('Invoice from Brightwell');
    const other = await sendAs('Lunch on Friday');
    await s.settle();

    await open(`threads/${s.agent.id}/${labeled.thread}`, 'Thread');
    const editor = page.getByRole('region', { name: 'Labels' });
    await editor.getByLabel('New label').fill('needs-reply');
    await editor.getByRole('button', { name: 'Add label' }).click();
    await editor.getByRole('button', { name: 'Remove label needs-reply' }).waitFor();
    expect(await threadLabels(labeled.thread)).toEqual(['needs-reply']);

    // A label outside the alphabet: the API's refusal is shown, the chips stay as they were.
    await editor.getByLabel('New label').fill('needs reply!');
    await editor.getByRole('button', { name: 'Add label' }).click();
    await editor
      .getByRole('alert')
      .getByText(/^invalid_label: /)
      .waitFor();
    expect(await threadLabels(labeled.thread)).toEqual(['needs-reply']);
    await accessible();
    await page.screenshot({ path: join(SHOTS, 'thread-labels.png'), fullPage: true });

    await open(`threads?identity=${s.agent.id}`, 'Threads');
    const row = page.locator(`tr[data-thread="${labeled.thread}"]`);
    await page.locator(`tr[data-thread="${other.thread}"]`).waitFor();
    await row.getByRole('button', { name: 'needs-reply' }).click();
    await page.locator(`tr[data-thread="${other.thread}"]`).waitFor({ state: 'detached' });
    await row.waitFor();
    expect(await page.locator('tr[data-thread]').count()).toBe(1);
    expect(new URL(page.url()).hash).toContain('label=needs-reply');
    await page.screenshot({ path: join(SHOTS, 'threads-by-label.png'), fullPage: true });

    await row.getByRole('link', { name: 'Invoice from Brightwell' }).click();
    await page.getByRole('heading', { level: 1, name: 'Thread' }).waitFor();
    await editor.getByRole('button', { name: 'Remove label needs-reply' }).click();
    await editor.getByRole('button', { name: 'Remove label needs-reply' }).waitFor({ state: 'detached' });
    expect(await threadLabels(labeled.thread)).toEqual([]);

    await open(`threads?identity=${s.agent.id}&label=needs-reply`, 'Threads');
    await page.getByRole('cell', { name: 'No threads.' }).waitFor();
  });

  it('shows a message’s labels as chips on Messages and Inbox, and a chip filters the list by it', async () => {
    const received = await receive('Order 1182 shipped', 'Your order is on its way.');
    const other = await receive('Order 1183 shipped', 'Another order on its way.');
    const res = await s.call('POST', `/v1/identities/${s.agent.id}/messages/${received}/labels`, {
      body: { add: ['crm:order/1182'] },
    });
    expect(res.status).toBe(200);

    for (const [hash, heading] of [
      ['messages', 'Messages'],
      ['inbox', 'Inbox'],
    ] as const) {
      await open(`${hash}?identity=${s.agent.id}`, heading);
      await page.locator(`tr[data-message="${other}"]`).waitFor();
      await page
        .locator(`tr[data-message="${received}"]`)
        .getByRole('button', { name: 'crm:order/1182' })
        .click();
      await page.locator(`tr[data-message="${other}"]`).waitFor({ state: 'detached' });
      await page.locator(`tr[data-message="${received}"]`).waitFor();
      expect(new URL(page.url()).hash).toContain(`label=${encodeURIComponent('crm:order/1182')}`);
      await page.getByRole('button', { name: 'Show every label' }).click();
      await page.locator(`tr[data-message="${other}"]`).waitFor();
    }
  });
});

describe('console › search', () => {
  it('finds a received message by a word of its body, the word marked, its hostile subject shown as text', async () => {
    const hit = await receive(
      HOSTILE,
      'Please pay the zanzibar invoice <img src="x" onerror="window.pwned=2"> today.',
    );
    const miss = await receive('Weekly digest', 'Nothing to see here.');

    await open(`inbox?identity=${s.agent.id}`, 'Inbox');
    await page.locator(`tr[data-message="${miss}"]`).waitFor();
    await page.getByRole('search').getByLabel('Search').fill('Zanzibar');
    await page.getByRole('search').getByRole('button', { name: 'Search' }).click();
    await page.locator(`tr[data-message="${miss}"]`).waitFor({ state: 'detached' });
    const row = page.locator(`tr[data-message="${hit}"]`);
    await row.getByRole('link', { name: HOSTILE }).waitFor();
    expect(await row.locator('mark').allTextContents()).toEqual(['zanzibar']);
    await row.getByText('<img src="x" onerror="window.pwned=2">', { exact: false }).waitFor();
    await nothingRan();
    expect(new URL(page.url()).hash).toContain('q=Zanzibar');
    await accessible();
    await page.screenshot({ path: join(SHOTS, 'inbox-search.png'), fullPage: true });

    await page.getByRole('search').getByRole('button', { name: 'Clear' }).click();
    await page.locator(`tr[data-message="${miss}"]`).waitFor();
  });

  it('finds a thread by a word of a message in it, the word marked, on Threads', async () => {
    const hit = await receive('Site visit', 'The quokka enclosure needs a new gate <b>now</b>.');
    const miss = await receive('Parking', 'Nothing about animals.');
    const threadOf = async (id: string) =>
      (await s.call('GET', `/v1/identities/${s.agent.id}/messages/${id}`)).body.thread_id as string;
    const [hitThread, missThread] = [await threadOf(hit), await threadOf(miss)];

    await open(`threads?identity=${s.agent.id}`, 'Threads');
    await page.locator(`tr[data-thread="${missThread}"]`).waitFor();
    await page.getByRole('search').getByLabel('Search').fill('quokka');
    await page.getByRole('search').getByRole('button', { name: 'Search' }).click();
    await page.locator(`tr[data-thread="${missThread}"]`).waitFor({ state: 'detached' });
    const row = page.locator(`tr[data-thread="${hitThread}"]`);
    expect(await row.locator('mark').allTextContents()).toEqual(['quokka']);
    await row.getByText('<b>now</b>', { exact: false }).waitFor();
    expect(await row.locator('b').count()).toBe(0);
    await page.screenshot({ path: join(SHOTS, 'threads-search.png'), fullPage: true });
  });

  it('marks a highlight at its offsets, as text nodes, whatever the offsets and the text', async () => {
    // An answer of the list call, made here: a highlight whose text is markup, with a match in
    // range, one past its end and one overlapping it, and an astral character before the match.
    const text = '😀 <b onmouseover="window.pwned=3">zanzibar</b> <script>window.pwned=4</script>';
    const start = text.indexOf('zanzibar');
    const fake = {
      data: [
        {
          id: 'msg_fake',
          thread_id: 'thr_fake',
          identity_id: s.agent.id,
          direction: 'inbound',
          status: 'received',
          from: { address: 'stranger@outside.example' },
          to: [{ address: s.agent.address }],
          cc: [],
          bcc: [],
          subject: HOSTILE,
          snippet: null,
          labels: ['<i>x</i>'],
          received_at: new Date().toISOString(),
          sent_at: null,
          highlight: {
            field: '<u>text</u>',
            text,
            matches: [
              { start, end: start + 8 },
              { start: start + 2, end: start + 5 },
              { start: text.length, end: text.length + 4 },
            ],
          },
        },
      ],
      next_cursor: null,
    };
    await page.route(/\/v1\/identities\/[^/]+\/messages\?.*q=/, (route) =>
      route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(fake) }),
    );
    try {
      await open(`messages?identity=${s.agent.id}&q=zanzibar`, 'Messages');
      const row = page.locator('tr[data-message="msg_fake"]');
      expect(await row.locator('mark').allTextContents()).toEqual(['zanzibar']);
      await row.getByText(text.slice(0, start), { exact: false }).waitFor();
      expect(await row.locator('b, script, u, i').count()).toBe(0);
      await nothingRan();
    } finally {
      await page.unroute(/\/v1\/identities\/[^/]+\/messages\?.*q=/);
    }
  });
});
