import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../functions/core/fingerprint.ts';
import { addressHash, filterRecipients } from '../../functions/core/suppressions.ts';
import { contactCountUpdates, getContacts } from '../../functions/store/contacts.store.ts';
import { putApiKey } from '../../functions/store/directory.store.ts';
import { getSendListMatches } from '../../functions/store/send-lists.store.ts';
import {
  getSuppressionsFor,
  putSuppressionIfAbsent,
  suppressionKey,
} from '../../functions/store/suppressions.store.ts';
import { type TestStack, testStack } from '../support/local.ts';

const START = Date.UTC(2030, 0, 1);
let now = START;
let s: TestStack;
beforeAll(async () => {
  s = await testStack({ clock: () => now });
});
afterAll(async () => {
  await s.settle();
  await s.close();
});

const base = () => `/v1/tenants/${s.tenantId}`;
let n = 0;
/** A distinct address per test, so tests never see each other's suppressions. */
const fresh = (local = 'jo.private') => `${local}${++n}@example.com`;
const hash = (address: string) => addressHash(s.deps.config.hashKey, address);

async function tenantItems() {
  const out = await s.deps.db.query({
    TableName: s.deps.db.table,
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': `T#${s.tenantId}` },
  });
  return out.Items ?? [];
}

async function keyWith(record: { scopes: string[]; identity_ids?: string[]; tenant_id?: string }) {
  const key = `pm_test_${randomBytes(18).toString('base64url')}`;
  await putApiKey(s.deps.db, sha256Hex(key), {
    key_id: `key_${s.deps.newId()}`,
    tenant_id: record.tenant_id ?? s.tenantId,
    scopes: record.scopes,
    ...(record.identity_ids ? { identity_ids: record.identity_ids } : {}),
  });
  return key;
}

describe('POST /v1/tenants/{tenant_id}/suppressions', () => {
  it('creates a suppression with 201 and shows only the masked hint', async () => {
    const address = fresh();
    const res = await s.call('POST', `${base()}/suppressions`, { body: { address, reason: 'manual' } });
    expect(res.status).toBe(201);
    expect(res.headers['request-id']).toMatch(/^req_/);
    expect(res.body).toEqual({
      address_hint: 'j***@example.com',
      reason: 'manual',
      created_at: new Date(now).toISOString(),
      expires_at: null,
      source_message_id: null,
      elective: false,
    });
    expect(JSON.stringify(res.body)).not.toContain(address);
  });

  it('never stores the plain address: the item is keyed by its HMAC and holds only the hint', async () => {
    const address = fresh('secret.local.part');
    await s.call('POST', `${base()}/suppressions`, { body: { address, reason: 'unsubscribe' } });
    const items = await tenantItems();
    const item = items.find((i) => i.sk === suppressionKey(s.tenantId, hash(address)).sk);
    expect(item).toMatchObject({
      type: 'suppression',
      reason: 'unsubscribe',
      address_hint: 's***@example.com',
    });
    for (const i of items) {
      expect(JSON.stringify(i)).not.toContain(address);
      expect(JSON.stringify(i)).not.toContain('secret.local');
    }
  });

  it('answers a repeat for the same mailbox, in any case, with 200 and the suppression in force', async () => {
    const address = fresh();
    const first = await s.call('POST', `${base()}/suppressions`, {
      body: { address, reason: 'unsubscribe' },
    });
    now += 60_000;
    const again = await s.call('POST', `${base()}/suppressions`, {
      body: { address: address.toUpperCase(), reason: 'unsubscribe' },
    });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
  });

  it('keeps an expiry and an elective manual suppression', async () => {
    const expires = new Date(now + 86_400_000).toISOString();
    const res = await s.call('POST', `${base()}/suppressions`, {
      body: { address: fresh(), reason: 'manual', elective: true, expires_at: expires },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ reason: 'manual', elective: true, expires_at: expires });
  });

  it('replaces an expired suppression with a new one (201)', async () => {
    const address = fresh();
    await s.call('POST', `${base()}/suppressions`, {
      body: { address, reason: 'manual', expires_at: new Date(now + 1000).toISOString() },
    });
    now += 2000;
    const res = await s.call('POST', `${base()}/suppressions`, { body: { address, reason: 'unsubscribe' } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ reason: 'unsubscribe', expires_at: null });
  });

  it.each([
    ['a reason the API may not create', { reason: 'hard_bounce' }, 'reason'],
    ['an unknown field', { reason: 'manual', note: 'x' }, ''],
    ['an expiry in the past', { reason: 'manual', expires_at: '2020-01-01T00:00:00Z' }, 'expires_at'],
    ['an expiry that is not RFC 3339', { reason: 'manual', expires_at: 'tomorrow' }, 'expires_at'],
    ['an unsubscribe that is not elective', { reason: 'unsubscribe', elective: false }, 'elective'],
  ])('refuses %s with 400 invalid_request', async (_name, body, path) => {
    const res = await s.call('POST', `${base()}/suppressions`, { body: { address: fresh(), ...body } });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
    expect(res.body.error.details.errors[0].path).toBe(path);
  });

  it('refuses an address pmail cannot send to with 400 address_invalid', async () => {
    const res = await s.call('POST', `${base()}/suppressions`, {
      body: { address: 'not-an-address', reason: 'manual' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('address_invalid');
  });
});

describe('GET and DELETE /v1/tenants/{tenant_id}/suppressions', () => {
  it('pages through the suppressions with an opaque cursor, each once, null at the end', async () => {
    const t = await testStack({ clock: () => now });
    const url = `/v1/tenants/${t.tenantId}/suppressions`;
    for (let i = 0; i < 5; i++)
      await t.call('POST', url, { body: { address: `${'abcde'[i]}page@example.com`, reason: 'manual' } });
    const seen: unknown[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const res = await t.call('GET', url, { query: { limit: '2', ...(cursor ? { cursor } : {}) } });
      expect(res.status).toBe(200);
      expect(res.body.data.length).toBeLessThanOrEqual(2);
      seen.push(...res.body.data);
      cursor = res.body.next_cursor ?? undefined;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toHaveLength(5);
    // Only the hints tell the items apart, so each address starts with another letter.
    expect(seen.map((x) => (x as { address_hint: string }).address_hint).sort()).toEqual(
      [...'abcde'].map((c) => `${c}***@example.com`),
    );
    await t.close();
  });

  it('finds one address with ?address= and filters by ?reason=', async () => {
    const address = fresh();
    await s.call('POST', `${base()}/suppressions`, { body: { address, reason: 'unsubscribe' } });
    const hit = await s.call('GET', `${base()}/suppressions`, { query: { address: address.toUpperCase() } });
    expect(hit.body).toEqual({
      data: [expect.objectContaining({ reason: 'unsubscribe' })],
      next_cursor: null,
    });
    const miss = await s.call('GET', `${base()}/suppressions`, { query: { address: fresh() } });
    expect(miss.body).toEqual({ data: [], next_cursor: null });
    const manual = await s.call('GET', `${base()}/suppressions`, {
      query: { reason: 'manual', limit: '100' },
    });
    expect(manual.body.data.length).toBeGreaterThan(0);
    expect(manual.body.data.every((x: { reason: string }) => x.reason === 'manual')).toBe(true);
  });

  it('refuses a cursor pmail did not make with 400 on path "cursor"', async () => {
    const res = await s.call('GET', `${base()}/suppressions`, { query: { cursor: 'bm90LWEtaGFzaA' } });
    expect(res.status).toBe(400);
    expect(res.body.error.details.errors[0].path).toBe('cursor');
  });

  it('deletes by URL-encoded address with 204, then answers 404 suppression_not_found', async () => {
    const address = fresh('del+tag');
    await s.call('POST', `${base()}/suppressions`, { body: { address, reason: 'manual' } });
    const del = await s.call('DELETE', `${base()}/suppressions/${encodeURIComponent(address.toUpperCase())}`);
    expect(del.status).toBe(204);
    expect(del.headers['request-id']).toMatch(/^req_/);
    expect((await tenantItems()).some((i) => i.sk === `S#${hash(address)}`)).toBe(false);
    const again = await s.call('DELETE', `${base()}/suppressions/${encodeURIComponent(address)}`);
    expect(again.status).toBe(404);
    expect(again.body.error.code).toBe('suppression_not_found');
  });
});

describe('PUT/GET/DELETE /v1/tenants/{tenant_id}/lists/send/{kind}/{entry}', () => {
  it('adds (201), re-adds (200), reads, lists and removes an entry', async () => {
    const url = `${base()}/lists/send/block/${encodeURIComponent('@Spam.Example')}`;
    const put = await s.call('PUT', url);
    expect(put.status).toBe(201);
    expect(put.body).toEqual({
      direction: 'send',
      kind: 'block',
      entry: '@spam.example',
      created_at: new Date(now).toISOString(),
    });
    now += 1000;
    const again = await s.call('PUT', url, { body: {} });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(put.body);
    expect((await s.call('GET', url)).body).toEqual(put.body);
    const list = await s.call('GET', `${base()}/lists/send/block`);
    expect(list.body.data).toContainEqual(put.body);
    expect((await s.call('GET', `${base()}/lists/send/allow`)).body.data).not.toContainEqual(
      expect.objectContaining({ entry: '@spam.example' }),
    );
    expect((await s.call('DELETE', url)).status).toBe(204);
    const gone = await s.call('GET', url);
    expect(gone.status).toBe(404);
    expect(gone.body.error.code).toBe('list_entry_not_found');
    expect((await s.call('DELETE', url)).status).toBe(404);
  });

  it('stores an internationalised domain in A-label form and finds it by either form', async () => {
    const put = await s.call('PUT', `${base()}/lists/send/allow/${encodeURIComponent('Jo@Bücher.example')}`);
    expect(put.body.entry).toBe('jo@xn--bcher-kva.example');
    const get = await s.call('GET', `${base()}/lists/send/allow/jo@xn--bcher-kva.example`);
    expect(get.status).toBe(200);
  });

  it('pages through a list with an opaque cursor', async () => {
    const t = await testStack({ clock: () => now });
    for (let i = 0; i < 3; i++)
      await t.call('PUT', `/v1/tenants/${t.tenantId}/lists/send/allow/@d${i}.example`);
    const first = await t.call('GET', `/v1/tenants/${t.tenantId}/lists/send/allow`, {
      query: { limit: '2' },
    });
    expect(first.body.data.map((e: { entry: string }) => e.entry)).toEqual(['@d0.example', '@d1.example']);
    const second = await t.call('GET', `/v1/tenants/${t.tenantId}/lists/send/allow`, {
      query: { limit: '2', cursor: first.body.next_cursor },
    });
    expect(second.body).toEqual({
      data: [expect.objectContaining({ entry: '@d2.example' })],
      next_cursor: null,
    });
    await t.close();
  });

  it.each([
    ['an unknown direction', '/lists/inbound/block/@x.example', 'direction'],
    ['unauthenticated on a send entry', '/lists/send/allow/@x.example', 'unauthenticated'],
    ['an unknown kind', '/lists/send/deny/@x.example', 'kind'],
    ['an entry that is neither address nor @domain', '/lists/send/block/example.com', 'entry'],
  ])('refuses %s with 400 invalid_request', async (_name, path, field) => {
    const body = field === 'unauthenticated' ? { unauthenticated: true } : undefined;
    const res = await s.call('PUT', `${base()}${path}`, { body });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
    expect(res.body.error.details.errors[0].path).toBe(field);
  });
});

describe('who may manage suppressions and lists', () => {
  it('refuses a key limited to identities with 403 guardrail_locked, though it holds the permission', async () => {
    const key = await keyWith({ scopes: ['suppressions:manage'], identity_ids: [s.agent.id] });
    for (const [method, path] of [
      ['GET', `${base()}/suppressions`],
      ['PUT', `${base()}/lists/send/block/@x.example`],
    ]) {
      const res = await s.call(method, path, { key });
      expect(res.status).toBe(403);
      expect(res.body.error).toMatchObject({
        code: 'guardrail_locked',
        details: { change: 'tenant.lists', required_level: 'tenant' },
      });
    }
  });

  it('refuses a tenant key without suppressions:manage with 403 naming the permission', async () => {
    const key = await keyWith({ scopes: ['messages:send', 'messages:read'] });
    const res = await s.call('POST', `${base()}/suppressions`, {
      key,
      body: { address: fresh(), reason: 'manual' },
    });
    expect(res.status).toBe(403);
    expect(res.body.error.details.required).toBe('suppressions:manage');
  });

  it("answers another tenant's id with 404 tenant_not_found and touches nothing there", async () => {
    const other = await testStack({ clock: () => now });
    const res = await s.call('POST', `/v1/tenants/${other.tenantId}/suppressions`, {
      body: { address: fresh(), reason: 'manual' },
    });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('tenant_not_found');
    const list = await other.call('GET', `/v1/tenants/${other.tenantId}/suppressions`);
    expect(list.body.data).toEqual([]);
    await other.close();
  });

  it('refuses an unknown key with 401 unauthenticated', async () => {
    const res = await s.call('GET', `${base()}/suppressions`, { key: 'pm_test_unknown' });
    expect(res.status).toBe(401);
  });
});

describe('stores for the submit path', () => {
  it('lets a suppression that blocks all mail replace an elective-only one, and never the reverse', async () => {
    const address = fresh();
    const mk = (reason: 'unsubscribe' | 'hard_bounce' | 'complaint') => ({
      address_hash: hash(address),
      address_hint: 'j***@example.com',
      reason,
      created_at: now,
      source_message_id: 'msg_01jz8m4n7q2r5t8v1w3x6y9z0a',
    });
    expect((await putSuppressionIfAbsent(s.deps.db, s.tenantId, mk('unsubscribe'), now)).created).toBe(true);
    const bounce = await putSuppressionIfAbsent(s.deps.db, s.tenantId, mk('hard_bounce'), now);
    expect(bounce).toMatchObject({ created: true, suppression: { reason: 'hard_bounce' } });
    const complaint = await putSuppressionIfAbsent(s.deps.db, s.tenantId, mk('complaint'), now);
    expect(complaint).toMatchObject({ created: false, suppression: { reason: 'hard_bounce' } });
    const unsub = await putSuppressionIfAbsent(s.deps.db, s.tenantId, mk('unsubscribe'), now);
    expect(unsub).toMatchObject({ created: false, suppression: { reason: 'hard_bounce' } });
  });

  it('loads the facts the recipient filter needs and decides with them', async () => {
    const suppressed = fresh('bounced');
    const blocked = 'anyone@blocked.example';
    const known = fresh('known');
    const stranger = fresh('stranger');
    await putSuppressionIfAbsent(
      s.deps.db,
      s.tenantId,
      {
        address_hash: hash(suppressed),
        address_hint: 'b***@example.com',
        reason: 'hard_bounce',
        created_at: now,
      },
      now,
    );
    await s.call('PUT', `${base()}/lists/send/block/@blocked.example`);
    await s.deps.db.transact({
      TransactItems: contactCountUpdates(s.deps.db, s.agent.id, [known, known.toUpperCase()], now),
    });
    const addresses = [suppressed, blocked, known, stranger];
    const [suppressions, lists, contacts] = await Promise.all([
      getSuppressionsFor(s.deps.db, s.tenantId, s.deps.config.hashKey, addresses),
      getSendListMatches(s.deps.db, s.tenantId, addresses),
      getContacts(s.deps.db, s.agent.id, addresses),
    ]);
    expect(contacts.get(known)).toEqual({
      inbound_count: 0,
      authenticated_inbound_count: 0,
      outbound_count: 1,
    });
    const out = filterRecipients(
      addresses.map((address) => ({ address })),
      {
        now,
        elective: false,
        allowlistOnly: false,
        requireKnownRecipient: true,
        suppressions,
        sendBlock: lists.block,
        sendAllow: lists.allow,
        contacts,
      },
    );
    expect(out.map((d) => (d.status === 'queued' ? 'queued' : d.smtp_response))).toEqual([
      'policy: suppression (hard_bounce)',
      'policy: send_block',
      'queued',
      'policy: unknown_recipient',
    ]);
  });

  it('counts each accepted send once more on the contact', async () => {
    const address = fresh('counted');
    for (let i = 0; i < 3; i++) {
      await s.deps.db.transact({
        TransactItems: contactCountUpdates(s.deps.db, s.agent.id, [address], now),
      });
    }
    expect((await getContacts(s.deps.db, s.agent.id, [address])).get(address)?.outbound_count).toBe(3);
  });
});
