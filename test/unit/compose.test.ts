import { type ParsedMail, simpleParser } from 'mailparser';
import { describe, expect, it } from 'vitest';
import {
  type ComposeInput,
  checkContent,
  composePlan,
  FORWARD_MARKER,
  serviceHeaderCount,
} from '../../functions/core/compose.ts';
import { PmailError } from '../../functions/core/errors.ts';
import { validateCustomHeaders } from '../../functions/core/headers.ts';
import {
  forwardSubject,
  organisationalDomain,
  type RepliedMessage,
  replyAllRecipients,
  replySubject,
  replyTarget,
  threadReferences,
  trimReferences,
} from '../../functions/core/reply.ts';
import { buildMime } from '../../functions/send/mime.ts';

/**
 * How a message is composed (functions/core/compose.ts): its body, headers, threading headers and
 * subject, the custom headers' allowlist and the content limits (docs/guides/sending.md › Send a
 * message; docs/architecture.md › The submit path).
 */

const NOW = Date.UTC(2026, 8, 14, 8, 12, 0);
const MESSAGE_ID = '<01jtestcompose@agents.example>';
const URL = 'https://unsub.example.com/u/abc123';
const b64 = (s: string) => Buffer.from(s).toString('base64');

const base: ComposeInput = {
  rfcMessageId: MESSAGE_ID,
  now: NOW,
  from: { address: 'bookings.acme@agents.example', name: 'Acme Car Hire' },
  recipients: [
    { address: 'customer@example.com', field: 'to', name: 'Customer' },
    { address: 'copy@example.com', field: 'cc' },
    { address: 'secret-bcc@example.com', field: 'bcc' },
  ],
  subject: 'Your booking',
  text: 'Hello there',
  hop: 1,
};

const original = {
  from: { address: 'accounts@brightwell.example', name: 'Brightwell <Leeds>' },
  date: Date.UTC(2026, 8, 13, 7, 0, 0),
  subject: 'Invoice 88213',
  to: [{ address: 'bookings.acme@agents.example' }],
  cc: [{ address: 'ledger@brightwell.example' }],
  text: 'Please find the invoice attached.',
  html:
    '<html><head><style>p{}</style></head><body><p onclick="steal()">Please pay</p><p>onions = 3</p><img src=x onerror=alert(1)>' +
    '<script>alert(1)</script><a href="javascript:alert(2)">pay</a><a href="https://pay.example">ok</a></body></html>',
};

const NOTE = [
  FORWARD_MARKER,
  'From: Brightwell <Leeds> <accounts@brightwell.example>',
  'Date: Sun, 13 Sep 2026 07:00:00 +0000',
  'Subject: Invoice 88213',
  'To: bookings.acme@agents.example',
  'Cc: ledger@brightwell.example',
].join('\n');

/** The raw header lines, unfolded, by lower-case name. */
function rawHeaders(raw: string): Map<string, string[]> {
  const head = raw.slice(0, raw.indexOf('\r\n\r\n')).replace(/\r\n[ \t]+/g, ' ');
  const out = new Map<string, string[]>();
  for (const line of head.split('\r\n')) {
    const name = line.slice(0, line.indexOf(':')).toLowerCase();
    out.set(name, [...(out.get(name) ?? []), line]);
  }
  return out;
}

const manyRefs = Array.from(
  { length: 60 },
  (_, i) => `<ref-${String(i).padStart(3, '0')}-${'x'.repeat(30)}@mail.example>`,
);

/** The text part as sent: mailparser adds a line break at the end of a single-part body. */
const textOf = (m: ParsedMail) => (m.text ?? '').replace(/\n$/, '');

interface Row {
  name: string;
  input: Partial<ComposeInput>;
  check: (mail: ParsedMail, headers: Map<string, string[]>) => void;
}

const rows: Row[] = [
  {
    name: 'a send appends the text signature after the user text',
    input: { signature: { text: 'Acme team', html: '<b>Acme</b> team' } },
    check: (m) => {
      expect(textOf(m)).toBe('Hello there\n\n-- \nAcme team');
      expect(m.html).toBeFalsy();
    },
  },
  {
    name: 'a send derives text from HTML and puts the HTML signature before </body>',
    input: {
      text: undefined,
      html: '<html><body><p>Hello &amp; welcome</p></body></html>',
      signature: { text: 'Acme team', html: '<b>Acme</b> team' },
    },
    check: (m) => {
      expect(textOf(m)).toBe('Hello & welcome\n\n-- \nAcme team');
      expect(m.html).toBe(
        '<html><body><p>Hello &amp; welcome</p><br><br>-- <br><b>Acme</b> team</body></html>',
      );
    },
  },
  {
    name: 'a forward puts the signature after the transfer note and the original',
    input: {
      operation: 'forward',
      subject: 'Invoice 88213',
      forward: { ...original, html: undefined },
      signature: { text: 'Acme team' },
    },
    check: (m) => {
      expect(textOf(m)).toBe(`Hello there\n\n${NOTE}\n\nPlease find the invoice attached.\n\n-- \nAcme team`);
    },
  },
  {
    name: 'the disclosure footer goes after the signature in text and, escaped, in HTML',
    input: {
      html: '<p>Hi</p>',
      signature: { text: 'Acme team' },
      disclosure: { mode: 'footer', text: 'Written by an AI <agent> & checked' },
    },
    check: (m, h) => {
      expect(textOf(m)).toBe('Hello there\n\n-- \nAcme team\n\nWritten by an AI <agent> & checked');
      expect(m.html).toBe(
        '<p>Hi</p><br><br>-- <br>Acme team<p>Written by an AI &lt;agent&gt; &amp; checked</p>',
      );
      expect(h.has('x-ai-generated')).toBe(false);
    },
  },
  {
    name: 'the disclosure header mode adds X-AI-Generated: true and leaves the body alone',
    input: { disclosure: { mode: 'header', text: 'Written by an AI' } },
    check: (m, h) => {
      expect(h.get('x-ai-generated')).toEqual(['X-AI-Generated: true']);
      expect(textOf(m)).toBe('Hello there');
    },
  },
  {
    name: 'the disclosure mode none adds neither header nor footer',
    input: { disclosure: { mode: 'none', text: 'Written by an AI' } },
    check: (m, h) => {
      expect(h.has('x-ai-generated')).toBe(false);
      expect(textOf(m)).toBe('Hello there');
    },
  },
  {
    name: 'marketing writes both List-Unsubscribe headers exactly and a visible footer',
    input: { html: '<p>Sale</p>', marketing: { url: URL, mailto: 'unsub@example.com' } },
    check: (m, h) => {
      expect(h.get('list-unsubscribe')).toEqual([`List-Unsubscribe: <${URL}>, <mailto:unsub@example.com>`]);
      expect(h.get('list-unsubscribe-post')).toEqual(['List-Unsubscribe-Post: List-Unsubscribe=One-Click']);
      expect(textOf(m)).toBe(`Hello there\n\nUnsubscribe: ${URL}`);
      expect(m.html).toBe(`<p>Sale</p><p><a href="${URL}">Unsubscribe</a></p>`);
    },
  },
  {
    name: 'marketing adds no footer when the body already has the URL, and no mailto when none is given',
    input: {
      text: `Stop these: ${URL}`,
      html: `<p><a href="${URL}">stop</a></p>`,
      marketing: { url: URL },
    },
    check: (m, h) => {
      expect(h.get('list-unsubscribe')).toEqual([`List-Unsubscribe: <${URL}>`]);
      expect(textOf(m)).toBe(`Stop these: ${URL}`);
      expect(m.html).toBe(`<p><a href="${URL}">stop</a></p>`);
    },
  },
  {
    name: 'a forward adds the note in text and HTML, quotes the sanitised original and re-attaches its files',
    input: {
      operation: 'forward',
      subject: 'Invoice 88213',
      html: '<p>FYI</p>',
      attachments: [{ filename: 'mine.txt', content_type: 'text/plain', content_base64: b64('mine') }],
      forward: original,
      forwardAttachments: [
        { filename: 'invoice.pdf', content_type: 'application/pdf', content_base64: b64('%PDF-1.4') },
      ],
      references: ['<orig@brightwell.example>'],
    },
    check: (m) => {
      expect(m.subject).toBe('Fwd: Invoice 88213');
      expect(textOf(m)).toBe(`Hello there\n\n${NOTE}\n\nPlease find the invoice attached.`);
      const html = m.html as string;
      expect(html).toContain(
        '<div>---------- Forwarded message ---------<br>From: Brightwell &lt;Leeds&gt; &lt;accounts@brightwell.example&gt;<br>',
      );
      expect(html).toContain('<br>Cc: ledger@brightwell.example</div>');
      expect(html).toMatch(
        /<blockquote><p>Please pay<\/p><p>onions = 3<\/p><img src=x><a href="#">pay<\/a><a href="https:\/\/pay.example">ok<\/a><\/blockquote>$/,
      );
      expect(html).not.toMatch(/script|onclick|onerror|javascript:|<style|<body/i);
      expect(m.attachments.map((a) => [a.filename, a.content.toString()])).toEqual([
        ['mine.txt', 'mine'],
        ['invoice.pdf', '%PDF-1.4'],
      ]);
      expect(m.references).toBe('<orig@brightwell.example>');
      expect(m.inReplyTo).toBeUndefined();
    },
  },
  {
    name: 'a forward of a text-only original quotes the escaped text in HTML',
    input: {
      operation: 'forward',
      subject: 'Fw: Invoice 88213',
      html: '<p>FYI</p>',
      forward: { ...original, html: undefined, cc: [], text: 'Line 1 <b>\nLine 2' },
    },
    check: (m) => {
      expect(m.subject).toBe('Fw: Invoice 88213');
      expect(textOf(m)).not.toContain('Cc:');
      expect(m.html).toMatch(/<blockquote>Line 1 &lt;b&gt;<br>Line 2<\/blockquote>$/);
    },
  },
  {
    name: 'a reply gets Re:, In-Reply-To, References and the thread-token Reply-To',
    input: {
      operation: 'reply',
      subject: 'Invoice 88213',
      inReplyTo: '<orig@brightwell.example>',
      references: ['<root@brightwell.example>', '<orig@brightwell.example>'],
      replyTo: { address: 'bookings.acme+t03k.9f2mq7xa@agents.example', name: 'Acme Car Hire' },
      hop: 3,
    },
    check: (m, h) => {
      expect(m.subject).toBe('Re: Invoice 88213');
      expect(m.inReplyTo).toBe('<orig@brightwell.example>');
      expect(m.references).toEqual(['<root@brightwell.example>', '<orig@brightwell.example>']);
      expect(m.replyTo?.value).toEqual([
        { address: 'bookings.acme+t03k.9f2mq7xa@agents.example', name: 'Acme Car Hire' },
      ]);
      expect(h.get('x-pmail-hop')).toEqual(['X-Pmail-Hop: 3']);
    },
  },
  {
    name: 'a reply to an already prefixed subject keeps it unchanged',
    input: { operation: 'reply_all', subject: 'RE: Invoice 88213' },
    check: (m, h) => {
      expect(m.subject).toBe('RE: Invoice 88213');
      expect(h.has('in-reply-to')).toBe(false);
      expect(h.has('references')).toBe(false);
      expect(h.has('reply-to')).toBe(false);
    },
  },
  {
    name: 'References over 2,048 bytes drop the oldest entries after the first',
    input: { operation: 'reply', inReplyTo: manyRefs[59], references: manyRefs },
    check: (m, h) => {
      const refs = m.references as string[];
      expect(refs[0]).toBe(manyRefs[0]);
      expect(refs.at(-1)).toBe(manyRefs[59]);
      expect(refs).toEqual([manyRefs[0], ...manyRefs.slice(60 - (refs.length - 1))]);
      expect(Buffer.byteLength(refs.join(' '))).toBeLessThanOrEqual(2048);
      expect(Buffer.byteLength([manyRefs[0], ...manyRefs.slice(60 - refs.length)].join(' '))).toBeGreaterThan(
        2048,
      );
      expect(h.get('references')?.[0]).toBe(`References: ${refs.join(' ')}`);
    },
  },
  {
    name: 'an auto-reply carries Auto-Submitted: auto-replied',
    input: { operation: 'reply', autoReply: true },
    check: (_m, h) => {
      expect(h.get('auto-submitted')).toEqual(['Auto-Submitted: auto-replied']);
    },
  },
  {
    name: 'custom headers are sent with their validated names and values',
    input: { customHeaders: validateCustomHeaders({ 'x-Order-Ref': 'A-17', importance: 'HIGH' }) },
    check: (_m, h) => {
      expect(h.get('x-order-ref')).toEqual(['x-Order-Ref: A-17']);
      expect(h.get('importance')).toEqual(['Importance: high']);
    },
  },
  {
    name: 'an inline part keeps its content id next to the HTML that references it',
    input: {
      html: '<p><img src="cid:logo@acme"></p>',
      attachments: [
        {
          filename: 'logo.png',
          content_type: 'image/png',
          content_base64: b64('png-bytes'),
          disposition: 'inline',
          content_id: 'logo@acme',
        },
      ],
    },
    check: (m) => {
      expect(m.html).toBe('<p><img src="cid:logo@acme"></p>');
      expect(m.attachments).toHaveLength(1);
      expect(m.attachments[0]).toMatchObject({
        cid: 'logo@acme',
        contentDisposition: 'inline',
        related: true,
      });
    },
  },
];

describe('composition, parsed back with mailparser', () => {
  it.each(rows)('$name', async ({ input, check }) => {
    const plan = composePlan({ ...base, ...input });
    const raw = (await buildMime(plan)).toString('utf8');
    const mail = await simpleParser(raw, { keepCidLinks: true });
    const headers = rawHeaders(raw);

    // Every row: the planned Message-ID and Date, the To and Cc, and never a Bcc.
    expect(mail.messageId).toBe(MESSAGE_ID);
    expect(mail.date?.getTime()).toBe(NOW);
    expect(headers.get('date')).toEqual(['Date: Mon, 14 Sep 2026 08:12:00 +0000']);
    expect(mail.from?.value).toEqual([{ address: 'bookings.acme@agents.example', name: 'Acme Car Hire' }]);
    expect(mail.to && !Array.isArray(mail.to) && mail.to.value).toEqual([
      { address: 'customer@example.com', name: 'Customer' },
    ]);
    expect(mail.cc && !Array.isArray(mail.cc) && mail.cc.value).toEqual([
      { address: 'copy@example.com', name: '' },
    ]);
    expect(headers.has('bcc')).toBe(false);
    expect(mail.bcc).toBeUndefined();
    expect(raw).not.toContain('secret-bcc');
    check(mail, headers);
  });

  it('a plain send has no threading, list or automation headers', () => {
    const plan = composePlan(base);
    expect(plan.operation).toBe('send');
    expect(plan.headers).toEqual({ 'X-Pmail-Hop': '1' });
    expect(plan.inReplyTo).toBeUndefined();
    expect(plan.references).toBeUndefined();
    expect(plan.replyTo).toBeUndefined();
  });
});

describe('service headers against the custom-header limits', () => {
  it('counts the non-X- headers and bytes the service adds', () => {
    expect(serviceHeaderCount({ hop: 1 })).toEqual({
      serviceNonX: 0,
      serviceBytes: 'X-Pmail-Hop'.length + 1,
    });
    const full = serviceHeaderCount({
      hop: 2,
      inReplyTo: '<a@example.com>',
      references: ['<a@example.com>'],
      autoReply: true,
      disclosure: { mode: 'header', text: 'x' },
      marketing: { url: URL },
    });
    // In-Reply-To, References, Auto-Submitted, List-Unsubscribe, List-Unsubscribe-Post
    expect(full.serviceNonX).toBe(5);
  });
});

describe('subjects (Re:/Fwd: only when absent)', () => {
  it.each([
    ['Invoice', 'Re: Invoice', 'Fwd: Invoice'],
    ['Re: Invoice', 'Re: Invoice', 'Fwd: Re: Invoice'],
    ['RE: Invoice', 'RE: Invoice', 'Fwd: RE: Invoice'],
    ['re : Invoice', 're : Invoice', 'Fwd: re : Invoice'],
    ['Re[2]: Invoice', 'Re[2]: Invoice', 'Fwd: Re[2]: Invoice'],
    ['Fwd: Invoice', 'Re: Fwd: Invoice', 'Fwd: Invoice'],
    ['FW: Invoice', 'Re: FW: Invoice', 'FW: Invoice'],
    ['Reply needed', 'Re: Reply needed', 'Fwd: Reply needed'],
    ['', 'Re:', 'Fwd:'],
  ])('%j → reply %j, forward %j', (subject, reply, forward) => {
    expect(replySubject(subject)).toBe(reply);
    expect(forwardSubject(subject)).toBe(forward);
    expect(replySubject(replySubject(subject))).toBe(reply);
  });

  it('keeps a prefixed subject within 998 characters', () => {
    expect(replySubject('x'.repeat(998))).toHaveLength(998);
  });
});

describe('reply target', () => {
  const m = (replyTo?: string): RepliedMessage => ({
    from: { address: 'alice@mail.shop.example.co.uk', name: 'Alice' },
    ...(replyTo ? { replyTo: [{ address: replyTo }, { address: 'second@other.example' }] } : {}),
    to: [],
    cc: [],
  });
  const stranger = { knownSender: false, contactsWithOutbound: [] };

  it.each([
    ['no Reply-To → From', m(), stranger, 'alice@mail.shop.example.co.uk'],
    [
      'known sender → first Reply-To',
      m('desk@elsewhere.example'),
      { ...stranger, knownSender: true },
      'desk@elsewhere.example',
    ],
    [
      'same organisational domain → first Reply-To',
      m('desk@help.shop.example.co.uk'),
      stranger,
      'desk@help.shop.example.co.uk',
    ],
    [
      'Reply-To in contacts we wrote to (any case) → first Reply-To',
      m('Desk@Elsewhere.example'),
      { knownSender: false, contactsWithOutbound: new Set(['desk@elsewhere.example']) },
      'Desk@Elsewhere.example',
    ],
    [
      'an unknown Reply-To on another domain → From',
      m('collect@attacker.example'),
      stranger,
      'alice@mail.shop.example.co.uk',
    ],
    [
      'a sibling under a public suffix is another organisation → From',
      m('x@other.co.uk'),
      stranger,
      'alice@mail.shop.example.co.uk',
    ],
  ])('%s', (_name, msg, ctx, expected) => {
    expect(replyTarget(msg, ctx).address).toBe(expected);
  });

  it.each([
    ['example.com', 'example.com'],
    ['mail.example.com', 'example.com'],
    ['a.b.example.co.uk', 'example.co.uk'],
    ['shop.example.com.au', 'example.com.au'],
    ['Mail.Example.AC.JP.', 'example.ac.jp'],
    ['mail.example.io', 'example.io'],
    ['x.example.co', 'example.co'],
  ])('organisational domain of %s is %s', (domain, org) => {
    expect(organisationalDomain(domain)).toBe(org);
  });
});

describe('reply-all recipients', () => {
  const m: RepliedMessage = {
    from: { address: 'alice@example.com' },
    to: [
      { address: 'Bookings.Acme@Agents.Example' },
      { address: 'bob@example.com', name: 'Bob' },
      { address: 'ALICE@example.com' },
    ],
    cc: [
      { address: 'bookings.acme+t03k.9f2mq7xa@agents.example' },
      { address: 'old-address@agents.example' },
      { address: 'BOB@example.com' },
      { address: 'carol@example.com' },
    ],
    bcc: [{ address: 'hidden@example.com' }],
  };

  it('is the target then To, and Cc, without any identity address, duplicate or Bcc', () => {
    const r = replyAllRecipients(m, {
      identityAddresses: ['bookings.acme@agents.example', 'OLD-ADDRESS@agents.example'],
      target: m.from,
    });
    expect(r).toEqual({
      to: [{ address: 'alice@example.com' }, { address: 'bob@example.com', name: 'Bob' }],
      cc: [{ address: 'carol@example.com' }],
    });
    expect(JSON.stringify(r)).not.toContain('hidden');
  });

  it('drops the target too when it is one of the identity addresses', () => {
    const r = replyAllRecipients(m, {
      identityAddresses: ['bookings.acme@agents.example', 'alice@example.com'],
      target: { address: 'Alice@Example.com' },
    });
    expect(r.to.map((x) => x.address)).toEqual(['bob@example.com']);
  });
});

describe('References', () => {
  it("is the parent's References followed by the parent's Message-ID", () => {
    expect(threadReferences(['<a@x.example>', '<b@x.example>'], '<c@x.example>')).toEqual([
      '<a@x.example>',
      '<b@x.example>',
      '<c@x.example>',
    ]);
  });

  it("uses the parent's In-Reply-To when it has no References, and brackets bare ids", () => {
    expect(threadReferences([], 'c@x.example', '<b@x.example>')).toEqual(['<b@x.example>', '<c@x.example>']);
    expect(threadReferences([], '<c@x.example>')).toEqual(['<c@x.example>']);
  });

  it('keeps the last position of a repeated id', () => {
    expect(threadReferences(['<a@x>', '<b@x>', '<c@x>'], '<b@x>')).toEqual(['<a@x>', '<c@x>', '<b@x>']);
  });

  it('trims to 2,048 bytes, oldest after the first, and leaves a fitting list alone', () => {
    const trimmed = threadReferences(manyRefs.slice(0, 59), manyRefs[59]);
    expect(trimmed[0]).toBe(manyRefs[0]);
    expect(trimmed.at(-1)).toBe(manyRefs[59]);
    expect(Buffer.byteLength(trimmed.join(' '))).toBeLessThanOrEqual(2048);
    expect(trimReferences(manyRefs.slice(0, 5))).toEqual(manyRefs.slice(0, 5));
    expect(trimReferences(['<a@x>', '<bb@x>', '<cc@x>'], 12)).toEqual(['<a@x>', '<cc@x>']);
    expect(trimReferences([`<${'r'.repeat(3000)}@x>`, '<b@x>'])).toEqual([`<${'r'.repeat(3000)}@x>`]);
  });
});

function failure(fn: () => unknown): { code: string; paths: string[] } {
  try {
    fn();
  } catch (err) {
    if (!(err instanceof PmailError)) throw err;
    const errors = (err.details?.errors ?? []) as { path: string }[];
    return { code: err.code, paths: errors.map((e) => e.path) };
  }
  throw new Error('expected a PmailError');
}

describe('custom headers (the allowlist)', () => {
  it.each<[string, Record<string, string>, Record<string, string>]>([
    [
      'X- names keep their case',
      { 'X-Order-Ref': 'A-17', 'x-lower_case': 'v' },
      { 'X-Order-Ref': 'A-17', 'x-lower_case': 'v' },
    ],
    [
      'the six named headers come out in canonical case with listed values in lower case',
      {
        IMPORTANCE: 'High',
        priority: 'non-urgent',
        sensitivity: 'Company-Confidential',
        keywords: 'a, b',
        COMMENTS: 'ok',
        organization: 'Acme',
      },
      {
        Importance: 'high',
        Priority: 'non-urgent',
        Sensitivity: 'company-confidential',
        Keywords: 'a, b',
        Comments: 'ok',
        Organization: 'Acme',
      },
    ],
    ['an X- name of exactly 100 bytes', { [`X-${'a'.repeat(98)}`]: 'v' }, { [`X-${'a'.repeat(98)}`]: 'v' }],
    ['a value of exactly 2,048 bytes', { 'X-Big': 'v'.repeat(2048) }, { 'X-Big': 'v'.repeat(2048) }],
    ['no headers', {}, {}],
  ])('accepts %s', (_name, input, expected) => {
    expect(validateCustomHeaders(input)).toEqual(expected);
  });

  it.each<[string, Record<string, string>, string, string[]]>([
    [
      'a name outside the allowlist',
      { 'Content-Type': 'text/plain' },
      'header_not_allowed',
      ['headers.Content-Type'],
    ],
    ['Reply-To', { 'Reply-To': 'x@example.com' }, 'header_not_allowed', ['headers.Reply-To']],
    [
      'List-Unsubscribe',
      { 'List-Unsubscribe': '<https://x.example>' },
      'header_not_allowed',
      ['headers.List-Unsubscribe'],
    ],
    [
      'a reserved X-Pmail-* name in any case',
      { 'x-pmail-hop': '0' },
      'header_not_allowed',
      ['headers.x-pmail-hop'],
    ],
    [
      'X-AI-Generated in any case',
      { 'X-Ai-Generated': 'false' },
      'header_not_allowed',
      ['headers.X-Ai-Generated'],
    ],
    [
      'an X- name with another character',
      { 'X-Bad.Name': 'v' },
      'header_not_allowed',
      ['headers.X-Bad.Name'],
    ],
    [
      'an X- name over 100 bytes',
      { [`X-${'a'.repeat(99)}`]: 'v' },
      'header_not_allowed',
      [`headers.X-${'a'.repeat(99)}`],
    ],
    ['a prototype name', { constructor: 'v' }, 'header_not_allowed', ['headers.constructor']],
    [
      'two names differing only in case',
      { 'X-Ref': 'a', 'x-ref': 'b' },
      'invalid_request',
      ['headers.x-ref'],
    ],
    ['an empty value', { 'X-Ref': ' ' }, 'invalid_request', ['headers.X-Ref']],
    ['a value with CR or LF', { 'X-Ref': 'a\r\nBcc: x@example.com' }, 'invalid_request', ['headers.X-Ref']],
    ['a value over 2,048 bytes', { Comments: 'é'.repeat(1025) }, 'invalid_request', ['headers.Comments']],
    ['a value outside the enumeration', { Importance: 'urgent' }, 'invalid_request', ['headers.Importance']],
    [
      'over 16 KiB in all',
      Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`X-H${i}`, 'v'.repeat(2000)])),
      'invalid_request',
      ['headers'],
    ],
  ])('refuses %s', (_name, input, code, paths) => {
    expect(failure(() => validateCustomHeaders(input))).toEqual({ code, paths });
  });

  it("counts the service's own non-X- headers towards the 20", () => {
    const six = {
      Importance: 'low',
      Priority: 'normal',
      Sensitivity: 'private',
      Keywords: 'k',
      Comments: 'c',
      Organization: 'o',
    };
    expect(() => validateCustomHeaders(six, { serviceNonX: 14 })).not.toThrow();
    expect(failure(() => validateCustomHeaders(six, { serviceNonX: 15 }))).toEqual({
      code: 'invalid_request',
      paths: ['headers'],
    });
    // X- headers never count towards the 20.
    const xs = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`X-N${i}`, 'v']));
    expect(() => validateCustomHeaders(xs, { serviceNonX: 5 })).not.toThrow();
  });

  it("counts the service's own bytes towards the 16 KiB", () => {
    const headers = { 'X-A': 'v'.repeat(2000) };
    expect(() => validateCustomHeaders(headers, { serviceBytes: 16 * 1024 - 2003 })).not.toThrow();
    expect(failure(() => validateCustomHeaders(headers, { serviceBytes: 16 * 1024 - 2002 })).paths).toEqual([
      'headers',
    ]);
  });
});

describe('content limits', () => {
  const ok = { text: 'hi', subject: 's', attachments: [], labels: ['a'], metadata: { k: 'v' } };

  it('accepts content within the limits, html alone included', () => {
    expect(() => checkContent(ok)).not.toThrow();
    expect(() => checkContent({ html: '<p>x</p>', subject: 'x'.repeat(998) })).not.toThrow();
  });

  const att = { filename: 'a.txt', content_type: 'text/plain', content_base64: b64('a') };
  it.each<[string, Parameters<typeof checkContent>[0], string[]]>([
    ['neither text nor html', { subject: 's' }, ['text']],
    ['a subject over 998 characters', { ...ok, subject: 'x'.repeat(999) }, ['subject']],
    [
      'more than 32 attachments',
      { ...ok, attachments: Array.from({ length: 33 }, () => att) },
      ['attachments'],
    ],
    [
      'invalid base64',
      { ...ok, attachments: [{ ...att, content_base64: 'not base64!' }] },
      ['attachments[0].content_base64'],
    ],
    [
      'an inline part without content_id',
      { ...ok, attachments: [att, { ...att, disposition: 'inline' }] },
      ['attachments[1].content_id'],
    ],
    ['more than 20 labels', { ...ok, labels: Array.from({ length: 21 }, (_, i) => `l${i}`) }, ['labels']],
    ['a label over 64 characters', { ...ok, labels: ['a', 'l'.repeat(65)] }, ['labels[1]']],
    ['an empty label', { ...ok, labels: [''] }, ['labels[0]']],
    [
      'more than 20 metadata keys',
      { ...ok, metadata: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v'])) },
      ['metadata'],
    ],
    [
      'a metadata key over 64 characters',
      { ...ok, metadata: { ['k'.repeat(65)]: 'v' } },
      [`metadata.${'k'.repeat(65)}`],
    ],
    ['a metadata value over 512 characters', { ...ok, metadata: { k: 'v'.repeat(513) } }, ['metadata.k']],
  ])('refuses %s', (_name, input, paths) => {
    expect(failure(() => checkContent(input))).toEqual({ code: 'invalid_request', paths });
  });
});
