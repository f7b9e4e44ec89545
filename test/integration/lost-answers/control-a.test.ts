// biome-ignore-all lint/suspicious/noThenProperty: `then` is the fault helper's name for the write another writer makes before the resend (test/support/faults.ts)
import { beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../../functions/core/fingerprint.ts';
import { permissionsOf } from '../../../functions/core/keys.ts';
import { seedTestTenant } from '../../../functions/local/seed.ts';
import { touchLastUsed } from '../../../functions/store/api-keys.store.ts';
import { listAuditItems } from '../../../functions/store/audit-log.store.ts';
import { reserveControl } from '../../../functions/store/control-idempotency.store.ts';
import {
  countUnderLimit,
  type Db,
  deleteCounted,
  transactGuarded,
  WRITER,
} from '../../../functions/store/db.ts';
import { ItemTaken, putAddress } from '../../../functions/store/directory.store.ts';
import { type Call, faults } from '../../support/faults.ts';
import { stackPerTest, type TestStack } from '../../support/local.ts';

/**
 * The control plane's conditional writes when DynamoDB applied them and the answer was lost inside
 * the SDK's retry (docs/lost-answers.md): each recognises its own earlier send, also when another
 * writer's write lands before the resend (`then`).
 */
const stack = stackPerTest();
let s: TestStack;
let db: Db;
beforeAll(async () => {
  s = await stack();
  db = s.deps.db;
});

let n = 0;
const unique = (p: string) => `${p}-${Date.now().toString(36)}-${++n}`;
const body = (c: Call) => JSON.stringify(c.input);

/**
 * The first call `pred` matches, and afterwards only calls with exactly its request body: that
 * request and its resends (the SDK resends a transaction unchanged, `putOnce` its put), never
 * another writer's request to the same item.
 */
function thisRequest(pred: (c: Call) => boolean) {
  let first: string | undefined;
  const seen: Call[] = [];
  const match = (c: Call) => {
    if (first === undefined) {
      if (!pred(c)) return false;
      first = body(c);
    } else if (body(c) !== first) return false;
    seen.push(c);
    return true;
  };
  return Object.assign(match, { seen });
}

const tx = (text: string) => thisRequest((c) => c.command === 'TransactWriteItems' && body(c).includes(text));
const item = async (pk: string, sk: string) =>
  (await db.get({ TableName: db.table, Key: { pk, sk }, ConsistentRead: true })).Item;
const keyBody = (name: string) => ({
  name,
  level: 'tenant',
  tenant_id: s.tenantId,
  permissions: ['messages:read'],
});
const audits = async (action: string, targetId: string) =>
  (await listAuditItems(db, s.tenantId, { limit: 100, action, targetId })).items;
/** The pk of the `KEY#…` item a transaction's body names. */
const keyIdIn = (c: Call) => /KEY#(key_\w+)/.exec(body(c))?.[1] as string;

describe('api-keys.store.ts › createApiKey', () => {
  it('its answer lost: the SDK resends the transaction, the key is minted once and its secret works', async () => {
    const f = faults(db);
    const name = unique('create');
    const rule = f.loseAnswerInRetry(tx(name));
    const res = await s.call('POST', '/v1/keys', { body: keyBody(name) });
    expect([res.status, typeof res.body.secret]).toEqual([201, 'string']);
    expect(f.sent(rule)).toBe(2);
    expect((await item(`KEY#${res.body.id}`, 'KEY'))?.version).toBe(1);
    expect((await s.call('GET', '/v1/me', { key: res.body.secret })).status).toBe(200);
  });

  it("another writer's write to the new key before the resend: still this call's key", async () => {
    const f = faults(db);
    const name = unique('create');
    const match = tx(name);
    const rule = f.loseAnswerInRetry(match, {
      then: () =>
        db.update({
          TableName: db.table,
          Key: { pk: `KEY#${keyIdIn(match.seen[0])}`, sk: 'KEY' },
          UpdateExpression: 'SET last_used_at = :t',
          ExpressionAttributeValues: { ':t': 1 },
        }),
    });
    const res = await s.call('POST', '/v1/keys', { body: keyBody(name) });
    expect(res.status).toBe(201);
    expect(f.sent(rule)).toBe(2);
    expect(await item(`KEY#${res.body.id}`, 'KEY')).toMatchObject({ name, version: 1, last_used_at: 1 });
    expect((await s.call('GET', '/v1/me', { key: res.body.secret })).status).toBe(200);
  });
});

describe('audit-log.store.ts › auditPut', () => {
  it('its answer lost in the mint transaction: the change is audited once', async () => {
    const f = faults(db);
    const name = unique('audit');
    const rule = f.loseAnswerInRetry(tx(name));
    const res = await s.call('POST', '/v1/keys', { body: keyBody(name) });
    expect(res.status).toBe(201);
    expect(f.sent(rule)).toBe(2);
    expect(await audits('key.create', res.body.id)).toHaveLength(1);
  });

  it("another change audited before the resend: each change once, this one's its own", async () => {
    const f = faults(db);
    const name = unique('audit');
    let other: { body: { id: string } } | undefined;
    f.loseAnswerInRetry(tx(name), {
      then: async () => {
        other = await s.call('POST', '/v1/keys', { body: keyBody(`${name}-other`) });
      },
    });
    const res = await s.call('POST', '/v1/keys', { body: keyBody(name) });
    expect(res.status).toBe(201);
    expect(await audits('key.create', res.body.id)).toHaveLength(1);
    expect(await audits('key.create', other!.body.id)).toHaveLength(1);
  });
});

describe('control-idempotency.store.ts › reserveControl', () => {
  const reservation = () =>
    thisRequest(
      (c) => c.command === 'PutItem' && c.sk.startsWith('IK#') && body(c).includes('control_idempotency'),
    );

  it('its answer lost: the reservation is sent again and found to be its own, not request_in_progress', async () => {
    const f = faults(db);
    const name = unique('reserve');
    const rule = f.loseAnswerInRetry(reservation());
    const idem = { 'idempotency-key': name };
    const res = await s.call('POST', '/v1/keys', { body: keyBody(name), headers: idem });
    expect([res.status, typeof res.body.secret]).toEqual([201, 'string']);
    expect(f.sent(rule)).toBe(2);
    const replay = await s.call('POST', '/v1/keys', { body: keyBody(name), headers: idem });
    expect([replay.status, replay.headers['idempotent-replayed'], replay.body.id]).toEqual([
      201,
      'true',
      res.body.id,
    ]);
  });

  it('the same request sent again before the resend is request_in_progress; this one still mints', async () => {
    const f = faults(db);
    const name = unique('reserve');
    const idem = { 'idempotency-key': name };
    let other: Awaited<ReturnType<TestStack['call']>> | undefined;
    const rule = f.loseAnswerInRetry(reservation(), {
      then: async () => {
        other = await s.call('POST', '/v1/keys', { body: keyBody(name), headers: idem });
      },
    });
    const res = await s.call('POST', '/v1/keys', { body: keyBody(name), headers: idem });
    expect(res.status).toBe(201);
    expect(f.sent(rule)).toBe(2);
    expect([other?.status, other?.body.error.code]).toEqual([409, 'request_in_progress']);
    const listed = await s.call('GET', '/v1/keys', { query: { limit: '100' } });
    expect(listed.body.data.filter((k: { name: string }) => k.name === name)).toHaveLength(1);
  });
});

describe('control-idempotency.store.ts › completeControlUpdate', () => {
  it('its answer lost in the mint transaction: the record is completed once and replays the key', async () => {
    const f = faults(db);
    const name = unique('complete');
    const idem = { 'idempotency-key': name };
    const rule = f.loseAnswerInRetry(tx(name));
    const res = await s.call('POST', '/v1/keys', { body: keyBody(name), headers: idem });
    expect([res.status, typeof res.body.secret]).toEqual([201, 'string']);
    expect(f.sent(rule)).toBe(2);
    const replay = await s.call('POST', '/v1/keys', { body: keyBody(name), headers: idem });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toMatchObject({ id: res.body.id, secret_replayed: false });
  });

  it('the same request sent again before the resend is answered the replay; this one its secret', async () => {
    const f = faults(db);
    const name = unique('complete');
    const idem = { 'idempotency-key': name };
    let other: Awaited<ReturnType<TestStack['call']>> | undefined;
    f.loseAnswerInRetry(tx(name), {
      then: async () => {
        other = await s.call('POST', '/v1/keys', { body: keyBody(name), headers: idem });
      },
    });
    const res = await s.call('POST', '/v1/keys', { body: keyBody(name), headers: idem });
    expect([res.status, typeof res.body.secret]).toEqual([201, 'string']);
    expect([other?.status, other?.headers['idempotent-replayed'], other?.body.id]).toEqual([
      201,
      'true',
      res.body.id,
    ]);
  });
});

describe('control-idempotency.store.ts › releaseControl', () => {
  const release = () => thisRequest((c) => c.command === 'DeleteItem' && c.sk.startsWith('IK#'));
  const missingIdentity = (name: string) => ({
    name,
    level: 'identity',
    identity_id: 'idn_00000000000000000000000000',
    permissions: permissionsOf('identity'),
  });

  it('its answer lost: the release is sent again, the request answers its own 404 and the key is free', async () => {
    const f = faults(db);
    const name = unique('release');
    const idem = { 'idempotency-key': name };
    const rule = f.loseAnswerInRetry(release());
    const res = await s.call('POST', '/v1/keys', { body: missingIdentity(name), headers: idem });
    expect([res.status, res.body.error.code]).toEqual([404, 'identity_not_found']);
    expect(f.sent(rule)).toBe(2);
    const again = await s.call('POST', '/v1/keys', { body: missingIdentity(name), headers: idem });
    expect(again.body.error.code).toBe('identity_not_found');
  });

  it("another request's reservation before the resend: the resend leaves it alone", async () => {
    const f = faults(db);
    const name = unique('release');
    const idem = { 'idempotency-key': name };
    const match = release();
    let key: { pk: string; sk: string } | undefined;
    f.loseAnswerInRetry(match, {
      then: async () => {
        const k = (match.seen[0].input.Key ?? {}) as Record<string, { S: string }>;
        key = { pk: k.pk.S, sk: k.sk.S };
        const taken = await reserveControl(db, {
          callerKeyId: key.pk.slice(3),
          keyHash: key.sk.slice(3),
          fingerprint: 'other',
          owner: 'the-other-request',
          now: s.deps.clock(),
        });
        expect(taken.type).toBe('reserved');
      },
    });
    const res = await s.call('POST', '/v1/keys', { body: missingIdentity(name), headers: idem });
    expect([res.status, res.body.error.code]).toEqual([404, 'identity_not_found']);
    expect(await item(key!.pk, key!.sk)).toMatchObject({ state: 'in_progress', owner: 'the-other-request' });
  });
});

/** A fresh key of the stack's tenant, and its id. */
const freshKey = async (name = unique('k')) => {
  const res = await s.call('POST', '/v1/keys', { body: keyBody(name) });
  return { id: res.body.id as string, secret: res.body.secret as string };
};
const rotation = (keyId: string) =>
  thisRequest((c) => c.command === 'TransactWriteItems' && body(c).includes(`KEY#${keyId}`));

describe('api-keys.store.ts › revokeApiKey', () => {
  it('its answer lost: the SDK resends it, the key is revoked once', async () => {
    const k = await freshKey();
    const f = faults(db);
    const rule = f.loseAnswerInRetry(rotation(k.id));
    const res = await s.call('DELETE', `/v1/keys/${k.id}`);
    expect(res.status).toBe(204);
    expect(f.sent(rule)).toBe(2);
    expect((await item(`KEY#${k.id}`, 'KEY'))?.version).toBe(2);
    expect((await s.call('GET', '/v1/me', { key: k.secret })).body.error.code).toBe('key_revoked');
    expect(await audits('key.revoke', k.id)).toHaveLength(1);
  });

  it('another revoke of the key before the resend: both answer revoked, one revocation audited', async () => {
    const k = await freshKey();
    const f = faults(db);
    let other: Awaited<ReturnType<TestStack['call']>> | undefined;
    f.loseAnswerInRetry(rotation(k.id), {
      then: async () => {
        other = await s.call('DELETE', `/v1/keys/${k.id}`);
      },
    });
    const res = await s.call('DELETE', `/v1/keys/${k.id}`);
    expect([res.status, other?.status]).toEqual([204, 204]);
    expect((await item(`KEY#${k.id}`, 'KEY'))?.version).toBe(2);
    expect(await audits('key.revoke', k.id)).toHaveLength(1);
  });
});

describe('api-keys.store.ts › rotateApiKey', () => {
  it('its answer lost: the SDK resends it, one rotation, the new secret works', async () => {
    const k = await freshKey();
    const f = faults(db);
    const rule = f.loseAnswerInRetry(rotation(k.id));
    const res = await s.call('POST', `/v1/keys/${k.id}/rotate`, { body: { overlap_hours: 1 } });
    expect(res.status).toBe(200);
    expect(f.sent(rule)).toBe(2);
    expect((await item(`KEY#${k.id}`, 'KEY'))?.secrets).toHaveLength(2);
    expect((await s.call('GET', '/v1/me', { key: res.body.secret })).status).toBe(200);
    expect(await audits('key.rotate', k.id)).toHaveLength(1);
  });

  it('the old secret used before the resend: still one rotation, both secrets work', async () => {
    const k = await freshKey();
    const f = faults(db);
    f.loseAnswerInRetry(rotation(k.id), {
      then: () => s.call('GET', '/v1/me', { key: k.secret }),
    });
    const res = await s.call('POST', `/v1/keys/${k.id}/rotate`, { body: { overlap_hours: 1 } });
    expect(res.status).toBe(200);
    const stored = await item(`KEY#${k.id}`, 'KEY');
    expect(stored).toMatchObject({ version: 2 });
    expect(stored?.last_used_at).toBeDefined();
    expect((await s.call('GET', '/v1/me', { key: res.body.secret })).status).toBe(200);
    expect((await s.call('GET', '/v1/me', { key: k.secret })).status).toBe(200);
  });
});

describe('api-keys.store.ts › transactIfCurrent', () => {
  it('its answer lost: the version moves once (the change is not taken for a newer one and redone)', async () => {
    const k = await freshKey();
    const f = faults(db);
    const rule = f.loseAnswerInRetry(rotation(k.id));
    const res = await s.call('POST', `/v1/keys/${k.id}/rotate`, { body: { overlap_hours: 0 } });
    expect(res.status).toBe(200);
    expect(f.sent(rule)).toBe(2);
    expect((await item(`KEY#${k.id}`, 'KEY'))?.version).toBe(2);
  });

  it('another rotation before the resend: two rotations, two versions, this one answered', async () => {
    const k = await freshKey();
    const f = faults(db);
    let other: Awaited<ReturnType<TestStack['call']>> | undefined;
    f.loseAnswerInRetry(rotation(k.id), {
      then: async () => {
        other = await s.call('POST', `/v1/keys/${k.id}/rotate`, { body: { overlap_hours: 1 } });
      },
    });
    const res = await s.call('POST', `/v1/keys/${k.id}/rotate`, { body: { overlap_hours: 1 } });
    expect([res.status, other?.status]).toEqual([200, 200]);
    expect((await item(`KEY#${k.id}`, 'KEY'))?.version).toBe(3);
    expect(await audits('key.rotate', k.id)).toHaveLength(2);
    for (const secret of [res.body.secret, other?.body.secret])
      expect((await s.call('GET', '/v1/me', { key: secret })).status).toBe(200);
  });
});

describe('api-keys.store.ts › secretPut', () => {
  /** The new secret's item in a rotation's transaction: its hash. */
  const newHash = (c: Call) => {
    const put = (c.input.TransactItems as { Put?: { Item: { pk: { S: string } } } }[]).find((t) =>
      t.Put?.Item.pk.S.startsWith('K#'),
    );
    return put!.Put!.Item.pk.S.slice(2);
  };

  it("its answer lost in the rotation: the new secret's item is written once and authenticates", async () => {
    const k = await freshKey();
    const f = faults(db);
    const match = rotation(k.id);
    const rule = f.loseAnswerInRetry(match);
    const res = await s.call('POST', `/v1/keys/${k.id}/rotate`, { body: { overlap_hours: 1 } });
    expect(res.status).toBe(200);
    expect(f.sent(rule)).toBe(2);
    expect(newHash(match.seen[0])).toBe(sha256Hex(res.body.secret));
    expect(await item(`K#${sha256Hex(res.body.secret)}`, 'K')).toMatchObject({ key_id: k.id });
  });

  it('the new secret used before the resend: the resend does not refuse its own secret item', async () => {
    const k = await freshKey();
    const f = faults(db);
    const match = rotation(k.id);
    f.loseAnswerInRetry(match, {
      then: () => touchLastUsed(db, k.id, newHash(match.seen[0]), 5, 0),
    });
    const res = await s.call('POST', `/v1/keys/${k.id}/rotate`, { body: { overlap_hours: 1 } });
    expect(res.status).toBe(200);
    expect(await item(`K#${sha256Hex(res.body.secret)}`, 'K')).toMatchObject({
      key_id: k.id,
      last_used_at: 5,
    });
    expect((await s.call('GET', '/v1/me', { key: res.body.secret })).status).toBe(200);
  });
});

describe('api-keys.store.ts › touchLastUsed', () => {
  const touch = (secret: string) =>
    thisRequest(
      (c) =>
        c.command === 'UpdateItem' &&
        body(c).includes(`K#${sha256Hex(secret)}`) &&
        body(c).includes('last_used_at'),
    );

  it('its answer lost: not sent again, the request is answered, the time is written once', async () => {
    const k = await freshKey();
    const f = faults(db);
    const rule = f.loseAnswerInRetry(touch(k.secret));
    expect((await s.call('GET', '/v1/me', { key: k.secret })).status).toBe(200);
    expect(f.sent(rule)).toBe(1);
    expect((await item(`K#${sha256Hex(k.secret)}`, 'K'))?.last_used_at).toBeGreaterThan(0);
  });

  it("another request's time written before: not sent again, that time stays, the request is answered", async () => {
    const k = await freshKey();
    const f = faults(db);
    const rule = f.loseAnswerInRetry(touch(k.secret), {
      then: () =>
        db.update({
          TableName: db.table,
          Key: { pk: `K#${sha256Hex(k.secret)}`, sk: 'K' },
          UpdateExpression: 'SET last_used_at = :t',
          ExpressionAttributeValues: { ':t': 7 },
        }),
    });
    expect((await s.call('GET', '/v1/me', { key: k.secret })).status).toBe(200);
    expect(f.sent(rule)).toBe(1);
    expect((await item(`K#${sha256Hex(k.secret)}`, 'K'))?.last_used_at).toBe(7);
  });
});

describe('audit-log.store.ts › auditPut: a message action', () => {
  let q: TestStack;
  beforeAll(async () => {
    // No dispatcher: the message stays queued, so it can be canceled.
    q = await stack({ dispatcher: { start: async () => undefined } });
  });
  const cancel = async (opts: { then?: () => Promise<unknown> } = {}) => {
    const sent = await q.send({ to: [q.peer.address], subject: unique('cancel'), text: 'x' });
    expect(sent.status).toBe(202);
    const f = faults(q.deps.db);
    const rule = f.loseAnswerInRetry(
      thisRequest((c) => c.command === 'TransactWriteItems' && body(c).includes('message.cancel')),
      opts,
    );
    const path = `/v1/identities/${q.agent.id}/messages/${sent.body.id}/cancel`;
    return { id: sent.body.id as string, path, f, rule };
  };
  const cancelAudits = async (messageId: string) =>
    (
      await listAuditItems(q.deps.db, q.tenantId, {
        limit: 100,
        action: 'message.cancel',
        targetId: messageId,
      })
    ).items;

  it('its answer lost in the cancel transaction: canceled, audited once', async () => {
    const c = await cancel();
    const res = await q.call('POST', c.path);
    expect([res.status, res.body.status]).toEqual([200, 'canceled']);
    expect(c.f.sent(c.rule)).toBe(2);
    expect(await cancelAudits(c.id)).toHaveLength(1);
  });

  it('another cancel of the message before the resend: this one answers canceled, audited once', async () => {
    let other: Awaited<ReturnType<TestStack['call']>> | undefined;
    let path = '';
    const c = await cancel({
      then: async () => {
        other = await q.call('POST', path);
      },
    });
    path = c.path;
    const res = await q.call('POST', c.path);
    expect([res.status, res.body.status]).toEqual([200, 'canceled']);
    expect(other?.body.error?.code).toBe('not_cancelable');
    expect(await cancelAudits(c.id)).toHaveLength(1);
  });
});

describe('db.ts › transactGuarded', () => {
  const guardPut = (pk: string, v: string) =>
    transactGuarded(db, [
      {
        Put: {
          TableName: db.table,
          Item: { pk, sk: 'G', v },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
    ]);

  it('its answer lost: the SDK resends it, answered written, not refused by its own guard', async () => {
    const pk = unique('lost-guard');
    const f = faults(db);
    const rule = f.loseAnswerInRetry(tx(pk));
    expect(await guardPut(pk, 'mine')).toBe(true);
    expect(f.sent(rule)).toBe(2);
    expect((await item(pk, 'G'))?.v).toBe('mine');
  });

  it("another writer's guarded put before the resend: that one refused, this one written", async () => {
    const pk = unique('lost-guard');
    const f = faults(db);
    let other: boolean | undefined;
    f.loseAnswerInRetry(tx(`"v":{"S":"mine"}`), {
      then: async () => {
        other = await guardPut(pk, 'theirs');
      },
    });
    expect(await guardPut(pk, 'mine')).toBe(true);
    expect(other).toBe(false);
    expect((await item(pk, 'G'))?.v).toBe('mine');
  });
});

describe('db.ts › countUnderLimit', () => {
  const countedCreate = (pk: string, name: string, limit: number) =>
    transactGuarded(db, [
      {
        Put: {
          TableName: db.table,
          Item: { pk, sk: name },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      countUnderLimit(db, { pk, sk: 'COUNT' }, limit, 'test_count'),
    ]);

  it('its answer lost: the SDK resends it, the place is taken once', async () => {
    const pk = unique('lost-count');
    const f = faults(db);
    const rule = f.loseAnswerInRetry(tx(pk));
    expect(await countedCreate(pk, 'a', 1)).toBe(true);
    expect(f.sent(rule)).toBe(2);
    expect((await item(pk, 'COUNT'))?.count).toBe(1);
  });

  it('another create filling the counter before the resend: this one is not refused as full', async () => {
    const pk = unique('lost-count');
    const f = faults(db);
    let other: unknown;
    f.loseAnswerInRetry(tx(`${pk}"},"sk":{"S":"a"`), {
      then: async () => {
        other = await countedCreate(pk, 'b', 1).catch((e) => e.name);
      },
    });
    expect(await countedCreate(pk, 'a', 1)).toBe(true);
    expect(other).toBe('TransactionCanceledException');
    expect((await item(pk, 'COUNT'))?.count).toBe(1);
    expect(await item(pk, 'a')).toBeDefined();
    expect(await item(pk, 'b')).toBeUndefined();
  });
});

describe('db.ts › deleteCounted', () => {
  const create = async (pk: string) => {
    await db.put({ TableName: db.table, Item: { pk, sk: 'X', v: 1 } });
    await db.put({ TableName: db.table, Item: { pk, sk: 'COUNT', count: 1 } });
  };

  it('its answer lost: the SDK resends it, deleted and given back once, answered true', async () => {
    const pk = unique('lost-del');
    await create(pk);
    const f = faults(db);
    const rule = f.loseAnswerInRetry(tx(pk));
    expect(await deleteCounted(db, { pk, sk: 'X' }, { pk, sk: 'COUNT' })).toBe(true);
    expect(f.sent(rule)).toBe(2);
    expect(await item(pk, 'X')).toBeUndefined();
    expect((await item(pk, 'COUNT'))?.count).toBe(0);
  });

  it('the item created again before the resend: the new one stays, counted', async () => {
    const pk = unique('lost-del');
    await create(pk);
    const f = faults(db);
    f.loseAnswerInRetry(tx(pk), {
      then: () =>
        transactGuarded(db, [
          {
            Put: {
              TableName: db.table,
              Item: { pk, sk: 'X', v: 2 },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
          countUnderLimit(db, { pk, sk: 'COUNT' }, 5, 'test_count'),
        ]),
    });
    expect(await deleteCounted(db, { pk, sk: 'X' }, { pk, sk: 'COUNT' })).toBe(true);
    expect((await item(pk, 'X'))?.v).toBe(2);
    expect((await item(pk, 'COUNT'))?.count).toBe(1);
  });
});

describe('directory.store.ts › putNew', () => {
  const address = () => ({
    address: `${unique('claim')}@example.com`,
    identity_id: 'idn_mine',
    tenant_id: s.tenantId,
    domain: 'example.com',
    status: 'active' as const,
  });
  const claim = (a: { address: string }) =>
    thisRequest((c) => c.command === 'PutItem' && body(c).includes(`A#${a.address}`));

  it('its answer lost: the claim is sent again and found to be its own, not taken', async () => {
    const a = address();
    const f = faults(db);
    const rule = f.loseAnswerInRetry(claim(a));
    await putAddress(db, a);
    expect(f.sent(rule)).toBe(2);
    expect(await item(`A#${a.address}`, 'A')).toMatchObject({ identity_id: 'idn_mine' });
  });

  it("another writer's update of the address before the resend: still its own claim", async () => {
    const a = address();
    const f = faults(db);
    f.loseAnswerInRetry(claim(a), {
      then: () =>
        db.update({
          TableName: db.table,
          Key: { pk: `A#${a.address}`, sk: 'A' },
          UpdateExpression: 'SET #s = :s',
          ExpressionAttributeNames: { '#s': 'status' },
          ExpressionAttributeValues: { ':s': 'retiring' },
        }),
    });
    await putAddress(db, a);
    expect(await item(`A#${a.address}`, 'A')).toMatchObject({ identity_id: 'idn_mine', status: 'retiring' });
  });

  it("another claimant's address: taken", async () => {
    const a = address();
    await putAddress(db, { ...a, identity_id: 'idn_theirs' });
    await expect(putAddress(db, a)).rejects.toBeInstanceOf(ItemTaken);
    expect(await item(`A#${a.address}`, 'A')).toMatchObject({ identity_id: 'idn_theirs' });
  });
});

describe('domains.store.ts › createDomain', () => {
  const create = (name: string, key?: string) =>
    s.call('POST', `/v1/tenants/${s.tenantId}/domains`, {
      key,
      body: { name, transport: 'cloudflare', reply_token: 'none' },
    });

  it('its answer lost: the SDK resends it, 201 and one domain, not domain_exists for its own', async () => {
    const name = `${unique('lost')}.example.com`;
    const f = faults(db);
    const rule = f.loseAnswerInRetry(tx(`D#${name}`));
    const res = await create(name);
    expect(res.status).toBe(201);
    expect(f.sent(rule)).toBe(2);
    expect(await item(`D#${name}`, 'D')).toMatchObject({ tenant_id: s.tenantId, id: res.body.id });
  });

  it('another tenant adding the name before the resend: that one domain_exists, this one 201', async () => {
    const name = `${unique('lost')}.example.com`;
    const b = await seedTestTenant(s.deps);
    const f = faults(db);
    let other: Awaited<ReturnType<TestStack['call']>> | undefined;
    f.loseAnswerInRetry(tx(`D#${name}`), {
      then: async () => {
        other = await s.call('POST', `/v1/tenants/${b.tenantId}/domains`, {
          key: b.apiKey,
          body: { name, transport: 'cloudflare' },
        });
      },
    });
    const res = await create(name);
    expect(res.status).toBe(201);
    expect([other?.status, other?.body.error.code]).toEqual([409, 'domain_exists']);
    expect(await item(`D#${name}`, 'D')).toMatchObject({ tenant_id: s.tenantId, id: res.body.id });
  });
});

describe('domains.store.ts › saveDomain', () => {
  const newDomain = async () => {
    const name = `${unique('save')}.example.com`;
    const res = await s.call('POST', `/v1/tenants/${s.tenantId}/domains`, {
      body: { name, transport: 'cloudflare', reply_token: 'none' },
    });
    expect(res.status).toBe(201);
    return { name, path: `/v1/tenants/${s.tenantId}/domains/${res.body.id}` };
  };
  const save = (name: string) =>
    thisRequest((c) => c.command === 'PutItem' && c.sk === 'D' && body(c).includes(`D#${name}`));

  it('its answer lost: the put is sent again and found to be its own, 200 not domain_busy', async () => {
    const d = await newDomain();
    const f = faults(db);
    const rule = f.loseAnswerInRetry(save(d.name));
    const res = await s.call('PATCH', d.path, { body: { reply_token: 'subaddress' } });
    expect([res.status, res.body.reply_token]).toEqual([200, 'subaddress']);
    expect(f.sent(rule)).toBe(2);
    expect((await item(`D#${d.name}`, 'D'))?.reply_token).toBe('subaddress');
  });

  it("another PATCH over it before the resend: the resend finds the other's token and asks for a retry", async () => {
    const d = await newDomain();
    const f = faults(db);
    let other: Awaited<ReturnType<TestStack['call']>> | undefined;
    const match = save(d.name);
    f.loseAnswerInRetry(match, {
      then: async () => {
        other = await s.call('PATCH', d.path, { body: { cloudflare: { account_id: null } } });
      },
    });
    const res = await s.call('PATCH', d.path, { body: { reply_token: 'subaddress' } });
    expect(other?.status).toBe(200);
    // This PATCH landed and the other one was written over it: what is there now is the other's
    // (which kept this one's reply_token); this one is asked to read again.
    expect([res.status, res.body.error.details.reason]).toEqual([503, 'domain_busy']);
    const stored = await item(`D#${d.name}`, 'D');
    expect(stored?.reply_token).toBe('subaddress');
    const ours = (match.seen[0].input.Item as Record<string, { S: string }>)[WRITER].S;
    expect(stored?.[WRITER]).not.toBe(ours);
  });
});
