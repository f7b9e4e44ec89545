import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  attachmentLink,
  attachmentLinkKey,
  base64MimeBytes,
  contentDisposition,
  filenameFromMetadata,
  humanSize,
  type LinkCandidate,
  linkBlobMetadata,
  linkHtml,
  linkPayload,
  linkText,
  planLinks,
  rfc3339FromUnixS,
  servedContentType,
  signLink,
  verifyLink,
} from '../../functions/core/links.ts';

// Signed links for attachments too large to send (docs/guides/sending.md › Send a message).
const k1 = { kid: 'k1', secret: 'first-link-key-for-tests' };
const k2 = { kid: 'k2', secret: 'second-link-key-for-tests' };
const ref = {
  tenantId: 'ten_01jz8m4n7q2r5t8v1w3x6y9z0d',
  identityId: 'idn_01jz8m4n7q2r5t8v1w3x6y9z0c',
  messageId: 'msg_01jz8m4n7q2r5t8v1w3x6y9z0a',
  attachmentId: 'att_01jz8m4n7q2r5t8v1w3x6y9z0e',
};
const EXPIRES = 1_751_965_200; // 2025-07-08T09:00:00Z
const claims = { ...ref, expiresUnixS: EXPIRES };

/** Flip one bit of the decoded token at `index` (negative: from the end) and re-encode it. */
function tamper(token: string, index: number): string {
  const bytes = Buffer.from(token, 'base64url');
  bytes[index < 0 ? bytes.length + index : index] ^= 0x01;
  return bytes.toString('base64url');
}

describe('the signed-link token', () => {
  it('is base64url without padding of the exact payload followed by the first 16 bytes of its HMAC-SHA256', () => {
    const token = signLink(k1, claims);
    const payload = `l1:k1:att:${ref.tenantId}:${ref.identityId}:${ref.messageId}:${ref.attachmentId}:${EXPIRES}`;
    expect(linkPayload('k1', claims)).toBe(payload);
    expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
    const bytes = Buffer.from(token, 'base64url');
    expect(bytes.subarray(0, -16).toString('utf8')).toBe(payload);
    const mac = createHmac('sha256', k1.secret).update(payload).digest().subarray(0, 16);
    expect(bytes.subarray(-16)).toEqual(mac);
  });

  it('verifies back to the fields it was signed with', () => {
    expect(verifyLink([k1], signLink(k1, claims), EXPIRES - 60)).toEqual({ ok: true, kid: 'k1', ...claims });
  });

  it.each([
    ['the first byte of the payload', 0],
    ['a byte of the attachment id', -16 - 12 - 5],
    ['the last byte of the expiry', -17],
    ['the first byte of the MAC', -16],
    ['the last byte of the MAC', -1],
  ])('refuses a token with a flipped bit in %s', (_where, index) => {
    const verdict = verifyLink([k1], tamper(signLink(k1, claims), index), EXPIRES - 60);
    expect(verdict.ok).toBe(false);
  });

  it('refuses a changed expiry with a bad MAC, not as a later expiry', () => {
    const token = signLink(k1, claims);
    const bytes = Buffer.from(token, 'base64url');
    const payload = bytes
      .subarray(0, -16)
      .toString('utf8')
      .replace(`:${EXPIRES}`, `:${EXPIRES + 86_400}`);
    const forged = Buffer.concat([Buffer.from(payload), bytes.subarray(-16)]).toString('base64url');
    expect(verifyLink([k1], forged, EXPIRES + 60)).toEqual({ ok: false, reason: 'bad_mac' });
  });

  it('refuses a token signed with another secret under the same kid', () => {
    const token = signLink({ kid: 'k1', secret: 'someone-elses-secret' }, claims);
    expect(verifyLink([k1], token, EXPIRES - 60)).toEqual({ ok: false, reason: 'bad_mac' });
  });

  it('refuses a token whose kid is not in the key list', () => {
    expect(verifyLink([k1], signLink(k2, claims), EXPIRES - 60)).toEqual({
      ok: false,
      reason: 'unknown_kid',
    });
  });

  it('keeps verifying a link signed by an older kid while a newer kid signs', () => {
    const rotated = [k2, k1];
    const old = signLink(k1, claims);
    const fresh = signLink(rotated[0], claims);
    expect(verifyLink(rotated, old, EXPIRES - 60)).toMatchObject({ ok: true, kid: 'k1' });
    expect(verifyLink(rotated, fresh, EXPIRES - 60)).toMatchObject({ ok: true, kid: 'k2' });
    expect(verifyLink([k2], old, EXPIRES - 60)).toEqual({ ok: false, reason: 'unknown_kid' });
  });

  it.each([
    ['one second before the expiry', EXPIRES - 1, true],
    ['at the expiry second', EXPIRES, false],
    ['after the expiry', EXPIRES + 1, false],
  ])('judges a link %s', (_when, now, ok) => {
    const verdict = verifyLink([k1], signLink(k1, claims), now);
    expect(verdict.ok).toBe(ok);
    if (!ok) expect(verdict).toEqual({ ok: false, reason: 'expired' });
  });

  it.each([
    ['an empty token', ''],
    ['characters outside base64url', 'abc+def/ghi='],
    ['padding', `${signLink(k1, claims)}=`],
    ['a token shorter than a MAC', Buffer.alloc(16, 1).toString('base64url')],
    ['another payload version', signRaw(k1, `l2:k1:att:a:b:c:d:${EXPIRES}`)],
    ['another link kind', signRaw(k1, `l1:k1:export:a:b:${EXPIRES}`)],
    ['a missing field', signRaw(k1, `l1:k1:att:a:b:c:${EXPIRES}`)],
    ['a non-numeric expiry', signRaw(k1, 'l1:k1:att:a:b:c:d:soon')],
    ['a path in a field', signRaw(k1, `l1:k1:att:a:..%2Fb:c:d:${EXPIRES}`)],
    ['a very long token', 'A'.repeat(2_000)],
  ])('refuses %s as malformed', (_name, token) => {
    expect(verifyLink([k1], token, EXPIRES - 60)).toEqual({ ok: false, reason: 'malformed' });
  });

  it('refuses to sign a field that would break the payload or the blob key', () => {
    expect(() => signLink(k1, { ...claims, attachmentId: 'att:1' })).toThrow();
    expect(() => signLink(k1, { ...claims, messageId: '../msg' })).toThrow();
    expect(() => signLink({ kid: 'k:1', secret: 's' }, claims)).toThrow();
    expect(() => signLink(k1, { ...claims, expiresUnixS: 1.5 })).toThrow();
  });
});

/** A token over any payload, MAC'd correctly: what a bug on the signing side could produce. */
function signRaw(key: { secret: string }, payload: string): string {
  const mac = createHmac('sha256', key.secret).update(payload).digest().subarray(0, 16);
  return Buffer.concat([Buffer.from(payload), mac]).toString('base64url');
}

describe('attachment links for the submit path', () => {
  it('stores linked attachments under t/{ten}/i/{idn}/out/{msg}/a/{att}', () => {
    expect(attachmentLinkKey('ten_1', 'idn_2', 'msg_3', 'att_4')).toBe('t/ten_1/i/idn_2/out/msg_3/a/att_4');
  });

  it('signs with the first link key, expires after link_ttl_hours and writes the body lines', () => {
    const now = Date.UTC(2025, 6, 1, 9, 0, 0, 750);
    const link = attachmentLink(
      { linkKeys: [k2, k1], apiBaseUrl: 'https://mail.example.com/', linkTtlHours: 168 },
      ref,
      now,
      { filename: 'report.pdf', size: 4_200_000 },
    );
    expect(link.expiresUnixS).toBe(Date.UTC(2025, 6, 8, 9) / 1000);
    expect(link.expiresAt).toBe('2025-07-08T09:00:00Z');
    expect(link.url).toBe(`https://mail.example.com/v1/links/${link.token}`);
    expect(link.key).toBe(attachmentLinkKey(ref.tenantId, ref.identityId, ref.messageId, ref.attachmentId));
    expect(verifyLink([k1, k2], link.token, now / 1000)).toMatchObject({ ok: true, kid: 'k2', ...ref });
    expect(link.text).toBe(`report.pdf (4.2 MB): ${link.url} (available until 2025-07-08T09:00:00Z)`);
    expect(link.html).toContain(`<a href="${link.url}">report.pdf</a>`);
  });

  it('writes the text line as {filename} ({size}): {url} (available until {expiry})', () => {
    expect(linkText('q3.xlsx', 38_000, 'https://mail.example.com/v1/links/abc', '2025-07-08T09:00:00Z')).toBe(
      'q3.xlsx (38 kB): https://mail.example.com/v1/links/abc (available until 2025-07-08T09:00:00Z)',
    );
  });

  it('escapes the filename and URL in the HTML link', () => {
    expect(
      linkHtml('<b>"a"&b.pdf', 512, 'https://mail.example.com/v1/links/x?a=1&b=2', '2025-07-08T09:00:00Z'),
    ).toBe(
      '<a href="https://mail.example.com/v1/links/x?a=1&amp;b=2">&lt;b&gt;&quot;a&quot;&amp;b.pdf</a> (512 B, available until 2025-07-08T09:00:00Z)',
    );
  });

  it.each([
    [0, '0 B'],
    [999, '999 B'],
    [1_000, '1.0 kB'],
    [38_000, '38 kB'],
    [999_499, '999 kB'],
    [999_999, '1.0 MB'],
    [4_200_000, '4.2 MB'],
    [3_825_000, '3.8 MB'],
    [12_500_000, '13 MB'],
    [2_000_000_000, '2.0 GB'],
  ])('shows %i bytes as %s', (bytes, shown) => {
    expect(humanSize(bytes)).toBe(shown);
  });

  it('formats an expiry as RFC 3339 UTC in whole seconds', () => {
    expect(rfc3339FromUnixS(EXPIRES)).toBe('2025-07-08T09:00:00Z');
  });
});

describe('planLinks', () => {
  const att = (filename: string, size: number, linked = false): LinkCandidate => ({
    filename,
    content_type: 'application/pdf',
    size,
    linked,
  });

  it('counts 57 attachment bytes as 78 MIME bytes', () => {
    expect(base64MimeBytes(57)).toBe(78);
    expect(base64MimeBytes(57 * 1000)).toBe(78_000);
    expect(base64MimeBytes(1)).toBe(6);
  });

  it('links nothing when the message fits', () => {
    expect(planLinks([att('a', 5_000_000)], { overBy: 0 })).toEqual([]);
  });

  it('links the largest attachment first', () => {
    const list = [att('small', 100_000), att('big', 3_000_000), att('mid', 1_000_000)];
    expect(planLinks(list, { overBy: 10_000 })).toEqual([1]);
  });

  it('keeps linking in size order until the estimated saving covers the excess', () => {
    const list = [att('small', 100_000), att('big', 1_000_000), att('mid', 500_000)];
    // big saves ~1.37 MB; the excess needs mid as well, never small before mid
    expect(planLinks(list, { overBy: 1_500_000 })).toEqual([1, 2]);
    expect(planLinks(list, { overBy: 10_000_000 })).toEqual([1, 2, 0]);
  });

  it('skips attachments already linked in an earlier round', () => {
    const list = [att('small', 100_000), att('big', 1_000_000, true), att('mid', 500_000)];
    expect(planLinks(list, { overBy: 1_000 })).toEqual([2]);
  });

  it('breaks size ties in request order', () => {
    expect(planLinks([att('a', 10), att('b', 2_000_000), att('c', 2_000_000)], { overBy: 1 })).toEqual([1]);
  });

  it('returns nothing when everything is linked and the message is still over', () => {
    expect(planLinks([att('a', 10, true)], { overBy: 5_000 })).toEqual([]);
  });
});

describe('serving a linked attachment', () => {
  it.each([
    ['application/pdf', 'application/pdf'],
    ['IMAGE/PNG', 'image/png'],
    ['text/plain', 'text/plain'],
    [
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    ],
    ['text/html', 'application/octet-stream'],
    ['image/svg+xml', 'application/octet-stream'],
    ['application/xhtml+xml', 'application/octet-stream'],
    ['text/javascript', 'application/octet-stream'],
    ['application/javascript', 'application/octet-stream'],
    ['text/xml', 'application/octet-stream'],
    [undefined, 'application/octet-stream'],
  ])('serves a stored %s as %s', (stored, served) => {
    expect(servedContentType(stored)).toBe(served);
  });

  it.each([
    ['report.pdf', `attachment; filename="report.pdf"; filename*=UTF-8''report.pdf`],
    [
      'Bericht für Q3.pdf',
      `attachment; filename="Bericht f_r Q3.pdf"; filename*=UTF-8''Bericht%20f%C3%BCr%20Q3.pdf`,
    ],
    ['a"b\\c.txt', `attachment; filename="a_b_c.txt"; filename*=UTF-8''a%22b_c.txt`],
    [
      'x\r\nSet-Cookie: a=b.txt',
      `attachment; filename="xSet-Cookie: a=b.txt"; filename*=UTF-8''xSet-Cookie%3A%20a%3Db.txt`,
    ],
    ["it's (1)*.txt", `attachment; filename="it's (1)*.txt"; filename*=UTF-8''it%27s%20%281%29%2A.txt`],
    ['100%.txt', `attachment; filename="100_.txt"; filename*=UTF-8''100%25.txt`],
    ['😀.png', `attachment; filename="_.png"; filename*=UTF-8''%F0%9F%98%80.png`],
    ['', `attachment; filename="attachment"; filename*=UTF-8''attachment`],
  ])('writes Content-Disposition for %j', (filename, header) => {
    expect(contentDisposition(filename)).toBe(header);
    expect(header).not.toMatch(/[\r\n]/);
  });
});

describe('linked attachment metadata', () => {
  it.each(['report.pdf', 'Übersicht "Q3".pdf', '100%.txt', '😀 x.png'])(
    'stores %j as US-ASCII and reads it back unchanged',
    (filename) => {
      const meta = linkBlobMetadata(filename, 'application/pdf');
      expect(meta.filename).toMatch(/^[\x21-\x7e]+$/);
      expect(meta.content_type).toBe('application/pdf');
      expect(filenameFromMetadata(meta)).toBe(filename);
    },
  );

  it('uses a stored filename that does not decode as it is', () => {
    expect(filenameFromMetadata({ filename: '100%.txt' })).toBe('100%.txt');
    expect(filenameFromMetadata({})).toBeUndefined();
  });
});
