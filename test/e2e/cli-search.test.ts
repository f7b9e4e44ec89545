import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { markedPassage } from '../../bin/cli/search.ts';
import { startHttpServer } from '../../functions/local/http-server.ts';
import { silentLogger } from '../../functions/log.ts';
import { runInProcess } from '../support/cli.ts';
import { type TestStack, testStack } from '../support/local.ts';

/**
 * `pmail search` (docs/guides/cli.md › Searching mail) against the local stack's HTTP server: mail
 * from the local MX found by a word of its body, printed as one line per hit and the passage it
 * matched in with the match marked, the mail's escape sequences replaced; `--json` the API's page;
 * `--tenant` across the tenant's identities; a bad query the API's invalid_query.
 */
const EMPTY_STATE = mkdtempSync(join(tmpdir(), 'pmail-cli-search-'));
const WORD = `brightwell${randomBytes(4).toString('hex')}`;
/** Escape sequences a hostile mail carries: clear the screen, recolour, a hidden line. */
const ESC = '\x1b[2J\x1b[31m';
let s: TestStack;
let http: Awaited<ReturnType<typeof startHttpServer>>;

async function mail(to: string, subject: string, text: string): Promise<void> {
  const info = await nodemailer
    .createTransport({ host: s.mx!.host, port: s.mx!.port, secure: false, ignoreTLS: true })
    .sendMail({ from: { name: 'Ann Brightwell', address: 'ann@simulator.invalid' }, to, subject, text });
  expect(info.response).toMatch(/^250 /);
}

beforeAll(async () => {
  s = await testStack({ inbound: { port: 0 }, config: { simEventDelaySeconds: 0 } });
  http = await startHttpServer(s.groups, { port: 0, log: silentLogger });
  await mail(s.agent.address, `March ${ESC}invoice`, `Hello,\nthe ${ESC} ${WORD} invoice\tfor March.\r\nAnn`);
  await mail(s.agent.address, 'Lunch', 'Lunch on Tuesday? No invoice in this one.');
  await mail(s.peer.address, 'Dock', `The dock is ready; ${WORD} too.`);
}, 60_000);
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

/** `pmail search ARGS` until it prints `n` hits (the index may trail the message's commit). */
async function searched(args: string[], n = 1) {
  return s.eventually(async () => {
    const run = await pmail(['search', ...args, '--json']);
    expect(run.code, run.stderr).toBe(0);
    return JSON.parse(run.stdout).data.length >= n && run;
  }, 20_000);
}

describe('pmail search', () => {
  it('prints each hit on a line and the passage with the match marked, the mail’s escapes replaced', async () => {
    await searched([WORD]);
    const run = await pmail(['search', WORD]);
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^\d{4}-\d\d-\d\dT\S+ {2}Ann Brightwell <ann@simulator\.invalid> {2}March /);
    expect(lines[0]).toMatch(/ {2}msg_[0-9a-z]{26}$/);
    expect(lines[1]).toMatch(new RegExp(`^ {4}(text|extracted_text): .*«${WORD}» invoice for March`));
    expect(run.stdout).not.toContain('\x1b');
    expect(run.stdout).not.toContain('\r');
    expect(run.stdout).toContain('\uFFFD[2J');
    expect(run.stdout).not.toContain('Lunch');
  });

  it('--json prints the API’s page, each hit with its highlight', async () => {
    const run = await searched([WORD, '--limit', '5']);
    const page = JSON.parse(run.stdout);
    expect(page.next_cursor).toBeNull();
    expect(page.data).toHaveLength(1);
    const [hit] = page.data;
    const [m] = hit.highlight.matches;
    expect(hit.highlight.text.slice(m.start, m.end).toLowerCase()).toBe(WORD);
  });

  it('--tenant searches every identity of the key’s tenant, each hit naming its identity', async () => {
    await searched([WORD, '--tenant'], 2);
    const run = await pmail(['search', WORD, '--tenant']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`Dock  msg_`);
    expect(run.stdout).toContain(s.peer.id);
    expect(run.stdout).toContain(s.agent.id);
  });

  it('a filter narrows it, and a query over the limits is invalid_query (exit 7)', async () => {
    const none = await pmail(['search', WORD, '--from', 'nowhere.example']);
    expect(none.code, none.stderr).toBe(0);
    expect(none.stdout).toBe('no messages found\n');
    const words = Array.from({ length: 17 }, (_, i) => `w${i}`);
    const bad = await pmail(['search', ...words]);
    expect(bad.code).toBe(7);
    expect(bad.stderr).toContain('invalid_query');
  });
});

describe('the marked passage', () => {
  it('marks each match on one line, whatever the offsets and the text', () => {
    const text = 'Line one\nthe Invoice,\r\nand\x07 INVOICE again';
    const at = (w: string, from = 0) => text.indexOf(w, from);
    expect(
      markedPassage({
        field: 'text',
        text,
        matches: [
          { start: at('INVOICE'), end: at('INVOICE') + 7 },
          { start: at('Invoice'), end: at('Invoice') + 7 },
          { start: 500, end: 600 },
        ],
      }),
    ).toBe('Line one the «Invoice», and\uFFFD «INVOICE» again');
    expect(markedPassage({ field: 'subject', text: 'héllo wörld', matches: [] })).toBe('héllo wörld');
  });
});
