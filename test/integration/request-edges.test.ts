import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_BODY_BYTES } from '../../functions/core/limits.ts';
import { type TestStack, testStack } from '../support/local.ts';

/**
 * Bad input at the edges of the API: header text with a line break (a subject, a display name)
 * is refused with its field named, on every route that takes one; a body over 7 MiB is 413
 * payload_too_large on every route that reads a body, the control plane's as the send routes'.
 */
let s: TestStack;
beforeAll(async () => {
  s = await testStack();
});
afterAll(async () => {
  await s?.close();
});

const FAKE_MESSAGE = `msg_${'0'.repeat(26)}`;
const BREAKS = ['a\rb', 'a\nb', 'a\r\nBcc: x@example.com'];

async function refusedAt(method: string, path: string, body: unknown, field: string, headers = {}) {
  const res = await s.call(method, path, {
    body,
    headers: { 'idempotency-key': `k-${Math.random()}`, ...headers },
  });
  expect(res.status, `${path} ${JSON.stringify(body)}: ${JSON.stringify(res.body)}`).toBe(400);
  expect(res.body.error.code).toBe('invalid_request');
  expect(res.body.error.details.errors.map((e: { path: string }) => e.path)).toContain(field);
  return res;
}

describe('a line break in a subject or a display name', () => {
  it('is refused on a send, naming the subject or the recipient name, and nothing is stored', async () => {
    const to = s.peer.address;
    for (const b of BREAKS) {
      await refusedAt(
        'POST',
        `/v1/identities/${s.agent.id}/messages`,
        { to: [to], subject: b, text: 't' },
        'subject',
      );
      for (const field of ['to', 'cc', 'bcc']) {
        const body = { to: [to], subject: 'ok', text: 't', [field]: [{ address: to, name: b }] };
        await refusedAt('POST', `/v1/identities/${s.agent.id}/messages`, body, `${field}[0].name`);
      }
    }
    expect(await s.mailbox(s.agent.id, 'outbound')).toEqual([]);
    // The same fields without a break are accepted.
    const ok = await s.send({ to: [{ address: to, name: 'Pat Peer' }], subject: 'One line', text: 't' });
    expect(ok.status).toBe(202);
    expect(ok.body.to).toEqual([{ address: to, name: 'Pat Peer' }]);
  });

  it('is refused on a forward (each recipient field) and a reply or reply-all takes neither field', async () => {
    const base = `/v1/identities/${s.agent.id}/messages/${FAKE_MESSAGE}`;
    for (const field of ['to', 'cc', 'bcc']) {
      const body = {
        to: [s.peer.address],
        text: 't',
        [field]: [{ address: s.peer.address, name: 'A\r\nB' }],
      };
      await refusedAt('POST', `${base}/forward`, body, `${field}[0].name`);
    }
    for (const op of ['reply', 'reply-all']) {
      const res = await s.call('POST', `${base}/${op}`, {
        body: { text: 't', subject: 'A\r\nB' },
        headers: { 'idempotency-key': `k-${op}` },
      });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('invalid_request');
    }
  });

  it('is refused on a send by template (recipient names) and in a template subject', async () => {
    const template = {
      name: 'edges_notice',
      subject: 'Notice {{n}}',
      text: 'Notice {{n}}.',
      variables_schema: { type: 'object', properties: { n: { type: 'integer' } } },
      category: 'transactional',
      kind: 'transactional',
    };
    await refusedAt(
      'POST',
      `/v1/tenants/${s.tenantId}/templates`,
      { ...template, subject: 'Notice\r\n{{n}}' },
      'subject',
    );
    expect((await s.call('POST', `/v1/tenants/${s.tenantId}/templates`, { body: template })).status).toBe(
      201,
    );
    const { subject, ...updated } = template;
    await refusedAt(
      'PUT',
      `/v1/tenants/${s.tenantId}/templates/edges_notice`,
      { ...updated, subject: 'a\nb' },
      'subject',
    );
    await refusedAt(
      'POST',
      `/v1/identities/${s.agent.id}/messages`,
      { template: 'edges_notice', variables: { n: 1 }, to: [{ address: s.peer.address, name: 'A\nB' }] },
      'to[0].name',
    );
  });

  it("is refused in an identity's display_name, on create and on change", async () => {
    await refusedAt(
      'POST',
      `/v1/tenants/${s.tenantId}/identities`,
      { username: 'edges-crlf', display_name: 'Support\r\nBcc: x@example.com' },
      'display_name',
    );
    await refusedAt(
      'PATCH',
      `/v1/identities/${s.agent.id}`,
      { display_name: 'Support\nTeam' },
      'display_name',
    );
    const ok = await s.call('PATCH', `/v1/identities/${s.agent.id}`, {
      body: { display_name: 'Support Team' },
    });
    expect(ok.status).toBe(200);
    expect(ok.body.display_name).toBe('Support Team');
  });
});

describe('a body over 7 MiB', () => {
  const big = 'x'.repeat(MAX_BODY_BYTES);
  it.each([
    ['webhooks', 'POST', '/v1/webhooks', () => ({ url: `https://hooks.example.com/${big}` })],
    ['keys', 'POST', '/v1/keys', () => ({ name: big })],
    ['keys', 'POST', `/v1/keys/key_${'0'.repeat(26)}/rotate`, () => ({ note: big })],
    ['directory (policy)', 'PATCH', '/v1/tenants/{tenant}/policy', () => ({ policy_version: 1, x: big })],
    ['directory (identities)', 'POST', '/v1/tenants/{tenant}/identities', () => ({ username: big })],
    ['domains', 'POST', '/v1/tenants/{tenant}/domains', () => ({ name: big })],
    ['domains', 'PATCH', `/v1/tenants/{tenant}/domains/dom_${'0'.repeat(26)}`, () => ({ x: big })],
    ['templates', 'POST', '/v1/tenants/{tenant}/templates', () => ({ name: 'big', subject: big })],
    ['templates', 'PUT', '/v1/tenants/{tenant}/templates/big', () => ({ subject: big })],
    ['identities', 'PATCH', '/v1/identities/{agent}', () => ({ display_name: big })],
    ['tenants (suppressions)', 'POST', '/v1/tenants/{tenant}/suppressions', () => ({ address: big })],
    ['tenants (lists)', 'PUT', '/v1/tenants/{tenant}/lists/send/block/x@example.com', () => ({ x: big })],
    [
      'messages (resolve)',
      'POST',
      `/v1/identities/{agent}/messages/${FAKE_MESSAGE}/resolve`,
      () => ({ x: big }),
    ],
    [
      'messages (send)',
      'POST',
      '/v1/identities/{agent}/messages',
      () => ({ to: ['a@example.com'], text: big }),
    ],
  ])('is 413 payload_too_large on the %s route group: %s %s', async (_group, method, template, body) => {
    const path = template.replace('{tenant}', s.tenantId).replace('{agent}', s.agent.id);
    const res = await s.call(method, path, {
      body: body(),
      headers: { 'idempotency-key': `big-${Math.random()}` },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(413);
    expect(res.body.error).toMatchObject({
      code: 'payload_too_large',
      details: { max_bytes: MAX_BODY_BYTES },
    });
  });

  it('is measured in bytes: 7 MiB itself is read, one byte more is not', async () => {
    // Exactly 7 MiB of JSON is parsed (and refused as invalid), one byte more is 413.
    const exact = JSON.stringify({ name: 'x'.repeat(MAX_BODY_BYTES - 11) });
    expect(Buffer.byteLength(exact)).toBe(MAX_BODY_BYTES);
    const at = await s.call('POST', '/v1/keys', { rawBody: exact });
    expect(at.status).toBe(400);
    const over = await s.call('POST', '/v1/keys', { rawBody: `${exact} ` });
    expect(over.status).toBe(413);
  });
});
