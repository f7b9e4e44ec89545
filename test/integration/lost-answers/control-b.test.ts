import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressHash } from '../../../functions/core/suppressions.ts';
import { seedPlatformKey } from '../../../functions/local/seed.ts';
import { listAuditItems } from '../../../functions/store/audit-log.store.ts';
import { queryPrefix } from '../../../functions/store/db.ts';
import { getIdentity } from '../../../functions/store/directory.store.ts';
import { getSuppression } from '../../../functions/store/suppressions.store.ts';
import { getTemplateVersion } from '../../../functions/store/templates.store.ts';
import { tenantIdOfSlug } from '../../../functions/store/tenants.store.ts';
import { disableWebhook, getWebhook } from '../../../functions/store/webhooks.store.ts';
import { type Call, faults } from '../../support/faults.ts';
import { type TestStack, testStack } from '../../support/local.ts';

/**
 * The control plane's conditional writes when DynamoDB applied one and its answer was lost inside
 * the SDK's retry (docs/lost-answers.md): each answers as its own write, never as someone else's
 * (no 409, no `*_not_found`, no version conflict, nothing written twice), also when another
 * writer's write lands before the resend. Most are transactions, which the SDK resends under their
 * ClientRequestToken (`sent` 2); the single-item ones recognise their own earlier send by a token.
 */
let s: TestStack;
let platform: string;
beforeAll(async () => {
  s = await testStack();
  platform = (await seedPlatformKey(s.deps)).apiKey;
});
afterAll(async () => {
  await s.settle();
  await s.close();
});

const rand = () => randomBytes(4).toString('hex');
const has = (c: Call, text: string) => JSON.stringify(c.input).includes(text);
const tx = (text: string) => (c: Call) => c.command === 'TransactWriteItems' && has(c, text);

/**
 * Lose the answer to this test's own matching write inside the SDK's retry; `then` is another
 * writer's write, run before the resend, whose requests the rule neither fails nor counts.
 */
function loseOwn(match: (c: Call) => boolean, then?: () => Promise<unknown>) {
  const f = faults(s.deps.db);
  let theirs = false;
  const rule = f.loseAnswerInRetry(
    (c) => !theirs && match(c),
    then
      ? {
          // biome-ignore lint/suspicious/noThenProperty: faults.ts names this option `then`
          then: async () => {
            theirs = true;
            try {
              return await then();
            } finally {
              theirs = false;
            }
          },
        }
      : {},
  );
  return { sent: () => f.sent(rule) };
}

const audits = async (tenantId: string, action: string, targetId: string) =>
  (await listAuditItems(s.deps.db, tenantId, { limit: 100, action, targetId })).items.length;

const events = async (type: string, identityId: string) =>
  (await queryPrefix(s.deps.db, `T#${s.tenantId}`, 'E#')).filter((e) => {
    const ev = e.event as { type: string; data: { identity_id?: string } };
    return ev.type === type && ev.data.identity_id === identityId;
  }).length;

const counter = async (sk: string) =>
  (
    await s.deps.db.get({
      TableName: s.deps.db.table,
      Key: { pk: `T#${s.tenantId}`, sk },
      ConsistentRead: true,
    })
  ).Item?.count as number | undefined;

describe('tenants.store.ts', () => {
  const newTenant = (slug: string, name = 'Mine') =>
    s.call('POST', '/v1/tenants', { key: platform, body: { slug, name, mode: 'test' } });
  const made = async () => {
    const res = await newTenant(`la-${rand()}`);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.id as string;
  };

  it('tenants.store.ts › createTenant: its answer lost, the resend is answered 201, not tenant_exists', async () => {
    const slug = `la-${rand()}`;
    const own = loseOwn(tx(`TS#${slug}`));
    const res = await newTenant(slug);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(own.sent()).toBe(2);
    expect(await tenantIdOfSlug(s.deps.db, slug)).toBe(res.body.id);
    expect(await audits(res.body.id, 'tenant.create', res.body.id)).toBe(1);
  });

  it('tenants.store.ts › createTenant: another create of the slug before the resend is refused, this one answers 201', async () => {
    const slug = `la-${rand()}`;
    let other: Awaited<ReturnType<TestStack['call']>> | undefined;
    const own = loseOwn(tx(`TS#${slug}`), async () => {
      other = await newTenant(slug, 'Theirs');
    });
    const res = await newTenant(slug);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(own.sent()).toBe(2);
    expect(other?.body.error.code).toBe('tenant_exists');
    expect(other?.body.error.details.tenant_id).toBe(res.body.id);
    expect(await tenantIdOfSlug(s.deps.db, slug)).toBe(res.body.id);
  });

  const patch = (id: string, body: Record<string, unknown>) =>
    s.call('PATCH', `/v1/tenants/${id}`, { key: platform, body });

  it('tenants.store.ts › updateTenant: a suspension whose answer was lost is written and audited once', async () => {
    const id = await made();
    const own = loseOwn(tx(id));
    const res = await patch(id, { status: 'suspended' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.status).toBe('suspended');
    expect(own.sent()).toBe(2);
    expect((await s.call('GET', `/v1/tenants/${id}`, { key: platform })).body.status).toBe('suspended');
    expect(await audits(id, 'tenant.suspend', id)).toBe(1);
  });

  it('tenants.store.ts › updateTenant: a rename before the resend stays, the suspension is not written again', async () => {
    const id = await made();
    let other: Awaited<ReturnType<TestStack['call']>> | undefined;
    const own = loseOwn(tx(id), async () => {
      other = await patch(id, { name: 'Renamed' });
    });
    const res = await patch(id, { status: 'suspended' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ status: 'suspended', name: 'Renamed' });
    expect(own.sent()).toBe(2);
    expect(other?.status).toBe(200);
    expect((await s.call('GET', `/v1/tenants/${id}`, { key: platform })).body).toMatchObject({
      status: 'suspended',
      name: 'Renamed',
    });
    expect(await audits(id, 'tenant.suspend', id)).toBe(1);
    expect(await audits(id, 'tenant.update', id)).toBe(1);
  });

  const patchPolicy = (id: string, body: Record<string, unknown>) =>
    s.call('PATCH', `/v1/tenants/${id}/policy`, { key: platform, body });

  it('tenants.store.ts › updateTenantPolicy: a patch on policy_version whose answer was lost answers 200, not a version conflict', async () => {
    const id = await made();
    const own = loseOwn(tx(id));
    const res = await patchPolicy(id, { daily_send_cap: 5_000_000, policy_version: 1 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.policy_version).toBe(2);
    expect(own.sent()).toBe(2);
    const stored = await s.call('GET', `/v1/tenants/${id}/policy`, { key: platform });
    expect(stored.body).toMatchObject({ policy_version: 2, policy: { daily_send_cap: 5_000_000 } });
  });

  it('tenants.store.ts › updateTenantPolicy: another patch before the resend keeps both, this one answers its version', async () => {
    const id = await made();
    let other: Awaited<ReturnType<TestStack['call']>> | undefined;
    const own = loseOwn(tx(id), async () => {
      other = await patchPolicy(id, { max_recipients: 7 });
    });
    const res = await patchPolicy(id, { daily_send_cap: 5_000_000, policy_version: 1 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.policy_version).toBe(2);
    expect(own.sent()).toBe(2);
    expect(other?.body.policy_version).toBe(3);
    const stored = await s.call('GET', `/v1/tenants/${id}/policy`, { key: platform });
    expect(stored.body).toMatchObject({
      policy_version: 3,
      policy: { daily_send_cap: 5_000_000, max_recipients: 7 },
    });
    expect(await audits(id, 'tenant.policy_update', id)).toBe(2);
  });
});

describe('identities.store.ts and identity-status.store.ts', () => {
  const username = () => `la${rand()}`;
  const create = (name: string, display = 'Mine') =>
    s.call('POST', `/v1/tenants/${s.tenantId}/identities`, {
      body: { username: name, display_name: display },
    });
  const made = async () => {
    const res = await create(username());
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.id as string;
  };
  const patch = (id: string, body: Record<string, unknown>) =>
    s.call('PATCH', `/v1/identities/${id}`, { body });

  it('identities.store.ts › createIdentity: its answer lost, the resend is answered 201, not address_taken', async () => {
    const name = username();
    const own = loseOwn(tx(`${name}@`));
    const res = await create(name);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(own.sent()).toBe(2);
    expect(await getIdentity(s.deps.db, res.body.id)).toMatchObject({ status: 'active', name });
    expect(await audits(s.tenantId, 'identity.create', res.body.id)).toBe(1);
  });

  it('identities.store.ts › createIdentity: another create of the address before the resend is refused, this one answers 201', async () => {
    const name = username();
    let other: Awaited<ReturnType<TestStack['call']>> | undefined;
    const own = loseOwn(tx(`${name}@`), async () => {
      other = await create(name, 'Theirs');
    });
    const res = await create(name);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(own.sent()).toBe(2);
    expect(other?.body.error.code).toBe('address_taken');
    expect(await getIdentity(s.deps.db, res.body.id)).toMatchObject({
      status: 'active',
      display_name: 'Mine',
    });
  });

  it('identities.store.ts › updateIdentityFields: a change whose answer was lost is written and audited once', async () => {
    const id = await made();
    const own = loseOwn(tx(id));
    const res = await patch(id, { display_name: 'Changed' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.display_name).toBe('Changed');
    expect(own.sent()).toBe(2);
    expect((await getIdentity(s.deps.db, id))?.display_name).toBe('Changed');
    expect(await audits(s.tenantId, 'identity.update', id)).toBe(1);
  });

  it('identities.store.ts › updateIdentityFields: a pause before the resend does not refuse the change nor make it write again', async () => {
    const id = await made();
    let other: Awaited<ReturnType<TestStack['call']>> | undefined;
    const own = loseOwn(tx(id), async () => {
      other = await patch(id, { status: 'paused' });
    });
    const res = await patch(id, { display_name: 'Changed' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.display_name).toBe('Changed');
    expect(own.sent()).toBe(2);
    expect(other?.body.status).toBe('paused');
    expect(await getIdentity(s.deps.db, id)).toMatchObject({ status: 'paused', display_name: 'Changed' });
    expect(await audits(s.tenantId, 'identity.update', id)).toBe(1);
  });

  it('identities.store.ts › deleteIdentity: a deletion whose answer was lost answers 200, not identity_not_found', async () => {
    const id = await made();
    const own = loseOwn(tx(id));
    const res = await s.call('DELETE', `/v1/identities/${id}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.status).toBe('deleted');
    expect(own.sent()).toBe(2);
    expect((await getIdentity(s.deps.db, id))?.status).toBe('deleted');
    expect(await audits(s.tenantId, 'identity.delete', id)).toBe(1);
  });

  it('identities.store.ts › deleteIdentity: another deletion before the resend is refused, this one answers 200', async () => {
    const id = await made();
    let other: Awaited<ReturnType<TestStack['call']>> | undefined;
    const own = loseOwn(tx(id), async () => {
      other = await s.call('DELETE', `/v1/identities/${id}`);
    });
    const res = await s.call('DELETE', `/v1/identities/${id}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(own.sent()).toBe(2);
    expect(other?.status).toBe(404);
    expect((await getIdentity(s.deps.db, id))?.status).toBe('deleted');
    expect(await audits(s.tenantId, 'identity.delete', id)).toBe(1);
  });

  it('identity-status.store.ts › changeIdentityStatus: a pause whose answer was lost answers paused and emits once', async () => {
    const id = await made();
    const own = loseOwn(tx(id));
    const res = await patch(id, { status: 'paused' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.status).toBe('paused');
    expect(own.sent()).toBe(2);
    expect((await getIdentity(s.deps.db, id))?.status).toBe('paused');
    expect(await events('identity.paused', id)).toBe(1);
  });

  it('identity-status.store.ts › changeIdentityStatus: a resume before the resend stays, the pause is not applied again', async () => {
    const id = await made();
    let other: Awaited<ReturnType<TestStack['call']>> | undefined;
    const own = loseOwn(tx(id), async () => {
      other = await patch(id, { status: 'active' });
    });
    const res = await patch(id, { status: 'paused' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.status).toBe('paused');
    expect(own.sent()).toBe(2);
    expect(other?.body.status).toBe('active');
    expect((await getIdentity(s.deps.db, id))?.status).toBe('active');
    expect(await events('identity.paused', id)).toBe(1);
    expect(await events('identity.resumed', id)).toBe(1);
  });
});

describe('templates.store.ts', () => {
  const base = () => `/v1/tenants/${s.tenantId}/templates`;
  const source = (subject: string) => ({
    subject,
    text: 'Hello {{name}}',
    variables_schema: {
      type: 'object',
      properties: { name: { type: 'string' } },
      required: ['name'],
      additionalProperties: false,
    },
    category: 'transactional',
    kind: 'transactional',
  });
  const create = (name: string, subject = 'Mine') =>
    s.call('POST', base(), { body: { name, ...source(subject) } });
  const made = async () => {
    const name = `la_${rand()}`;
    expect((await create(name)).status).toBe(201);
    return name;
  };
  const head = (name: string) => tx(`TPL#${name}"`);

  it('templates.store.ts › createTemplate: its answer lost, the resend is answered 201, not template_exists, counted once', async () => {
    const name = `la_${rand()}`;
    const before = (await counter('TPLN')) ?? 0;
    const own = loseOwn(head(name));
    const res = await create(name);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.version).toBe(1);
    expect(own.sent()).toBe(2);
    expect((await s.call('GET', `${base()}/${name}`)).body.subject).toBe('Mine');
    expect(await counter('TPLN')).toBe(before + 1);
  });

  it('templates.store.ts › createTemplate: another create of the name before the resend is refused, this one answers 201', async () => {
    const name = `la_${rand()}`;
    const before = (await counter('TPLN')) ?? 0;
    let other: Awaited<ReturnType<TestStack['call']>> | undefined;
    const own = loseOwn(head(name), async () => {
      other = await create(name, 'Theirs');
    });
    const res = await create(name);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(own.sent()).toBe(2);
    expect(other?.body.error.code).toBe('template_exists');
    expect((await s.call('GET', `${base()}/${name}`)).body.subject).toBe('Mine');
    expect(await counter('TPLN')).toBe(before + 1);
  });

  const put = (name: string, subject: string) =>
    s.call('PUT', `${base()}/${name}`, { body: source(subject) });

  it('templates.store.ts › updateTemplate: a version whose answer was lost is saved once, not again on top of itself', async () => {
    const name = await made();
    const own = loseOwn(head(name));
    const res = await put(name, 'Changed');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.version).toBe(2);
    expect(own.sent()).toBe(2);
    expect((await s.call('GET', `${base()}/${name}`)).body).toMatchObject({ version: 2, subject: 'Changed' });
    expect(await getTemplateVersion(s.deps.db, s.tenantId, name, 3)).toBeUndefined();
  });

  it('templates.store.ts › updateTemplate: another PUT before the resend is kept on top, this one answers its version', async () => {
    const name = await made();
    let other: Awaited<ReturnType<TestStack['call']>> | undefined;
    const own = loseOwn(head(name), async () => {
      other = await put(name, 'Theirs');
    });
    const res = await put(name, 'Changed');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.version).toBe(2);
    expect(own.sent()).toBe(2);
    expect(other?.body.version).toBe(3);
    expect((await s.call('GET', `${base()}/${name}`)).body).toMatchObject({ version: 3, subject: 'Theirs' });
    expect((await getTemplateVersion(s.deps.db, s.tenantId, name, 2))?.subject).toBe('Changed');
    expect(await getTemplateVersion(s.deps.db, s.tenantId, name, 4)).toBeUndefined();
  });

  it('templates.store.ts › deleteTemplate: a delete whose answer was lost answers 204, not template_not_found, its place given back once', async () => {
    const name = await made();
    const before = await counter('TPLN');
    const own = loseOwn(head(name));
    const res = await s.call('DELETE', `${base()}/${name}`);
    expect(res.status, JSON.stringify(res.body)).toBe(204);
    expect(own.sent()).toBe(2);
    expect((await s.call('GET', `${base()}/${name}`)).status).toBe(404);
    expect(await counter('TPLN')).toBe(before! - 1);
  });

  it('templates.store.ts › deleteTemplate: the name created again before the resend stays, this one answers 204', async () => {
    const name = await made();
    const before = await counter('TPLN');
    let other: Awaited<ReturnType<TestStack['call']>> | undefined;
    const own = loseOwn(head(name), async () => {
      other = await create(name, 'Theirs');
    });
    const res = await s.call('DELETE', `${base()}/${name}`);
    expect(res.status, JSON.stringify(res.body)).toBe(204);
    expect(own.sent()).toBe(2);
    expect(other?.body.version).toBe(2);
    expect((await s.call('GET', `${base()}/${name}`)).body).toMatchObject({ version: 2, subject: 'Theirs' });
    expect(await counter('TPLN')).toBe(before);
  });
});

describe('webhooks.store.ts', () => {
  const create = (url: string) => s.call('POST', '/v1/webhooks', { body: { url } });
  const made = async () => {
    const res = await create(`https://hooks.example.com/la-${rand()}`);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.id as string;
  };

  it('webhooks.store.ts › createWebhook: its answer lost, the resend is answered 201 and counted once', async () => {
    const url = `https://hooks.example.com/la-${rand()}`;
    const before = (await counter('WHN')) ?? 0;
    const own = loseOwn(tx(url));
    const res = await create(url);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(own.sent()).toBe(2);
    expect((await s.call('GET', `/v1/webhooks/${res.body.id}`)).body.url).toBe(url);
    expect(await counter('WHN')).toBe(before + 1);
  });

  it('webhooks.store.ts › createWebhook: another endpoint created before the resend, each counted once', async () => {
    const url = `https://hooks.example.com/la-${rand()}`;
    const before = (await counter('WHN')) ?? 0;
    let other: Awaited<ReturnType<TestStack['call']>> | undefined;
    const own = loseOwn(tx(url), async () => {
      other = await create(`${url}-theirs`);
    });
    const res = await create(url);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(own.sent()).toBe(2);
    expect(other?.status).toBe(201);
    expect((await s.call('GET', `/v1/webhooks/${res.body.id}`)).body.url).toBe(url);
    expect(await counter('WHN')).toBe(before + 2);
  });

  it('webhooks.store.ts › deleteWebhook: a delete whose answer was lost answers 204, not webhook_not_found, its place given back once', async () => {
    const id = await made();
    const before = await counter('WHN');
    const own = loseOwn(tx(`WH#${id}`));
    const res = await s.call('DELETE', `/v1/webhooks/${id}`);
    expect(res.status, JSON.stringify(res.body)).toBe(204);
    expect(own.sent()).toBe(2);
    expect((await s.call('GET', `/v1/webhooks/${id}`)).status).toBe(404);
    expect(await counter('WHN')).toBe(before! - 1);
  });

  it('webhooks.store.ts › deleteWebhook: another delete before the resend is refused, this one answers 204', async () => {
    const id = await made();
    const before = await counter('WHN');
    let other: Awaited<ReturnType<TestStack['call']>> | undefined;
    const own = loseOwn(tx(`WH#${id}`), async () => {
      other = await s.call('DELETE', `/v1/webhooks/${id}`);
    });
    const res = await s.call('DELETE', `/v1/webhooks/${id}`);
    expect(res.status, JSON.stringify(res.body)).toBe(204);
    expect(own.sent()).toBe(2);
    expect(other?.status).toBe(404);
    expect(await counter('WHN')).toBe(before! - 1);
  });

  const update = (id: string) => (c: Call) => c.command === 'UpdateItem' && c.sk === `WH#${id}`;

  it('webhooks.store.ts › disableWebhook: its answer lost, it sends again and knows its own disabling', async () => {
    const id = await made();
    const own = loseOwn(update(id));
    expect(await disableWebhook(s.deps.db, s.tenantId, id, 'gone', Date.now())).toBe(true);
    expect(own.sent()).toBe(2);
    expect(await getWebhook(s.deps.db, s.tenantId, id)).toMatchObject({
      status: 'disabled',
      disabled_reason: 'gone',
    });
  });

  it("webhooks.store.ts › disableWebhook: another delivery's disabling before the resend is refused, this one's is its own", async () => {
    const id = await made();
    let other: boolean | undefined;
    const own = loseOwn(update(id), async () => {
      other = await disableWebhook(s.deps.db, s.tenantId, id, 'gone', Date.now());
    });
    expect(await disableWebhook(s.deps.db, s.tenantId, id, 'gone', Date.now())).toBe(true);
    expect(own.sent()).toBe(2);
    expect(other).toBe(false);
    expect((await getWebhook(s.deps.db, s.tenantId, id))?.status).toBe('disabled');
  });
});

describe('suppressions.store.ts', () => {
  const base = () => `/v1/tenants/${s.tenantId}/suppressions`;
  const address = () => `la-${rand()}@example.com`;
  const hash = (a: string) => addressHash(s.deps.config.hashKey, a);
  const suppress = (a: string, reason: string) => s.call('POST', base(), { body: { address: a, reason } });
  const put = (a: string) => (c: Call) => c.command === 'PutItem' && c.sk === `S#${hash(a)}`;

  it('suppressions.store.ts › putSuppressionIfAbsent (its condition: suppressions.store.ts › replaceCondition): a suppression whose answer was lost is sent again and answers 201', async () => {
    const a = address();
    const own = loseOwn(put(a));
    const res = await suppress(a, 'unsubscribe');
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(own.sent()).toBe(2);
    expect((await getSuppression(s.deps.db, s.tenantId, hash(a)))?.reason).toBe('unsubscribe');
  });

  it('suppressions.store.ts › putSuppressionIfAbsent (its condition: suppressions.store.ts › replaceCondition): a stronger suppression before the resend is kept and answered', async () => {
    const a = address();
    let other: Awaited<ReturnType<TestStack['call']>> | undefined;
    const own = loseOwn(put(a), async () => {
      other = await suppress(a, 'manual');
    });
    const res = await suppress(a, 'unsubscribe');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.reason).toBe('manual');
    expect(own.sent()).toBe(2);
    expect(other?.status).toBe(201);
    expect((await getSuppression(s.deps.db, s.tenantId, hash(a)))?.reason).toBe('manual');
  });

  const remove = (a: string) => s.call('DELETE', `${base()}/${encodeURIComponent(a)}`);

  it('suppressions.store.ts › deleteSuppression: a delete whose answer was lost answers 204, not suppression_not_found', async () => {
    const a = address();
    expect((await suppress(a, 'manual')).status).toBe(201);
    const own = loseOwn(tx(`S#${hash(a)}`));
    const res = await remove(a);
    expect(res.status, JSON.stringify(res.body)).toBe(204);
    expect(own.sent()).toBe(2);
    expect(await getSuppression(s.deps.db, s.tenantId, hash(a))).toBeUndefined();
  });

  it('suppressions.store.ts › deleteSuppression: the address suppressed again before the resend stays suppressed', async () => {
    const a = address();
    expect((await suppress(a, 'manual')).status).toBe(201);
    let other: Awaited<ReturnType<TestStack['call']>> | undefined;
    const own = loseOwn(tx(`S#${hash(a)}`), async () => {
      other = await suppress(a, 'unsubscribe');
    });
    const res = await remove(a);
    expect(res.status, JSON.stringify(res.body)).toBe(204);
    expect(own.sent()).toBe(2);
    expect(other?.status).toBe(201);
    expect((await getSuppression(s.deps.db, s.tenantId, hash(a)))?.reason).toBe('unsubscribe');
  });
});
