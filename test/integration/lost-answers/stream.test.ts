import { beforeAll, describe, expect, it } from 'vitest';
import {
  advanceCursor,
  createTicket,
  dropConnection,
  getConnection,
  leaseCursor,
  openConnection,
  redeemTicket,
  type StreamConnection,
  type StreamCursor,
  streamsOf,
} from '../../../functions/store/stream.store.ts';
import { faults } from '../../support/faults.ts';
import { stackPerTest, type TestStack } from '../../support/local.ts';

/**
 * The event stream's writes (store/stream.store.ts, docs/lost-answers.md) with their answers lost
 * inside the table client's retry, after DynamoDB applied them, while another writer runs: a
 * connection's record and its place on the count, its removal, the fan-out's cursor (its lease, the positions), and a
 * ticket's creation and use. Each test has a tenant id of its own.
 */
const stack = stackPerTest();
let s: TestStack;
beforeAll(async () => {
  s = await stack();
});

// biome-ignore lint/suspicious/noThenProperty: the fault rule's step after the loss (test/support/faults.ts)
const meanwhile = (write: () => Promise<unknown>) => ({ then: write });
const T = 1_800_000_000_000;

function tenant() {
  const tenantId = `ten_${s.deps.newId()}`;
  const conn = (id: string, extra: Partial<StreamConnection> = {}): StreamConnection => ({
    tenant_id: tenantId,
    connection_id: id,
    gateway: 'lost-answers',
    key_id: 'key_x',
    key_hash: 'h',
    filter: {},
    position: 0,
    connected_at: T,
    counted: false,
    ...extra,
  });
  const count = async () =>
    Number(
      (
        await s.deps.db.get({
          TableName: s.deps.db.table,
          Key: { pk: `WS#${tenantId}`, sk: 'N' },
          ConsistentRead: true,
        })
      ).Item?.count ?? 0,
    );
  return { tenantId, conn, count };
}

describe('stream.store.ts › openConnection: a connection takes its place on the count once', () => {
  it('its transaction’s answer lost in the retry while another connects: resent by its token, counted once, the other refused at the limit', async () => {
    const t = tenant();
    await openConnection(s.deps.db, t.conn('a'), 2);
    const f = faults(s.deps.db);
    let other: StreamConnection | undefined;
    const rule = f.loseAnswerInRetry(
      (c) => c.command === 'TransactWriteItems' && JSON.stringify(c.input).includes('C#b'),
      meanwhile(async () => {
        other = await openConnection(s.deps.db, t.conn('c'), 2);
      }),
    );
    const mine = await openConnection(s.deps.db, t.conn('b'), 2);
    expect(f.sent(rule)).toBe(2);
    expect(mine).toMatchObject({ counted: true });
    expect(mine.refused).toBeUndefined();
    expect(other).toMatchObject({ counted: false, refused: 'connection_limit' });
    expect(await t.count()).toBe(2);
  });
});

describe('stream.store.ts › dropConnection: a place is given back once', () => {
  it('its answer lost in the retry: resent by its token, the count down by one', async () => {
    const t = tenant();
    await openConnection(s.deps.db, t.conn('a'), 5);
    await openConnection(s.deps.db, t.conn('b'), 5);
    const f = faults(s.deps.db);
    const rule = f.loseAnswerInRetry(
      (c) => c.command === 'TransactWriteItems' && JSON.stringify(c.input).includes('C#a'),
      meanwhile(() => openConnection(s.deps.db, t.conn('c'), 5)),
    );
    expect(await dropConnection(s.deps.db, t.tenantId, 'a')).toBe(true);
    expect(f.sent(rule)).toBe(2);
    expect(await t.count()).toBe(2);
    expect(await getConnection(s.deps.db, t.tenantId, 'a')).toBeUndefined();
  });
});

const G = 'lost-answers';
const lease = (token: string, now = T) => ({ token, now, leaseMs: 15_000 });

describe('stream.store.ts › leaseCursor: a fan-out recognises its own lease', () => {
  it('its answer lost in the retry while another fan-out asks: the re-read finds its token, the other is refused', async () => {
    const t = tenant();
    const f = faults(s.deps.db);
    let other: StreamCursor | undefined | 'unset' = 'unset';
    const rule = f.loseAnswerInRetry(
      (c) => c.command === 'UpdateItem' && c.sk === `G#${G}` && JSON.stringify(c.input).includes('mine'),
      meanwhile(async () => {
        other = await leaseCursor(s.deps.db, t.tenantId, G, lease('theirs'));
      }),
    );
    const held = await leaseCursor(s.deps.db, t.tenantId, G, lease('mine'));
    expect(f.sent(rule)).toBe(1);
    expect(held).toMatchObject({ lease: 'mine', lease_until: T + 15_000, at: {} });
    expect(other).toBeUndefined();
  });
});

describe('stream.store.ts › advanceCursor: positions move once, by the lease’s holder', () => {
  const marks = { a: { p: 7, e: 'evt_7' }, b: { p: 5 } };

  it('its answer lost in the retry: the re-read finds it written, true, not sent again', async () => {
    const t = tenant();
    await leaseCursor(s.deps.db, t.tenantId, G, lease('mine'));
    const f = faults(s.deps.db);
    const rule = f.loseAnswerInRetry(
      (c) => c.command === 'UpdateItem' && c.sk === `G#${G}` && JSON.stringify(c.input).includes('evt_7'),
      meanwhile(() => leaseCursor(s.deps.db, t.tenantId, G, lease('theirs', T + 1))),
    );
    const to = { at: marks, leaseUntil: T + 30_000 };
    expect(await advanceCursor(s.deps.db, t.tenantId, G, 'mine', to)).toBe(true);
    expect(f.sent(rule)).toBe(1);
    expect((await streamsOf(s.deps.db, t.tenantId, G)).cursor).toMatchObject({ at: marks, lease: 'mine' });
  });

  it('released, its answer lost while another fan-out takes the lease: false (stop), the positions its own, the lease theirs', async () => {
    const t = tenant();
    await leaseCursor(s.deps.db, t.tenantId, G, lease('mine'));
    const f = faults(s.deps.db);
    f.loseAnswerInRetry(
      (c) => c.command === 'UpdateItem' && c.sk === `G#${G}` && JSON.stringify(c.input).includes('evt_7'),
      meanwhile(() => leaseCursor(s.deps.db, t.tenantId, G, lease('theirs', T + 1))),
    );
    expect(await advanceCursor(s.deps.db, t.tenantId, G, 'mine', { at: marks, leaseUntil: 0 })).toBe(false);
    const { cursor } = await streamsOf(s.deps.db, t.tenantId, G);
    expect(cursor).toMatchObject({ at: marks, lease: 'theirs' });
  });
});

describe('stream.store.ts › createTicket and stream.store.ts › redeemTicket: a ticket is stored once and used once', () => {
  const ticket = (tenantId: string) => ({
    tenant_id: tenantId,
    key_id: 'key_x',
    key_hash: 'h',
    filter: {},
    created_at: T,
    expires_at: T + 60_000,
  });

  it('a create’s answer lost in the retry: resent, its own item found, written', async () => {
    const t = tenant();
    const f = faults(s.deps.db);
    const rule = f.loseAnswerInRetry(
      (c) => c.command === 'PutItem' && JSON.stringify(c.input).includes(t.tenantId),
    );
    await createTicket(s.deps.db, `hash-${t.tenantId}`, ticket(t.tenantId));
    expect(f.sent(rule)).toBe(2);
  });

  it('a use’s answer lost in the retry while another connection tries it: the resend is its own, the other refused', async () => {
    const t = tenant();
    const hash = `hash-${t.tenantId}`;
    await createTicket(s.deps.db, hash, ticket(t.tenantId));
    const f = faults(s.deps.db);
    let other: unknown;
    const rule = f.loseAnswerInRetry(
      (c) => c.command === 'UpdateItem' && JSON.stringify(c.input).includes('conn-mine'),
      meanwhile(async () => {
        other = await redeemTicket(s.deps.db, hash, 'conn-theirs', T + 1);
      }),
    );
    expect(await redeemTicket(s.deps.db, hash, 'conn-mine', T + 1)).toMatchObject({ used_by: 'conn-mine' });
    expect(f.sent(rule)).toBe(2);
    expect(other).toBe('used');
    expect(await redeemTicket(s.deps.db, hash, 'conn-late', T + 2)).toBe('used');
    expect(await redeemTicket(s.deps.db, `${hash}-x`, 'conn-late', T + 2)).toBe('unknown');
    await createTicket(s.deps.db, `${hash}-y`, ticket(t.tenantId));
    expect(await redeemTicket(s.deps.db, `${hash}-y`, 'conn-late', T + 60_001)).toBe('expired');
  });
});
