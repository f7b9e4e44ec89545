import { GetCommand, PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Db, isOutcomeUnknown, putOnce, WRITER } from '../../../functions/store/db.ts';
import { type Call, faults } from '../../support/faults.ts';
import { testStack } from '../../support/local.ts';

/**
 * The store's rule for lost answers (docs/lost-answers.md), at the client: the SDK never sends a
 * single-item write twice, keeps resending reads, and resends transactions, which DynamoDB applies
 * once by their ClientRequestToken. The answer is lost *inside* the SDK's retry, where a socket
 * timeout happens, after DynamoDB applied the request.
 */
let db: Db;
beforeAll(async () => {
  db = (await testStack()).deps.db;
});

const on = (command: string, sk: string) => (c: Call) => c.command === command && c.sk === sk;
const item = async (pk: string, sk: string) =>
  (await db.doc.send(new GetCommand({ TableName: db.table, Key: { pk, sk }, ConsistentRead: true }))).Item;

describe('the SDK resends no single-item write whose answer was lost', () => {
  it('a conditional put applied once: the caller gets WriteOutcomeUnknown, the SDK sent it once', async () => {
    const f = faults(db);
    const rule = f.loseAnswerInRetry(on('PutItem', 'put-1'));
    const err = await db.doc
      .send(
        new PutCommand({
          TableName: db.table,
          Item: { pk: 'lost', sk: 'put-1', n: 1 },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      )
      .catch((e) => e);
    expect(isOutcomeUnknown(err)).toBe(true);
    expect(f.sent(rule)).toBe(1);
    expect(await item('lost', 'put-1')).toMatchObject({ n: 1 });
  });

  it('an unconditional ADD is not counted twice', async () => {
    const f = faults(db);
    const rule = f.loseAnswerInRetry(on('UpdateItem', 'add-1'));
    const err = await db.doc
      .send(
        new UpdateCommand({
          TableName: db.table,
          Key: { pk: 'lost', sk: 'add-1' },
          UpdateExpression: 'ADD n :one',
          ExpressionAttributeValues: { ':one': 1 },
        }),
      )
      .catch((e) => e);
    expect(isOutcomeUnknown(err)).toBe(true);
    expect(f.sent(rule)).toBe(1);
    expect((await item('lost', 'add-1'))?.n).toBe(1);
  });

  it('a read is resent by the SDK and answers', async () => {
    await db.doc.send(new PutCommand({ TableName: db.table, Item: { pk: 'lost', sk: 'read-1', n: 7 } }));
    const f = faults(db);
    const rule = f.loseAnswerInRetry(on('GetItem', 'read-1'));
    expect((await item('lost', 'read-1'))?.n).toBe(7);
    expect(f.sent(rule)).toBe(2);
  });

  it('a transaction is resent by the SDK and applied once (its ClientRequestToken)', async () => {
    const f = faults(db);
    const rule = f.loseAnswerInRetry((c) => c.command === 'TransactWriteItems');
    await db.doc.send(
      new TransactWriteCommand({
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
      }),
    );
    expect(f.sent(rule)).toBe(2);
    expect((await item('lost', 'tx-1'))?.n).toBe(1);
  });

  it('a definite refusal (a 4xx) stays what it is', async () => {
    const f = faults(db);
    f.loseAnswerInRetry(on('PutItem', 'never'));
    const err = await db.doc
      .send(new PutCommand({ TableName: db.table, Item: { pk: 'lost', sk: 'x', big: 'a'.repeat(500_000) } }))
      .catch((e) => e);
    expect(err.name).toBe('ValidationException');
  });

  it('a client with no fault keeps the SDK default of three attempts for reads', async () => {
    const own = createDb({ table: db.table, endpoint: 'http://127.0.0.1:9' });
    expect(await own.doc.config.maxAttempts()).toBe(3);
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
        db.doc.send(
          new UpdateCommand({
            TableName: db.table,
            Key: { pk: 'lost', sk: 'create-2' },
            UpdateExpression: 'SET claimed = :t',
            ExpressionAttributeValues: { ':t': true },
          }),
        ),
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
