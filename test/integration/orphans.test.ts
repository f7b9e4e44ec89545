import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attachmentLinkKey, linkBlobMetadata } from '../../functions/core/links.ts';
import { ORPHAN_GRACE_MS, ORPHAN_WINDOW_MS } from '../../functions/core/orphans.ts';
import { searchShard } from '../../functions/core/search-text.ts';
import { viewAs } from '../../functions/local/aws-calls.ts';
import type { DbOperation, DbOutput } from '../../functions/store/db.ts';
import { hooksOf } from '../../functions/store/dynamodb.ts';
import { sweepOrphans } from '../../functions/sweeper/orphans.ts';
import { type TestStack, testStack } from '../support/local.ts';

// Orphaned objects (docs/design/decisions.md › Orphaned objects): a submit whose commit never happened leaves its .eml
// (and link objects) behind; the daily orphan pass deletes them once they are past the grace, and
// never an object whose message exists, is still young, or could not be checked.
const START = Date.UTC(2026, 10, 2, 9, 0, 0);
let now = START;
let s: TestStack;

beforeAll(async () => {
  s = await testStack({ clock: () => now });
});
afterAll(async () => {
  await s.close();
});

const prefix = () => `t/${s.tenantId}/i/${s.agent.id}/out/`;
async function outbound(): Promise<string[]> {
  const keys: string[] = [];
  for await (const k of s.deps.blobs.list(prefix())) keys.push(k);
  return keys;
}
const pass = () => sweepOrphans(viewAs(s.deps, 'orphans'), { tenantIds: [s.tenantId] });

type Input = Record<string, unknown>;

/** Run `fn` with the table's answers to one kind of call replaced (the fault), then restore them. */
async function withFault<T>(
  match: (operation: DbOperation, input: Input) => boolean,
  answer: (input: Input, real: () => Promise<DbOutput>) => Promise<DbOutput>,
  fn: () => Promise<T>,
): Promise<T> {
  const remove = hooksOf(s.deps.db).aroundCall((operation, input, next) =>
    match(operation, input) ? answer(input, next) : next(),
  );
  try {
    return await fn();
  } finally {
    remove();
  }
}

/** A send whose commit is lost (the message's put, the commit point, fails before DynamoDB applies it): its objects stay. */
async function crashedSend(): Promise<string> {
  const before = new Set(await outbound());
  const res = await withFault(
    (operation, input) =>
      operation === 'TransactWriteItems' &&
      String((input.TransactItems as { Put?: { Item?: Input } }[])[0]?.Put?.Item?.sk).startsWith('M#'),
    async () => {
      throw Object.assign(new Error('socket hang up'), { name: 'TimeoutError' });
    },
    () => s.send({ to: ['delivered@simulator.invalid'], subject: 'lost', text: 'never committed' }),
  );
  expect(res.status).toBeGreaterThanOrEqual(500);
  const eml = (await outbound()).find((k) => !before.has(k) && k.endsWith('.eml'));
  expect(eml).toBeDefined();
  const messageId = eml!.slice(prefix().length, -'.eml'.length);
  expect(await s.message(s.agent.id, messageId)).toBeUndefined();
  return messageId;
}

/** A message's search document (store/search.store.ts), read consistently. */
const searchDoc = async (messageId: string) =>
  (
    await s.deps.db.get({
      TableName: s.deps.db.table,
      Key: { pk: `I#${s.agent.id}#Q#${searchShard(messageId)}`, sk: messageId },
      ConsistentRead: true,
    })
  ).Item;

describe('the orphan pass', () => {
  it('deletes the objects of a submit that never committed, past the grace, and keeps every committed message’s', async () => {
    const sent = await s.send({ to: ['delivered@simulator.invalid'], subject: 'kept', text: 'committed' });
    expect(sent.status).toBe(202);
    await s.settle();
    const orphan = await crashedSend();
    // A link object of the same submit (written before the .eml, under the message's prefix).
    const link = attachmentLinkKey(s.tenantId, s.agent.id, orphan, `att_${s.deps.newId()}`);
    await s.deps.blobs.put(link, new Uint8Array([1, 2, 3]), linkBlobMetadata('a.pdf', 'application/pdf'));

    // Young: the commit could still be running.
    expect((await pass()).deleted).toBe(0);
    expect(await searchDoc(orphan)).toBeDefined();
    expect(await outbound()).toEqual(expect.arrayContaining([`${prefix()}${orphan}.eml`, link]));

    now += ORPHAN_GRACE_MS + 60_000;
    const report = await pass();
    expect(report.deleted).toBe(2);
    const left = await outbound();
    expect(left).not.toContain(`${prefix()}${orphan}.eml`);
    expect(left).not.toContain(link);
    expect(left).toContain(`${prefix()}${sent.body.id}.eml`);
    expect((await s.message(s.agent.id, sent.body.id))?.status).toBeDefined();
    // The orphan's search document leaves with its objects; the committed message's stays.
    expect(await searchDoc(orphan)).toBeUndefined();
    expect(await searchDoc(sent.body.id)).toBeDefined();
  });

  it('deletes nothing it could not check (the table leaves the keys unprocessed)', async () => {
    const orphan = await crashedSend();
    now += ORPHAN_GRACE_MS + 60_000;
    const report = await withFault(
      (operation, input) => operation === 'BatchGetItem' && JSON.stringify(input).includes('"M#'),
      async (input) => ({
        Responses: {},
        UnprocessedKeys: {
          [s.deps.db.table]: (input.RequestItems as Record<string, unknown>)[s.deps.db.table],
        },
      }),
      pass,
    );
    expect(report.deleted).toBe(0);
    expect(await outbound()).toContain(`${prefix()}${orphan}.eml`);
    // Answered again, the pass deletes it.
    expect((await pass()).deleted).toBe(1);
  });

  it('lists only the window: an object older than two days is not looked at again', async () => {
    const orphan = await crashedSend();
    now += ORPHAN_WINDOW_MS + 60_000;
    const report = await pass();
    expect(report.deleted).toBe(0);
    expect(await outbound()).toContain(`${prefix()}${orphan}.eml`);
  });
});
