import { beforeAll, describe, expect, it } from 'vitest';
import { changeMessageLabels } from '../../../functions/labels/change-labels.ts';
import { getLabels } from '../../../functions/store/labels.store.ts';
import { type Call, faults } from '../../support/faults.ts';
import { listEvents, receivedRecord, storeMessage } from '../../support/feeds.ts';
import { stackPerTest, type TestStack } from '../../support/local.ts';

/**
 * The labels item's write (store/labels.store.ts › putLabels, docs/lost-answers.md) with its
 * answer lost, on DynamoDB Local: each test labels a message of an identity of its own.
 */
const stack = stackPerTest();
let s: TestStack;
beforeAll(async () => {
  s = await stack();
});

// biome-ignore lint/suspicious/noThenProperty: the fault rule's step after the loss (test/support/faults.ts)
const meanwhile = (write: () => Promise<unknown>) => ({ then: write });
const TENANT_KEY = { scopes: ['messages:read', 'messages:write'] };

async function message() {
  const identityId = `idn_${s.deps.newId()}`;
  const m = receivedRecord({
    id: `msg_${s.deps.newId()}`,
    tenantId: s.tenantId,
    identityId,
    subject: 'labelled',
    at: Date.now(),
  });
  await storeMessage(s.deps.db, m, Date.now());
  const label = (add: string[]) =>
    changeMessageLabels(s.deps, {
      identityId,
      tenantId: s.tenantId,
      messageId: m.id,
      key: TENANT_KEY,
      change: { add, remove: [] },
    });
  const labelWrite = (c: Call) =>
    c.command === 'TransactWriteItems' && JSON.stringify(c.input).includes(`LB#${m.id}`);
  const labeled = async () =>
    (await listEvents(s.deps.db, s.tenantId, { limit: 1000 })).data.filter(
      (e) => e.type === 'message.labeled' && e.data.message_id === m.id,
    );
  return { identityId, m, label, labelWrite, labeled };
}

describe('labels.store.ts › putLabels: a change of labels with its event', () => {
  it('its answer lost in the retry after another change committed: resent by its token, both kept, one event each', async () => {
    const q = await message();
    const f = faults(s.deps.db);
    const rule = f.loseAnswerInRetry(
      q.labelWrite,
      meanwhile(() => q.label(['b'])),
    );
    expect(await q.label(['a'])).toEqual(['a']);
    // Its send, the other change's, and its resend by the table's client.
    expect(f.sent(rule)).toBe(3);
    expect((await getLabels(s.deps.db, { identityId: q.identityId, id: q.m.id }, true))?.labels).toEqual([
      'a',
      'b',
    ]);
    const events = await q.labeled();
    expect(events.map((e) => e.data.added)).toEqual([['a'], ['b']]);
  });

  it('its answer lost past the resends: the caller sees the error; the retried change answers the labels and emits nothing more', async () => {
    const q = await message();
    const f = faults(s.deps.db);
    f.loseAnswer(q.labelWrite);
    await expect(q.label(['x'])).rejects.toThrow();
    expect(await q.label(['x'])).toEqual(['x']);
    expect((await q.labeled()).map((e) => e.data.added)).toEqual([['x']]);
  });
});
