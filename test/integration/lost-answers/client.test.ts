import { beforeAll, describe, expect, it } from 'vitest';
import { type Db, isOutcomeUnknown, putOnce, WRITER } from '../../../functions/store/db.ts';
import { createDb, hooksOf } from '../../../functions/store/dynamodb.ts';
import { type Call, faults } from '../../support/faults.ts';
import { testStack } from '../../support/local.ts';

/**
 * The store's rule for lost answers (docs/lost-answers.md), at the table's client
 * (store/dynamodb.ts): its retry policy never sends a single-item write twice, keeps resending
 * reads, and resends transactions, which DynamoDB applies once by their ClientRequestToken. The
 * answer is lost *inside* the retry policy, where a socket timeout happens, after DynamoDB applied
 * the request.
 */
let db: Db;
beforeAll(async () => {
  db = (await testStack()).deps.db;
});

const on = (command: string, sk: string) => (c: Call) => c.command === command && c.sk === sk;
const item = async (pk: string, sk: string) =>
  (await db.get({ TableName: db.table, Key: { pk, sk }, ConsistentRead: true })).Item;

describe('the retry policy resends no single-item write whose answer was lost', () => {
  it('a conditional put applied once: the caller gets WriteOutcomeUnknown, it was sent once', async () => {
    const f = faults(db);
    const rule = f.loseAnswerInRetry(on('PutItem', 'put-1'));
    const err = await db
      .put({
        TableName: db.table,
        Item: { pk: 'lost', sk: 'put-1', n: 1 },
        ConditionExpression: 'attribute_not_exists(pk)',
      })
      .catch((e) => e);
    expect(isOutcomeUnknown(err)).toBe(true);
    expect(f.sent(rule)).toBe(1);
    expect(await item('lost', 'put-1')).toMatchObject({ n: 1 });
  });

  it('an unconditional ADD is not counted twice', async () => {
    const f = faults(db);
    const rule = f.loseAnswerInRetry(on('UpdateItem', 'add-1'));
    const err = await db
      .update({
        TableName: db.table,
        Key: { pk: 'lost', sk: 'add-1' },
        UpdateExpression: 'ADD n :one',
        ExpressionAttributeValues: { ':one': 1 },
      })
      .catch((e) => e);
    expect(isOutcomeUnknown(err)).toBe(true);
    expect(f.sent(rule)).toBe(1);
    expect((await item('lost', 'add-1'))?.n).toBe(1);
  });

  it('a read is resent and answers', async () => {
    await db.put({ TableName: db.table, Item: { pk: 'lost', sk: 'read-1', n: 7 } });
    const f = faults(db);
    const rule = f.loseAnswerInRetry(on('GetItem', 'read-1'));
    expect((await item('lost', 'read-1'))?.n).toBe(7);
    expect(f.sent(rule)).toBe(2);
  });

  it('a transaction is resent and applied once (its ClientRequestToken)', async () => {
    const f = faults(db);
    const rule = f.loseAnswerInRetry((c) => c.command === 'TransactWriteItems');
    await db.transact({
      TransactItems: [
        {
          Update: {
            TableName: db.table,
            Key: { pk: 'lost', sk: 'tx-1' },
            UpdateExpression: 'ADD n :one',
            ConditionExpression: 'attribute_not_exists(n) OR n < :ten',
            ExpressionAttributeValues: { ':one': 1, ':ten': 10 },
          },
        },
      ],
    });
    expect(f.sent(rule)).toBe(2);
    expect((await item('lost', 'tx-1'))?.n).toBe(1);
  });

  it('a definite refusal (a 4xx) stays what it is', async () => {
    const f = faults(db);
    f.loseAnswerInRetry(on('PutItem', 'never'));
    const err = await db
      .put({ TableName: db.table, Item: { pk: 'lost', sk: 'x', big: 'a'.repeat(500_000) } })
      .catch((e) => e);
    expect(err.name).toBe('ValidationException');
  });

  it('a client with no fault sends a read three times at most when nothing answers', async () => {
    const own = createDb({ table: db.table, endpoint: 'http://127.0.0.1:9' });
    let sends = 0;
    hooksOf(own).aroundAttempt((_operation, _request, next) => {
      sends++;
      return next();
    });
    const err = await own.get({ TableName: db.table, Key: { pk: 'x', sk: 'y' } }).catch((e) => e);
    expect(err.code).toBe('ECONNREFUSED');
    expect(sends).toBe(3);
  });
});

describe('db.ts › putOnce: a create recognises its own earlier send', () => {
  it('its answer lost: it sends again, finds its own token, answers written; one item', async () => {
    const f = faults(db);
    const rule = f.loseAnswerInRetry(on('PutItem', 'create-1'));
    const out = await putOnce(db, { Item: { pk: 'lost', sk: 'create-1', v: 'mine' } });
    expect(out.written).toBe(true);
    expect(f.sent(rule)).toBe(2);
    const stored = await item('lost', 'create-1');
    expect(stored?.v).toBe('mine');
    expect(stored?.[WRITER]).toBe(out.written && out.token);
  });

  it('its answer lost and another writer updating the item before the resend: still its own', async () => {
    const f = faults(db);
    f.loseAnswerInRetry(on('PutItem', 'create-2'), {
      // biome-ignore lint/suspicious/noThenProperty: the fault helper's option (test/support/faults.ts)
      then: () =>
        db.update({
          TableName: db.table,
          Key: { pk: 'lost', sk: 'create-2' },
          UpdateExpression: 'SET claimed = :t',
          ExpressionAttributeValues: { ':t': true },
        }),
    });
    const out = await putOnce(db, { Item: { pk: 'lost', sk: 'create-2', v: 'mine' } });
    expect(out.written).toBe(true);
    expect(await item('lost', 'create-2')).toMatchObject({ v: 'mine', claimed: true });
  });

  it("another writer's item: not written, that item answered", async () => {
    await putOnce(db, { Item: { pk: 'lost', sk: 'create-3', v: 'theirs' } });
    const out = await putOnce(db, { Item: { pk: 'lost', sk: 'create-3', v: 'mine' } });
    expect(out).toMatchObject({ written: false, old: { v: 'theirs' } });
  });
});
