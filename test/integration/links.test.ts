import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiEvent, ApiResult } from '../../functions/api/http.ts';
import { attachmentLinkKey, linkBlobMetadata, signLink } from '../../functions/core/links.ts';
import { type TestStack, testStack } from '../support/local.ts';

// Signed links for large attachments (docs/guides/sending.md): GET /v1/links/{token} against the local runtime
// (blob folder + the real handler). The clock is ours, so expiry is tested without waiting.
const START = Date.UTC(2025, 6, 1, 9, 0, 0);
let now = START;
let s: TestStack;

beforeAll(async () => {
  s = await testStack({ clock: () => now });
});
afterAll(async () => {
  await s.close();
});

const bytes = Uint8Array.from({ length: 3000 }, (_, i) => (i * 7 + 3) % 256);

/** Store an attachment the way the submit path does and sign a link to it, valid for an hour. */
async function linked(opts: { filename?: string; content_type?: string; store?: boolean } = {}) {
  const ref = {
    tenantId: s.tenantId,
    identityId: s.agent.id,
    messageId: `msg_${s.deps.newId()}`,
    attachmentId: `att_${s.deps.newId()}`,
  };
  if (opts.store !== false) {
    await s.deps.blobs.put(
      attachmentLinkKey(ref.tenantId, ref.identityId, ref.messageId, ref.attachmentId),
      bytes,
      linkBlobMetadata(opts.filename ?? 'report.pdf', opts.content_type ?? 'application/pdf'),
      opts.content_type ?? 'application/pdf',
    );
  }
  const expiresUnixS = Math.floor(now / 1000) + 3600;
  return { token: signLink(s.deps.config.linkKeys[0], { ...ref, expiresUnixS }), expiresUnixS };
}

/**
 * The 200 carries raw bytes (`isBase64Encoded`), which `s.call` would try to parse as JSON, so the
 * success cases call the route group directly with the event API Gateway would send.
 */
async function download(token: string, headers: Record<string, string> = {}): Promise<ApiResult> {
  const path = `/v1/links/${token}`;
  const event = {
    version: '2.0',
    routeKey: '$default',
    rawPath: path,
    rawQueryString: '',
    headers,
    requestContext: { http: { method: 'GET', path } },
    isBase64Encoded: false,
  } as unknown as ApiEvent;
  return s.groups.links(event);
}

function expectNotFound(res: Awaited<ReturnType<TestStack['call']>>) {
  expect(res.status).toBe(404);
  expect(res.body.error).toMatchObject({
    code: 'attachment_not_found',
    message: 'No attachment is available at this link.',
    details: {},
  });
  expect(res.headers['request-id']).toBe(res.body.error.request_id);
}

describe('GET /v1/links/{token}', () => {
  it('serves the stored bytes base64-encoded with the download headers, without an API key', async () => {
    const { token } = await linked();
    const res = await download(token);
    expect(res.statusCode).toBe(200);
    expect(res.isBase64Encoded).toBe(true);
    expect(new Uint8Array(Buffer.from(String(res.body), 'base64'))).toEqual(bytes);
    expect(res.headers).toMatchObject({
      'content-type': 'application/pdf',
      'content-disposition': `attachment; filename="report.pdf"; filename*=UTF-8''report.pdf`,
      'x-content-type-options': 'nosniff',
      'cache-control': 'private, max-age=3600',
    });
    expect(res.headers['request-id']).toMatch(/^req_/);
  });

  it('ignores an Authorization header, even a wrong one', async () => {
    const { token } = await linked();
    const res = await download(token, { authorization: 'Bearer not-a-key' });
    expect(res.statusCode).toBe(200);
  });

  it('serves a risky stored type as application/octet-stream', async () => {
    const { token } = await linked({ filename: 'page.html', content_type: 'text/html' });
    const res = await download(token);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/octet-stream');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="page\.html"/);
  });

  it('encodes a non-ASCII filename for Content-Disposition', async () => {
    const { token } = await linked({ filename: 'Übersicht "Q3".pdf' });
    const res = await download(token);
    expect(res.headers['content-disposition']).toBe(
      `attachment; filename="_bersicht _Q3_.pdf"; filename*=UTF-8''%C3%9Cbersicht%20%22Q3%22.pdf`,
    );
  });

  it('never lets a cached copy outlive the link', async () => {
    const { token } = await linked();
    now += 3590 * 1000;
    try {
      const res = await download(token);
      expect(res.statusCode).toBe(200);
      expect(res.headers['cache-control']).toBe('private, max-age=10');
    } finally {
      now = START;
    }
  });

  it('answers 404 attachment_not_found for a token with a flipped MAC bit', async () => {
    const { token } = await linked();
    const raw = Buffer.from(token, 'base64url');
    raw[raw.length - 1] ^= 0x01;
    expectNotFound(await s.call('GET', `/v1/links/${raw.toString('base64url')}`));
  });

  it('answers 404 for a link whose payload was changed to another stored attachment', async () => {
    const a = await linked();
    const raw = Buffer.from(a.token, 'base64url');
    const [, , , ten, idn, msg] = raw.subarray(0, -16).toString('utf8').split(':');
    const otherAtt = `att_${s.deps.newId()}`;
    await s.deps.blobs.put(
      attachmentLinkKey(ten, idn, msg, otherAtt),
      bytes,
      linkBlobMetadata('other.pdf', 'application/pdf'),
    );
    const payload = raw
      .subarray(0, -16)
      .toString('utf8')
      .replace(/att_[0-9a-z]+/, otherAtt);
    const forged = Buffer.concat([Buffer.from(payload), raw.subarray(-16)]).toString('base64url');
    expectNotFound(await s.call('GET', `/v1/links/${forged}`));
  });

  it('answers 404 from the expiry second on, and 200 the second before', async () => {
    const { token, expiresUnixS } = await linked();
    try {
      now = (expiresUnixS - 1) * 1000;
      expect((await download(token)).statusCode).toBe(200);
      now = expiresUnixS * 1000;
      expectNotFound(await s.call('GET', `/v1/links/${token}`));
    } finally {
      now = START;
    }
  });

  it('answers 404 for a token signed with a key the deployment does not hold', async () => {
    const { token } = await linked();
    const bytesOf = Buffer.from(token, 'base64url');
    const payload = bytesOf.subarray(0, -16).toString('utf8').split(':');
    const stranger = signLink(
      { kid: 'zz', secret: 'not-this-deployments-key' },
      {
        tenantId: payload[3],
        identityId: payload[4],
        messageId: payload[5],
        attachmentId: payload[6],
        expiresUnixS: Number(payload[7]),
      },
    );
    expectNotFound(await s.call('GET', `/v1/links/${stranger}`));
  });

  it('answers 404 for a valid link whose attachment is not stored', async () => {
    const { token } = await linked({ store: false });
    expectNotFound(await s.call('GET', `/v1/links/${token}`));
  });

  it('answers 404 for something that is not a token at all', async () => {
    expectNotFound(await s.call('GET', '/v1/links/not-a-token'));
  });

  it('answers every refusal with the same error body', async () => {
    const expired = await linked();
    const missing = await linked({ store: false });
    const refusals = [];
    refusals.push(await s.call('GET', '/v1/links/AAAA'));
    refusals.push(await s.call('GET', `/v1/links/${missing.token}`));
    now = expired.expiresUnixS * 1000;
    try {
      refusals.push(await s.call('GET', `/v1/links/${expired.token}`));
    } finally {
      now = START;
    }
    const bodies = refusals.map((r) => {
      const { request_id: _id, ...rest } = r.body.error;
      return { status: r.status, ...rest };
    });
    expect(new Set(bodies.map((b) => JSON.stringify(b))).size).toBe(1);
    expect(bodies[0]).toMatchObject({ status: 404, code: 'attachment_not_found' });
  });
});
