import { randomBytes } from 'node:crypto';
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../functions/core/fingerprint.ts';
import { MAX_TEMPLATES_PER_TENANT } from '../../functions/core/limits.ts';
import { addressHash, addressHint } from '../../functions/core/suppressions.ts';
import { seedTestTenant } from '../../functions/local/seed.ts';
import { putApiKey } from '../../functions/store/directory.store.ts';
import { putSuppressionIfAbsent } from '../../functions/store/suppressions.store.ts';
import { keys } from '../../functions/store/table-keys.ts';
import { type TestStack, testStack } from '../support/local.ts';

let s: TestStack;
beforeAll(async () => {
  s = await testStack();
});
afterAll(async () => {
  await s.settle();
  await s.close();
});

const base = () => `/v1/tenants/${s.tenantId}/templates`;
let n = 0;
const fresh = (prefix = 'tpl') => `${prefix}_${++n}_${randomBytes(3).toString('hex')}`;

/** A sign-in link: transactional in category and kind, with a schema for its two variables. */
const magicLink = (name: string, over: Record<string, unknown> = {}) => ({
  name,
  subject: 'Sign in, {{name}}',
  text: 'Hello {{name}}, sign in: {{link}}',
  html: '<p>Hello {{name}}</p><p><a href="{{link}}">Sign in</a></p>',
  variables_schema: {
    type: 'object',
    properties: {
      name: { type: 'string', maxLength: 80 },
      link: { type: 'string', format: 'uri' },
    },
    required: ['name', 'link'],
    additionalProperties: false,
  },
  category: 'transactional',
  kind: 'transactional',
  ...over,
});

async function created(name: string, over: Record<string, unknown> = {}) {
  const res = await s.call('POST', base(), { body: magicLink(name, over) });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

async function keyWith(scopes: string[], identityIds?: string[]) {
  const key = `pm_test_${randomBytes(18).toString('base64url')}`;
  await putApiKey(s.deps.db, sha256Hex(key), {
    key_id: `key_${s.deps.newId()}`,
    tenant_id: s.tenantId,
    scopes,
    ...(identityIds ? { identity_ids: identityIds } : {}),
  });
  return key;
}

/** Every item of a partition, by sort key: what a refused send must leave unchanged. */
async function partition(pk: string): Promise<string[]> {
  const out = await s.deps.db.query({
    TableName: s.deps.db.table,
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': pk },
    ConsistentRead: true,
  });
  return (out.Items ?? []).map((i) => `${i.sk}:${JSON.stringify(i)}`).sort();
}
/** Both partitions a send writes to, once every earlier send has settled (so nothing else moves). */
const tables = async () => {
  await s.settle();
  return Promise.all([partition(`I#${s.agent.id}`), partition(`T#${s.tenantId}`)]);
};

async function storedItem(messageId: string) {
  const out = await s.deps.db.get({
    TableName: s.deps.db.table,
    Key: keys.message(s.agent.id, messageId),
    ConsistentRead: true,
  });
  return out.Item!;
}

async function mimeOf(messageId: string) {
  const m = await s.message(s.agent.id, messageId);
  const blob = await s.deps.blobs.get(m!.raw_key);
  return simpleParser(Buffer.from(blob!.body));
}

describe('templates API', () => {
  it('creates, reads, lists, versions and deletes a template', async () => {
    const name = fresh();
    const first = await created(name);
    expect(first).toMatchObject({ name, version: 1, category: 'transactional', kind: 'transactional' });
    expect(first.variables_schema.required).toEqual(['name', 'link']);

    const put = await s.call('PUT', `${base()}/${name}`, {
      body: { ...magicLink(name), name: undefined, subject: 'Your link, {{name}}' },
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ name, version: 2, subject: 'Your link, {{name}}' });
    expect(put.body.created_at).toBe(first.created_at);

    const got = await s.call('GET', `${base()}/${name}`);
    expect(got.body).toMatchObject({ version: 2, subject: 'Your link, {{name}}' });
    const list = await s.call('GET', base());
    const listed = list.body.data.find((t: { name: string }) => t.name === name);
    expect(listed).toMatchObject({ name, version: 2 });
    expect(listed.html).toBeUndefined();

    expect((await s.call('POST', base(), { body: magicLink(name) })).body.error.code).toBe('template_exists');
    expect((await s.call('DELETE', `${base()}/${name}`)).status).toBe(204);
    const gone = await s.call('GET', `${base()}/${name}`);
    expect([gone.status, gone.body.error.code]).toEqual([404, 'template_not_found']);
    expect((await s.call('DELETE', `${base()}/${name}`)).status).toBe(404);
    // Created again, the name keeps counting versions: a recorded version never names two sources.
    expect((await created(name)).version).toBe(3);
  });

  it('refuses a schema Ajv will not compile in strict mode with 400 invalid_template, storing nothing', async () => {
    const name = fresh();
    const res = await s.call('POST', base(), {
      body: magicLink(name, { variables_schema: { type: 'object', properties: { link: { type: 'url' } } } }),
    });
    expect([res.status, res.body.error.code]).toEqual([400, 'invalid_template']);
    expect(res.body.error.details.errors[0].path).toBe('variables_schema');
    expect((await s.call('GET', `${base()}/${name}`)).status).toBe(404);
    const first = await created(name);
    const put = await s.call('PUT', `${base()}/${name}`, {
      body: { ...magicLink(name), name: undefined, html: '{{#each items}}<li>{{this}}</li>' },
    });
    expect([put.status, put.body.error.code]).toEqual([400, 'invalid_template']);
    expect((await s.call('GET', `${base()}/${name}`)).body.version).toBe(first.version);
  });

  it('keeps every version when PUTs race: each makes its own', async () => {
    const name = fresh();
    await created(name);
    const puts = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        s.call('PUT', `${base()}/${name}`, {
          body: { ...magicLink(name), name: undefined, subject: `v${i}` },
        }),
      ),
    );
    expect(puts.map((p) => p.status)).toEqual(Array(5).fill(200));
    expect(puts.map((p) => p.body.version).sort()).toEqual([2, 3, 4, 5, 6]);
    const last = puts.find((p) => p.body.version === 6)!;
    expect((await s.call('GET', `${base()}/${name}`)).body.subject).toBe(last.body.subject);
  });

  it('takes templates:read to read and templates:write to change; other tenants see nothing', async () => {
    const name = fresh();
    await created(name);
    const reader = await keyWith(['templates:read'], [s.agent.id]);
    expect((await s.call('GET', `${base()}/${name}`, { key: reader })).status).toBe(200);
    const write = await s.call('POST', base(), { key: reader, body: magicLink(fresh()) });
    expect([write.status, write.body.error.code]).toEqual([403, 'permission_denied']);
    const none = await keyWith(['messages:send']);
    expect((await s.call('GET', base(), { key: none })).body.error.code).toBe('permission_denied');
    const other = await seedTestTenant(s.deps);
    const foreign = await s.call('GET', `${base()}/${name}`, { key: other.apiKey });
    expect([foreign.status, foreign.body.error.code]).toEqual([404, 'tenant_not_found']);
  });

  it(`keeps at most ${MAX_TEMPLATES_PER_TENANT} templates per tenant, under concurrent creates`, async () => {
    const other = await seedTestTenant(s.deps);
    const path = `/v1/tenants/${other.tenantId}/templates`;
    const results = await Promise.all(
      Array.from({ length: MAX_TEMPLATES_PER_TENANT + 5 }, (_, i) =>
        s.call('POST', path, { key: other.apiKey, body: magicLink(`t${i}`) }),
      ),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(MAX_TEMPLATES_PER_TENANT);
    const refused = results.filter((r) => r.status !== 201);
    expect(refused.map((r) => r.body.error.code)).toEqual(Array(5).fill('template_limit_reached'));
    expect((await s.call('GET', path, { key: other.apiKey })).body.data).toHaveLength(
      MAX_TEMPLATES_PER_TENANT,
    );
    // A delete gives the place back (of a template the race let in: which ones won is the table's).
    const kept = `t${results.findIndex((r) => r.status === 201)}`;
    expect((await s.call('DELETE', `${path}/${kept}`, { key: other.apiKey })).status).toBe(204);
    expect((await s.call('POST', path, { key: other.apiKey, body: magicLink('again') })).status).toBe(201);
  });
});

describe('sends by template', () => {
  const link = 'https://app.example/l/tok-9d1e?a=1&b=2';
  const vars = { name: '<b>Ada</b> & "co"', link };

  it('renders the template, escapes variables in HTML only, and records the version it rendered', async () => {
    const name = fresh();
    await created(name);
    const res = await s.send({ template: name, variables: vars, to: ['delivered@simulator.invalid'] });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect(res.body.template).toEqual({ name, version: 1 });
    expect(res.body.subject).toBe('Sign in, <b>Ada</b> & "co"');
    expect(res.body.kind).toBe('transactional');
    const mail = await mimeOf(res.body.id);
    expect(mail.html).toContain('<p>Hello &lt;b&gt;Ada&lt;/b&gt; &amp; &quot;co&quot;</p>');
    expect(mail.html).not.toContain('<b>Ada</b>');
    expect(mail.text).toContain('Hello <b>Ada</b> & "co", sign in: https://app.example/l/tok-9d1e?a=1&b=2');

    await s.call('PUT', `${base()}/${name}`, {
      body: { ...magicLink(name), name: undefined, subject: 'Version two for {{name}}' },
    });
    const second = await s.send({ template: name, variables: vars, to: ['delivered@simulator.invalid'] });
    expect(second.body.template).toEqual({ name, version: 2 });
    expect(second.body.subject).toBe('Version two for <b>Ada</b> & "co"');
    expect((await s.message(s.agent.id, second.body.id))!.template).toEqual({
      name,
      version: 2,
      category: 'transactional',
    });
  });

  it('refuses a bad payload at enqueue with the schema errors, storing, reserving and counting nothing', async () => {
    const name = fresh();
    await created(name);
    const before = await tables();
    const key = `bad-payload-${fresh()}`;
    const secret = 'tok-never-echoed-4411';
    const res = await s.send(
      {
        template: name,
        variables: { name: 7, link: secret, extra: secret },
        to: ['delivered@simulator.invalid'],
      },
      key,
    );
    expect([res.status, res.body.error.code]).toEqual([400, 'invalid_payload']);
    expect(
      res.body.error.details.errors.map((e: { instance_path: string; keyword: string }) => [
        e.instance_path,
        e.keyword,
      ]),
    ).toEqual(
      expect.arrayContaining([
        ['/name', 'type'],
        ['/link', 'format'],
        ['', 'additionalProperties'],
      ]),
    );
    expect(JSON.stringify(res.body)).not.toContain(secret);
    // No message, no idempotency item, no thread, no quota count: the partitions are as they were.
    expect(await tables()).toEqual(before);
    // And the key was never taken: the same key with a good payload is a first send.
    const ok = await s.send({ template: name, variables: vars, to: ['delivered@simulator.invalid'] }, key);
    expect([ok.status, ok.body.deduplicated]).toEqual([202, false]);
  });

  it('answers 404 template_not_found for an unknown template, storing nothing', async () => {
    const before = await tables();
    const res = await s.send({
      template: 'no_such_template',
      variables: vars,
      to: ['delivered@simulator.invalid'],
    });
    expect([res.status, res.body.error.code]).toEqual([404, 'template_not_found']);
    expect(await tables()).toEqual(before);
  });

  it.each([
    [{ text: 'hi' }, 'text'],
    [{ subject: 'Hi' }, 'subject'],
    [{ kind: 'marketing' }, 'kind'],
  ])('refuses %j beside a template: the template gives it', async (extra, path) => {
    const name = fresh();
    await created(name);
    const res = await s.send({
      template: name,
      variables: vars,
      to: ['delivered@simulator.invalid'],
      ...extra,
    });
    expect([res.status, res.body.error.code]).toEqual([400, 'invalid_request']);
    expect(res.body.error.details.errors).toEqual([expect.objectContaining({ path })]);
  });

  it('refuses variables without a template', async () => {
    const res = await s.send({ variables: vars, text: 'x', to: ['delivered@simulator.invalid'] });
    expect(res.body.error.details.errors).toEqual([expect.objectContaining({ path: 'variables' })]);
  });

  it('cannot render a marketing template without an unsubscribe URL; with one it sends List-Unsubscribe (RFC 8058)', async () => {
    const name = fresh();
    await created(name, {
      category: 'marketing',
      kind: 'elective',
      html: '<p>News for {{name}}</p><a href="{{@unsubscribe_url}}">Unsubscribe</a>',
    });
    const before = await tables();
    const refused = await s.send({ template: name, variables: vars, to: ['delivered@simulator.invalid'] });
    expect([refused.status, refused.body.error.code]).toEqual([400, 'marketing_requirements_missing']);
    expect(refused.body.error.details.missing).toEqual(['unsubscribe.url']);
    expect(await tables()).toEqual(before);

    const unsubscribe = { url: 'https://news.example/u/abc' };
    const sent = await s.send({
      template: name,
      variables: vars,
      to: ['delivered@simulator.invalid'],
      unsubscribe,
      consent: { basis: 'opt_in' },
    });
    expect(sent.status, JSON.stringify(sent.body)).toBe(202);
    expect(sent.body.kind).toBe('marketing');
    expect((await s.message(s.agent.id, sent.body.id))!.consent_kind).toBe('elective');
    const mail = await mimeOf(sent.body.id);
    const line = (key: string) => mail.headerLines.find((h) => h.key === key)?.line;
    expect(line('list-unsubscribe-post')).toBe('List-Unsubscribe-Post: List-Unsubscribe=One-Click');
    expect(line('list-unsubscribe')).toBe(`List-Unsubscribe: <${unsubscribe.url}>`);
    expect(mail.html).toContain(`<a href="${unsubscribe.url}">Unsubscribe</a>`);
  });

  it('fingerprints template name, version and variables: same variables replay, others conflict', async () => {
    const name = fresh();
    await created(name);
    const key = `fp-${fresh()}`;
    const body = { template: name, variables: vars, to: ['delivered@simulator.invalid'] };
    const first = await s.send(body, key);
    expect(first.status).toBe(202);
    const again = await s.send(body, key);
    expect([again.status, again.body.deduplicated, again.body.id]).toEqual([202, true, first.body.id]);
    const other = await s.send({ ...body, variables: { ...vars, name: 'Grace' } }, key);
    expect([other.status, other.body.error.code]).toEqual([409, 'idempotency_conflict']);
    // A new version of the template is another message: the same key and body now conflict too.
    await s.call('PUT', `${base()}/${name}`, {
      body: { ...magicLink(name), name: undefined, subject: 'v2' },
    });
    const afterPut = await s.send(body, key);
    expect([afterPut.status, afterPut.body.error.code]).toEqual([409, 'idempotency_conflict']);
  });

  it('empties the variables of a delivered transactional message, which still reads back', async () => {
    const name = fresh();
    await created(name);
    const res = await s.send({ template: name, variables: vars, to: ['delivered@simulator.invalid'] });
    expect(res.status).toBe(202);
    const queued = await storedItem(res.body.id);
    expect(JSON.parse(queued.template_variables)).toEqual(vars);
    await s.settle();
    const item = await s.eventually(async () => {
      const i = await storedItem(res.body.id);
      return i.status === 'delivered' ? i : undefined;
    });
    expect(item.template_variables).toBe('{}');
    expect(JSON.stringify(item)).not.toContain('tok-9d1e');
    expect(typeof item.payload_redacted_at).toBe('number');
    const read = await s.message(s.agent.id, res.body.id);
    expect(read!.template_variables).toEqual({});
    const got = await s.call('GET', `/v1/identities/${s.agent.id}/messages/${res.body.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ status: 'delivered', template: { name, version: 1 } });
    expect(got.body.payload_redacted_at).toBe(new Date(item.payload_redacted_at).toISOString());
    expect(JSON.stringify(got.body)).not.toContain('variables');
  });

  it('answers by template: a reply keeps the thread’s subject and renders the body', async () => {
    const name = fresh();
    await created(name);
    const subject = `Question ${fresh()}`;
    const asked = await s.send({ to: [s.peer.address], subject, text: 'Can I sign in?' });
    expect(asked.status).toBe(202);
    const inbound = await s.eventually(async () =>
      (await s.mailbox(s.peer.id, 'inbound')).find((m) => m.subject === subject),
    );
    const reply = await s.call('POST', `/v1/identities/${s.peer.id}/messages/${inbound.id}/reply`, {
      body: { template: name, variables: vars },
      headers: { 'idempotency-key': `reply-${fresh()}` },
    });
    expect(reply.status, JSON.stringify(reply.body)).toBe(202);
    expect(reply.body.subject).toBe(`Re: ${subject}`);
    expect(reply.body.template).toEqual({ name, version: 1 });
    expect(reply.body.thread_id).toBe(inbound.thread_id);
  });

  it('empties the variables through every write path: a scheduled send canceled', async () => {
    // Its own stack, whose dispatcher starts nothing: the message waits, queued, to be canceled.
    const q = await testStack({ dispatcher: { start: async () => undefined } });
    try {
      const name = fresh();
      expect(
        (await q.call('POST', `/v1/tenants/${q.tenantId}/templates`, { body: magicLink(name) })).status,
      ).toBe(201);
      const res = await q.send({
        template: name,
        variables: vars,
        to: ['delivered@simulator.invalid'],
        send_at: new Date(Date.now() + 3600_000).toISOString(),
      });
      expect(res.status).toBe(202);
      const item = async () =>
        (
          await q.deps.db.get({
            TableName: q.deps.db.table,
            Key: keys.message(q.agent.id, res.body.id),
            ConsistentRead: true,
          })
        ).Item!;
      expect(JSON.parse((await item()).template_variables)).toEqual(vars);
      const canceled = await q.call('POST', `/v1/identities/${q.agent.id}/messages/${res.body.id}/cancel`);
      expect([canceled.status, canceled.body.status]).toEqual([200, 'canceled']);
      const stored = await item();
      expect([stored.status, stored.template_variables]).toEqual(['canceled', '{}']);
      expect(canceled.body.payload_redacted_at).toBe(new Date(stored.payload_redacted_at).toISOString());
    } finally {
      await q.close();
    }
  });

  it('answers a dry run by template with the recipients, writing nothing', async () => {
    const name = fresh();
    await created(name);
    const before = await tables();
    const res = await s.call('POST', `/v1/identities/${s.agent.id}/messages`, {
      body: { template: name, variables: vars, to: ['delivered@simulator.invalid'] },
      query: { dry_run: 'true' },
    });
    expect([res.status, res.body.would_send]).toEqual([200, true]);
    expect(await tables()).toEqual(before);
  });

  it('takes the kind from the template: an unsubscribed address gets a transactional template, never an elective one', async () => {
    const [local, domain] = s.peer.address.split('@');
    const to = `${local}+unsub${++n}@${domain}`;
    const tenantId = s.tenantId;
    const res = await s.call('POST', `/v1/tenants/${tenantId}/suppressions`, {
      body: { address: to, reason: 'unsubscribe' },
    });
    expect(res.status).toBe(201);
    const signIn = fresh();
    await created(signIn);
    // Transactional in style, elective in consent (docs/guides/sending.md › The job model: a nudge).
    const nudge = fresh();
    await created(nudge, { kind: 'elective' });
    const tx = await s.send({ template: signIn, variables: vars, to: [to] });
    expect([tx.status, tx.body.status, tx.body.consent_kind]).toEqual([202, 'queued', 'transactional']);
    const el = await s.send({ template: nudge, variables: vars, to: [to] });
    expect([el.status, el.body.status, el.body.consent_kind]).toEqual([202, 'suppressed', 'elective']);
    expect(el.body.kind).toBe('transactional');
    // Born suppressed is final: the elective send's variables are already gone.
    expect((await storedItem(el.body.id)).template_variables).toBe('{}');
  });

  it.each(['hard_bounce', 'complaint'] as const)(
    'takes the kind from the template: an address suppressed by a %s gets neither a transactional nor an elective template',
    async (reason) => {
      const [local, domain] = s.peer.address.split('@');
      const to = `${local}+${reason}${++n}@${domain}`;
      // As the events consumer writes it on a provider's hard bounce or complaint.
      await putSuppressionIfAbsent(
        s.deps.db,
        s.tenantId,
        {
          address_hash: addressHash(s.deps.config.hashKey, to),
          address_hint: addressHint(to),
          reason,
          created_at: s.deps.clock(),
        },
        s.deps.clock(),
      );
      const signIn = fresh();
      await created(signIn);
      const nudge = fresh();
      await created(nudge, { kind: 'elective' });
      const tx = await s.send({ template: signIn, variables: vars, to: [to] });
      expect([tx.status, tx.body.status, tx.body.consent_kind]).toEqual([202, 'suppressed', 'transactional']);
      const el = await s.send({ template: nudge, variables: vars, to: [to] });
      expect([el.status, el.body.status, el.body.consent_kind]).toEqual([202, 'suppressed', 'elective']);
    },
  );

  it('sends a forward by template, recording the template', async () => {
    const name = fresh();
    await created(name);
    const original = await s.send({ to: ['delivered@simulator.invalid'], subject: 'Original', text: 'x' });
    const fwd = await s.call('POST', `/v1/identities/${s.agent.id}/messages/${original.body.id}/forward`, {
      body: { template: name, variables: vars, to: ['delivered@simulator.invalid'] },
      headers: { 'idempotency-key': `fwd-${fresh()}` },
    });
    expect(fwd.status, JSON.stringify(fwd.body)).toBe(202);
    expect(fwd.body.template).toEqual({ name, version: 1 });
    expect((await mimeOf(fwd.body.id)).text).toContain('sign in: https://app.example/l/tok-9d1e');
  });
});
