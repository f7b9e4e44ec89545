import { describe, expect, it } from 'vitest';
import { faults, writes } from '../../support/faults.ts';
import { stackPerTest, type TestStack } from '../../support/local.ts';

/**
 * The thread list's summary under a lost answer (docs/lost-answers.md › Idempotent update): the
 * update has no condition and is sent again after a lost answer; adding a message id twice to a
 * string set counts it once.
 */
const stack = stackPerTest();

const threadItem = async (s: TestStack, identityId: string, threadId: string) =>
  (
    await s.deps.db.get({
      TableName: s.deps.db.table,
      Key: { pk: `I#${identityId}`, sk: `TH#${threadId}` },
      ConsistentRead: true,
    })
  ).Item;

describe('thread-list.store.ts › noteThreadMessage: a lost answer sent again counts the message once', () => {
  it('a send whose thread summary answer is lost: one message in the thread, listed once', async () => {
    const s = await stack();
    const f = faults(s.deps.db);
    const rule = f.loseAnswerInRetry(writes.threadNote);
    const sent = await s.send({ to: [s.peer.address], subject: 'Summary', text: 'the body' });
    expect(sent.status).toBe(202);
    await s.settle();
    // The update was sent again after the lost answer.
    expect(f.sent(rule)).toBeGreaterThanOrEqual(2);
    const item = await threadItem(s, s.agent.id, sent.body.thread_id);
    expect([...(item?.message_ids ?? [])]).toEqual([sent.body.id]);
    const list = await s.call('GET', `/v1/identities/${s.agent.id}/threads`);
    expect(list.body.data.map((t: { id: string; message_count: number }) => [t.id, t.message_count])).toEqual(
      [[sent.body.thread_id, 1]],
    );
  });
});
