import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../functions/core/fingerprint.ts';
import { sampleVariables } from '../../functions/core/templates.ts';
import { seedTestTenant } from '../../functions/local/seed.ts';
import { putApiKey } from '../../functions/store/directory.store.ts';
import { type TestStack, testStack } from '../support/local.ts';

/**
 * `POST /v1/tenants/{tenant_id}/templates/{name}/preview` on the local stack: a template rendered
 * by the send's own engine, with samples from its schema or the variables given, nothing sent.
 */
let s: TestStack;
beforeAll(async () => {
  s = await testStack();
});
afterAll(async () => {
  await s.settle();
  await s.close();
});

const base = () => `/v1/tenants/${s.tenantId}/templates`;
const fresh = () => `preview_${randomBytes(4).toString('hex')}`;

const receipt = (name: string) => ({
  name,
  subject: 'Your order {{order.number}}',
  text: 'Hello {{name}}{{#if vip}}, our best customer{{/if}}. Track it: {{link}}',
  html: '<p>Hello {{name}}</p>{{#each items}}<li>{{this}}</li>{{/each}}<a href="{{link}}">Track</a>',
  variables_schema: {
    type: 'object',
    properties: {
      name: { type: 'string', examples: ['Ada <admin>'] },
      vip: { type: 'boolean' },
      link: { type: 'string', format: 'uri' },
      items: { type: 'array', items: { type: 'string' } },
      order: { type: 'object', properties: { number: { type: 'integer', default: 1042 } } },
    },
    required: ['name', 'link'],
    additionalProperties: false,
  },
  category: 'transactional',
  kind: 'transactional',
});

async function created(body: Record<string, unknown>) {
  const res = await s.call('POST', base(), { body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { name: string; version: number };
}

describe('template preview', () => {
  it('renders with samples from the schema when no variables are given, HTML escaped, Handlebars blocks run', async () => {
    const t = await created(receipt(fresh()));
    const res = await s.call('POST', `${base()}/${t.name}/preview`, { body: {} });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({
      name: t.name,
      version: 1,
      variables: {
        name: 'Ada <admin>',
        vip: true,
        link: 'https://example.com/',
        items: [],
        order: { number: 1042 },
      },
      subject: 'Your order 1042',
      text: 'Hello Ada <admin>, our best customer. Track it: https://example.com/',
      html: '<p>Hello Ada &lt;admin&gt;</p><a href="https://example.com/">Track</a>',
    });
    // Nothing was sent: the identities' mailboxes are as they were.
    expect(await s.mailbox(s.agent.id, 'outbound')).toEqual([]);
  });

  it('renders the variables given, and refuses ones the schema refuses with invalid_payload', async () => {
    const t = await created(receipt(fresh()));
    const res = await s.call('POST', `${base()}/${t.name}/preview`, {
      body: { variables: { name: 'Grace', link: 'https://shop.example/t/1', items: ['tea', 'cups'] } },
    });
    expect(res.status).toBe(200);
    expect(res.body.subject).toBe('Your order');
    expect(res.body.text).toBe('Hello Grace. Track it: https://shop.example/t/1');
    expect(res.body.html).toContain('<li>tea</li><li>cups</li>');
    const bad = await s.call('POST', `${base()}/${t.name}/preview`, { body: { variables: { name: 'x' } } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('invalid_payload');
    expect(bad.body.error.details.errors[0]).toMatchObject({ keyword: 'required' });
    const unknown = await s.call('POST', `${base()}/${t.name}/preview`, { body: { vars: {} } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.code).toBe('invalid_request');
  });

  it('renders a marketing template with a stand-in unsubscribe URL', async () => {
    const t = await created({
      ...receipt(fresh()),
      text: 'News for {{name}}. Leave: {{@unsubscribe_url}}',
      category: 'marketing',
      kind: 'elective',
    });
    const res = await s.call('POST', `${base()}/${t.name}/preview`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.text).toBe('News for Ada <admin>. Leave: https://unsubscribe.example/preview');
  });

  it('needs templates:read or templates:write, and answers 404 for another tenant’s template or none', async () => {
    const t = await created(receipt(fresh()));
    const key = async (scopes: string[]) => {
      const k = `pm_test_${randomBytes(18).toString('base64url')}`;
      await putApiKey(s.deps.db, sha256Hex(k), {
        key_id: `key_${s.deps.newId()}`,
        tenant_id: s.tenantId,
        scopes,
      });
      return k;
    };
    const path = `${base()}/${t.name}/preview`;
    expect((await s.call('POST', path, { key: await key(['templates:read']) })).status).toBe(200);
    expect((await s.call('POST', path, { key: await key(['templates:write']) })).status).toBe(200);
    const denied = await s.call('POST', path, { key: await key(['messages:read']) });
    expect(denied.status).toBe(403);
    expect((await s.call('POST', `${base()}/missing_one/preview`)).body.error.code).toBe(
      'template_not_found',
    );
    const other = await seedTestTenant(s.deps);
    const theirs = await s.call('POST', `/v1/tenants/${other.tenantId}/templates/${t.name}/preview`, {
      key: other.apiKey,
    });
    expect(theirs.status).toBe(404);
    expect(theirs.body.error.code).toBe('template_not_found');
  });
});

describe('core/templates › sampleVariables', () => {
  it.each([
    [{ type: 'string' }, '[value]'],
    [{ type: 'string', format: 'email' }, 'someone@example.com'],
    [{ type: 'string', enum: ['a', 'b'] }, 'a'],
    [{ const: 7 }, 7],
    [{ type: ['integer', 'null'] }, 1],
    [{ type: 'boolean', default: false }, false],
    [{ properties: { a: { type: 'number' } } }, { a: 1 }],
    [undefined, '[value]'],
  ])('%j → %j', (schema, sample) => {
    expect(sampleVariables(schema)).toEqual(sample);
  });
});
