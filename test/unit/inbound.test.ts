import { describe, expect, it } from 'vitest';
import {
  autoReplyReason,
  capExceeded,
  cutUtf8,
  dedupeKey,
  INBOUND_CAPS,
  laterCopy,
  MAX_HTML_NESTING,
  MAX_HTML_READ_CHARS,
  mimeShape,
  normaliseRecipient,
  replyCandidates,
  riskyAttachment,
  senderAuth,
  sesDkimPasses,
  snippetOf,
  threadDecision,
  verdictFlags,
  verifiedThreadToken,
} from '../../functions/core/inbound.ts';
import { threadTokenReplyTo } from '../../functions/core/submit-pipeline.ts';
import { htmlText, readableHtml, sanitise } from '../../functions/inbound/html.ts';
import { parseInbound } from '../../functions/inbound/parse.ts';

const enc = (s: string) => new TextEncoder().encode(s);
const small = { ...INBOUND_CAPS, maxParts: 5, maxDepth: 3, maxHeaderBytes: 200, maxBytes: 4000 };

function multipart(depth: number, parts: number): string {
  let body = 'leaf\r\n';
  for (let d = depth; d >= 1; d--) {
    const inner = Array.from({ length: d === depth ? parts : 1 }, () => body);
    body = `Content-Type: multipart/mixed; boundary="b${d}"\r\n\r\n${inner
      .map((p) => `--b${d}\r\n${p.startsWith('Content-Type') ? p : `Content-Type: text/plain\r\n\r\n${p}`}`)
      .join('\r\n')}\r\n--b${d}--\r\n`;
  }
  return `From: a@example.org\r\nSubject: s\r\n${body}`;
}

describe('core/inbound.ts › the caps', () => {
  it.each([
    ['a plain message', 'From: a@example.org\r\nSubject: hi\r\n\r\nbody\r\n', undefined],
    ['too large', `From: a@example.org\r\n\r\n${'x'.repeat(5000)}`, 'size'],
    ['a header block over its cap', `X-Long: ${'h'.repeat(300)}\r\n\r\nbody`, 'header'],
    ['parts within the cap', multipart(1, 4), undefined],
    ['more parts than the cap', multipart(1, 6), 'parts'],
    ['nesting within the cap', multipart(3, 1), undefined],
    ['nesting deeper than the cap', multipart(4, 1), 'depth'],
  ])('%s → %s', (_name, raw, cap) => {
    expect(capExceeded(mimeShape(enc(raw), small), small)).toBe(cap);
  });

  it('counts a multipart part by part, not by boundary-looking text inside a part', () => {
    const raw =
      'Content-Type: multipart/mixed; boundary="x"\r\n\r\n--x\r\nContent-Type: text/plain\r\n\r\n--y\r\n--xx\r\n--x\r\n\r\ntwo\r\n--x--\r\n';
    expect(mimeShape(enc(raw))).toMatchObject({ parts: 3, depth: 1 });
  });
});

describe('core/inbound.ts › normaliseRecipient', () => {
  it.each([
    ['Agent@Example.COM', { address: 'agent@example.com' }],
    ['<agent+news@Example.com>', { address: 'agent@example.com', detail: 'news' }],
    [' agent+t01.abc@example.com ', { address: 'agent@example.com', detail: 't01.abc' }],
    ['agent@BÜCHER.example', { address: 'agent@xn--bcher-kva.example' }],
    ['+only@example.com', { address: '+only@example.com' }],
    ['not an address', undefined],
    ['agent@', undefined],
  ])('%s', (rcpt, out) => {
    expect(normaliseRecipient(rcpt)).toEqual(out);
  });
});

describe('core/inbound.ts › dedupeKey', () => {
  const msg = 'From: a@example.org\r\nMessage-ID: <1@example.org>\r\nSubject: s\r\n\r\nbody\r\n';
  const key = dedupeKey(enc(msg), 'agent@example.com');

  it.each([
    ['a Received header', `Received: from x by y;\r\n\tThu, 3 Dec 2026 10:00:00 +0000\r\n${msg}`],
    [
      'SES headers and results',
      `X-SES-Spam-Verdict: PASS\r\nX-SES-Virus-Verdict: PASS\r\nAuthentication-Results: a; spf=pass\r\n${msg}`,
    ],
    ['Return-Path and ARC', `Return-Path: <a@example.org>\r\nARC-Seal: i=1; a=rsa-sha256\r\n${msg}`],
  ])('is the same with %s added on top', (_name, raw) => {
    expect(dedupeKey(enc(raw), 'agent@example.com')).toBe(key);
  });

  it.each([
    ['another recipient', msg, 'peer@example.com'],
    ['another body', msg.replace('body', 'bodY'), 'agent@example.com'],
    [
      'a trace header below the sender’s own',
      msg.replace('Subject: s\r\n', 'Subject: s\r\nReceived: x\r\n'),
      'agent@example.com',
    ],
  ])('differs for %s', (_name, raw, rcpt) => {
    expect(dedupeKey(enc(raw), rcpt)).not.toBe(key);
  });
});

describe('core/inbound.ts › autoReplyReason', () => {
  const h = (entries: [string, string][]) => new Map(entries);
  it.each([
    [[['auto-submitted', 'auto-replied']], 'x@example.org', 'auto_submitted'],
    [[['auto-submitted', 'no']], 'x@example.org', undefined],
    [[['precedence', 'bulk']], 'x@example.org', 'precedence'],
    [[['precedence', 'first-class']], 'x@example.org', undefined],
    [[['list-id', '<news.example.org>']], 'x@example.org', 'list'],
    [[['x-autoreply', 'yes']], 'x@example.org', 'autoresponder'],
    [[], '', 'null_sender'],
    [[], 'x@example.org', undefined],
  ] as [[string, string][], string, string | undefined][])('%j from %s → %s', (headers, source, reason) => {
    expect(autoReplyReason(h(headers), source)).toBe(reason);
  });
});

describe('core/inbound.ts › riskyAttachment', () => {
  it.each([
    ['invoice.pdf.exe', 'application/pdf', 'executable'],
    ['run.JS', 'text/plain', 'script'],
    ['shortcut.lnk', 'application/octet-stream', 'script'],
    ['budget.xlsm', 'application/octet-stream', 'macro_document'],
    ['photos.zip', 'application/zip', 'archive'],
    ['disk.iso', 'application/octet-stream', 'archive'],
    [undefined, 'application/x-msdownload', 'executable'],
    [undefined, 'application/vnd.ms-excel.sheet.macroEnabled.12', 'macro_document'],
    ['report.pdf', 'application/pdf', undefined],
    ['notes.docx', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', undefined],
    ['picture.png', 'image/png', undefined],
  ])('%s (%s) → %s', (name, type, risk) => {
    expect(riskyAttachment(name, type)).toBe(risk);
  });
});

describe('core/inbound.ts › verifiedThreadToken', () => {
  const key = 'hash-key';
  const thread = 'thr_01jabcdefghjkmnpqrstvwxyz0';
  const detailOf = (identity: string, t = thread, k = key) =>
    threadTokenReplyTo(k, { address: 'agent@example.com' }, identity, t)!.address.split('@')[0].split('+')[1];

  it('verifies the token pmail put in Reply-To for this identity', () => {
    expect(verifiedThreadToken(key, 'idn_a', detailOf('idn_a'))).toBe(thread);
  });

  it.each([
    ['another identity’s token', () => detailOf('idn_b')],
    ['a token made with another key', () => detailOf('idn_a', thread, 'other-key')],
    ['a changed thread', () => detailOf('idn_a').replace('0.', '1.')],
    ['a changed MAC', () => detailOf('idn_a').replace(/.$/, (c) => (c === '0' ? '1' : '0'))],
    ['no token', () => 'news'],
    ['nothing', () => undefined],
  ])('rejects %s', (_name, detail) => {
    expect(verifiedThreadToken(key, 'idn_a', detail())).toBeUndefined();
  });
});

describe('core/inbound.ts › threading order', () => {
  it('the token first, then the reply headers, else a new thread', () => {
    expect(threadDecision({ tokenThread: 'thr_a', repliedThread: 'thr_b', messageUlid: 'u' })).toEqual({
      threadId: 'thr_a',
      by: 'token',
    });
    expect(threadDecision({ repliedThread: 'thr_b', messageUlid: 'u' })).toEqual({
      threadId: 'thr_b',
      by: 'in_reply_to',
    });
    expect(threadDecision({ messageUlid: 'u' })).toEqual({ threadId: 'thr_u', by: 'new' });
  });

  it('tries In-Reply-To, then References newest first, each once', () => {
    expect(replyCandidates('<c@x>', ['<a@x>', '<b@x>', '<c@x>'])).toEqual(['<c@x>', '<b@x>', '<a@x>']);
    expect(
      replyCandidates(
        undefined,
        Array.from({ length: 20 }, (_, i) => `<${i}@x>`),
      ),
    ).toHaveLength(10);
  });
});

describe('core/inbound.ts › verdicts, snippet, cuts', () => {
  it('quarantines a virus FAIL and marks a spam FAIL', () => {
    expect(verdictFlags({ virus: 'FAIL', spam: 'FAIL' })).toEqual(['quarantined', 'spam']);
    expect(verdictFlags({ virus: 'PASS', spam: 'GRAY' })).toEqual([]);
  });

  it('snippets collapse whitespace and stop at 140 characters', () => {
    expect(snippetOf('  a\n\n b  ')).toBe('a b');
    expect(snippetOf('x'.repeat(300))).toHaveLength(140);
  });

  it('cuts UTF-8 at a character', () => {
    expect(cutUtf8('ééé', 5)).toEqual({ value: 'éé', cut: true });
    expect(cutUtf8('abc', 5)).toEqual({ value: 'abc', cut: false });
  });
});

describe('inbound/parse.ts › parseInbound', () => {
  it('derives the text from the HTML when only HTML came, and sanitises the HTML', async () => {
    const raw =
      'From: a@example.org\r\nSubject: html\r\nContent-Type: text/html; charset=utf-8\r\n\r\n' +
      '<p onclick="x()">Hello <b>there</b></p><script>steal()</script><a href="javascript:x()">l</a>\r\n';
    const p = await parseInbound(enc(raw));
    expect(p.parse).toBe('parsed');
    expect(p.text).toContain('Hello there');
    expect(p.html).toContain('<b>there</b>');
    expect(p.html).not.toMatch(/script|onclick|javascript/);
  });

  it('lists attachments with type, size and the risky flag', async () => {
    const raw = [
      'From: a@example.org',
      'Subject: files',
      'Content-Type: multipart/mixed; boundary="q"',
      '',
      '--q',
      'Content-Type: text/plain',
      '',
      'see attached',
      '--q',
      'Content-Type: application/octet-stream; name="setup.exe"',
      'Content-Disposition: attachment; filename="setup.exe"',
      'Content-Transfer-Encoding: base64',
      '',
      Buffer.from('MZ-binary').toString('base64'),
      '--q',
      'Content-Type: application/pdf; name="a.pdf"',
      'Content-Disposition: attachment; filename="a.pdf"',
      '',
      '%PDF',
      '--q--',
      '',
    ].join('\r\n');
    const p = await parseInbound(enc(raw));
    expect(p.attachments).toEqual([
      { filename: 'setup.exe', content_type: 'application/octet-stream', size: 9, risky: 'executable' },
      { filename: 'a.pdf', content_type: 'application/pdf', size: expect.any(Number) },
    ]);
  });

  it('over a cap reads the headers only', async () => {
    const p = await parseInbound(enc(multipart(1, 6)), { caps: small });
    expect(p).toMatchObject({ parse: 'oversize', cap: 'parts', subject: 's', attachments: [] });
    expect(p.text).toBeUndefined();
  });

  it('recognises a delivery status notification', async () => {
    const raw =
      'From: MAILER-DAEMON@example.net\r\nSubject: Undelivered\r\n' +
      'Content-Type: multipart/report; report-type=delivery-status; boundary="r"\r\n\r\n--r\r\nContent-Type: text/plain\r\n\r\nfailed\r\n--r--\r\n';
    expect((await parseInbound(enc(raw))).isDsn).toBe(true);
  });

  it('keeps mail clients’ formatting through the sanitiser', () => {
    expect(sanitise('<table width="100"><tr><td bgcolor="#fff">x</td></tr></table><img src="cid:a">')).toBe(
      '<table width="100"><tr><td bgcolor="#fff">x</td></tr></table><img src="cid:a" />',
    );
  });
});

describe('inbound/html.ts › readableHtml: what the text and the sanitiser read', () => {
  it.each([
    [
      'a short body, all of it',
      '<p>Hello <b>there</b></p>',
      { value: '<p>Hello <b>there</b></p>', cut: false },
    ],
    [
      'a long one, up to the last tag that starts within the bound',
      `<p>${'<b>x</b>'.repeat(100_000)}</p>`,
      { cut: true },
    ],
    [
      'one nested deeper than the bound, up to the element too deep',
      `${'<div>'.repeat(2000)}deep`,
      { cut: true },
    ],
    [
      'unclosed cells and paragraphs do not nest',
      `<table><tr>${'<td>x'.repeat(5000)}</table>${'<p>x'.repeat(5000)}`,
      { cut: false },
    ],
  ])('%s', (_name, html, expected) => {
    const r = readableHtml(html);
    expect(r).toMatchObject(expected);
    expect(html.startsWith(r.value)).toBe(true);
    expect(r.value.length).toBeLessThanOrEqual(MAX_HTML_READ_CHARS);
  });

  it('stops before the first element opened deeper than MAX_HTML_NESTING', () => {
    const r = readableHtml(`${'<div>'.repeat(MAX_HTML_NESTING + 10)}deep`);
    expect(r.value).toBe('<div>'.repeat(MAX_HTML_NESTING));
  });

  it('a long run of inline elements becomes one line of text, unwrapped', () => {
    expect(htmlText(`<p>${'<b>x</b><i>y</i>'.repeat(50)}</p>`)).toBe('xy'.repeat(50));
  });
});

describe('core/inbound.ts › senderAuth: whether a received message proves its From', () => {
  const ses = (results: string) => `amazonses.com;\r\n ${results}`;
  it.each([
    ["SES's DMARC PASS", { dmarc: 'PASS' }, 'a@example.org', undefined, 'authenticated'],
    [
      'DKIM PASS for the From’s domain',
      { dkim: 'PASS' },
      'a@example.org',
      ses('dkim=pass header.i=@example.org'),
      'authenticated',
    ],
    [
      'DKIM PASS (header.d) for a parent of it',
      { dkim: 'PASS' },
      'a@mail.example.org',
      ses('dkim=pass header.d=example.org'),
      'authenticated',
    ],
    [
      'DKIM PASS for a subdomain of it only',
      { dkim: 'PASS' },
      'a@example.org',
      ses('dkim=pass header.i=@mail.example.org'),
      'unverified',
    ],
    [
      'DKIM PASS for another domain',
      { dkim: 'PASS' },
      'a@example.org',
      ses('dkim=pass header.i=@attacker.example'),
      'unverified',
    ],
    [
      'DKIM PASS whose signature failed for the From’s domain',
      { dkim: 'PASS' },
      'a@example.org',
      ses('dkim=fail header.i=@example.org; dkim=pass header.i=@attacker.example'),
      'unverified',
    ],
    [
      'a results header the sender wrote (not SES’s)',
      { dkim: 'PASS' },
      'a@example.org',
      'mx.example.org; dkim=pass header.i=@example.org',
      'unverified',
    ],
    [
      'the domain only inside a comment',
      { dkim: 'PASS' },
      'a@example.org',
      ses('dkim=pass (header.i=@example.org) header.i=@attacker.example'),
      'unverified',
    ],
    [
      'the header without SES’s DKIM verdict (the local MX: every verdict GRAY)',
      { dkim: 'GRAY', dmarc: 'GRAY' },
      'a@example.org',
      ses('dkim=pass header.i=@example.org'),
      'unverified',
    ],
    ['DMARC FAIL', { dmarc: 'FAIL', dkim: 'FAIL' }, 'a@example.org', undefined, 'failed'],
    ['no verdicts at all', {}, 'a@example.org', undefined, 'unverified'],
  ] as const)('%s', (_name, verdicts, from, header, expected) => {
    expect(senderAuth(verdicts, from, header)).toBe(expected);
  });

  it('reads the passing DKIM domains of SES’s header only', () => {
    expect(
      sesDkimPasses(
        ses(
          'spf=pass (spfCheck: x) smtp.mailfrom=a@b.example; dkim=pass header.i=@Gmail.com; dkim=pass header.i=@amazonses.com; dmarc=pass header.from=gmail.com',
        ),
      ),
    ).toEqual(['gmail.com', 'amazonses.com']);
    expect(sesDkimPasses('example.net; dkim=pass header.i=@gmail.com')).toEqual([]);
    expect(sesDkimPasses(undefined)).toEqual([]);
  });
});

describe('core/inbound.ts › laterCopy: a copy with a Message-ID the identity received', () => {
  it.each([
    ['same From, same authentication', 'unverified', 'unverified', 'a@x.org', { type: 'duplicate' }],
    ['same From, both authenticated', 'authenticated', 'authenticated', 'a@x.org', { type: 'duplicate' }],
    ['same From in other case', 'unverified', 'unverified', 'A@X.ORG', { type: 'duplicate' }],
    [
      'same From, the first failed DMARC, the later has no verdict',
      'failed',
      'unverified',
      'a@x.org',
      { type: 'duplicate' },
    ],
    [
      'another From',
      'unverified',
      'unverified',
      'b@x.org',
      { type: 'possible_duplicate', reason: 'other_sender' },
    ],
    [
      'same From, authenticated worse',
      'authenticated',
      'unverified',
      'a@x.org',
      { type: 'possible_duplicate', reason: 'authentication_differs' },
    ],
    [
      'same From, the later proves what the first did not',
      'unverified',
      'authenticated',
      'a@x.org',
      { type: 'possible_duplicate', reason: 'authentication_differs' },
    ],
  ] as const)('%s', (_name, firstAuth, laterAuth, laterFrom, expected) => {
    expect(laterCopy({ from: 'a@x.org', auth: firstAuth }, { from: laterFrom, auth: laterAuth })).toEqual(
      expected,
    );
  });
});
