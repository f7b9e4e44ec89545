import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpServer } from '../../functions/local/http-server.ts';
import { silentLogger } from '../../functions/log.ts';
import { type TestStack, testStack } from '../support/local.ts';

/**
 * Finding mail in the console, in a real browser (Debian's chromium, driven by playwright-core)
 * against the local HTTP server (docs/guides/console.md › Labels and search): a thread's labels
 * added and removed on its page, shown as chips on the Threads list, a chip filtering the list by
 * its label, a refused label shown as the API's refusal. Screenshots under test-output/console-find/.
 */
const CHROMIUM = process.env.PMAIL_CHROMIUM ?? '/usr/bin/chromium';
const SHOTS = join(import.meta.dirname, '../../test-output/console-find');

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
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
  await page.getByText('Loading…').first().waitFor({ state: 'detached' });
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
});
