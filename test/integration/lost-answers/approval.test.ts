import { describe, expect, it } from 'vitest';
import { localDay } from '../../../functions/core/quota.ts';
import { readDailyCounts } from '../../../functions/store/quota.store.ts';
import { type Call, faults } from '../../support/faults.ts';
import { listEvents } from '../../support/feeds.ts';
import { stackPerTest, type TestStack } from '../../support/local.ts';

/**
 * The writes of a person's decision on a pending send (send/approval.ts), each with its answer lost
 * inside the SDK's retry after DynamoDB applied it (docs/lost-answers.md): the decision's
 * transaction (the message with its event and audit entry, through messages.store.ts ›
 * mutateMessage) is resent under its token and answered as the first send; the approval's count is
 * taken as applied, the error goes up and the message stays pending for the approver's retry.
 */
const stack = stackPerTest();

async function pendingStack() {
  const starts: string[] = [];
  const s: TestStack = await stack({
    seed: { identity: { send_policy: { require_approval: true } } },
    dispatcher: {
      start: async (name, input, machine) => {
        starts.push(name);
        await s.machine.start(name, input, machine);
      },
    },
  });
  return { s, starts, f: faults(s.deps.db) };
}

const decide = (s: TestStack, id: string, action: 'approve' | 'reject') =>
  s.call('POST', `/v1/identities/${s.agent.id}/messages/${id}/${action}`);
const counted = async (s: TestStack) =>
  (await readDailyCounts(s.deps.db, s.tenantId, s.agent.id, localDay(Date.now(), 'UTC'))).identity;
const eventsOf = async (s: TestStack, id: string) =>
  (await listEvents(s.deps.db, s.tenantId, { limit: 100 })).data
    .filter((e) => e.data.message_id === id)
    .map((e) => e.type);
const decision = (type: string) => (c: Call) =>
  c.command === 'TransactWriteItems' && JSON.stringify(c.input).includes(`"${type}"`);

describe('send/approval.ts › approveSend and rejectSend (messages.store.ts › mutateMessage with the decision’s event)', () => {
  it('an approve whose transaction answer is lost is written once: 200, one execution, one email, counted once', async () => {
    const { s, starts, f } = await pendingStack();
    const id = (await s.send({ to: [s.peer.address], subject: 'Lost approve', text: 'x' })).body.id;
    const rule = f.loseAnswerInRetry(decision('message.approved'));
    const res = await decide(s, id, 'approve');
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('queued');
    expect(f.sent(rule)).toBe(2);
    await s.settle();
    expect(starts.filter((n) => n.startsWith(id))).toEqual([`${id}-d1`]);
    expect((await s.mailbox(s.peer.id, 'inbound')).length).toBe(1);
    expect(await counted(s)).toBe(1);
    expect((await eventsOf(s, id)).filter((t) => t === 'message.approved')).toHaveLength(1);
  });

  it('a reject whose transaction answer is lost answers 200 canceled, never 409 for its own write', async () => {
    const { s, f } = await pendingStack();
    const id = (await s.send({ to: [s.peer.address], subject: 'Lost reject', text: 'x' })).body.id;
    const rule = f.loseAnswerInRetry(decision('message.rejected'));
    const res = await decide(s, id, 'reject');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'canceled', status_reason: 'rejected_by_reviewer' });
    expect(f.sent(rule)).toBe(2);
    expect((await eventsOf(s, id)).filter((t) => t === 'message.rejected')).toHaveLength(1);
  });

  it('an approval count whose answer is lost goes up as 503; the message stays pending, and the retry sends once', async () => {
    const { s, starts, f } = await pendingStack();
    const id = (await s.send({ to: [s.peer.address], subject: 'Lost count', text: 'x' })).body.id;
    f.loseAnswerInRetry((c) => c.command === 'UpdateItem' && c.sk.startsWith('Q#'));
    const lost = await decide(s, id, 'approve');
    expect(lost.status).toBe(503);
    expect((await s.message(s.agent.id, id))!.status).toBe('pending_approval');
    expect(starts.filter((n) => n.startsWith(id))).toEqual([]);
    const retried = await decide(s, id, 'approve');
    expect(retried.status).toBe(200);
    await s.settle();
    expect(starts.filter((n) => n.startsWith(id))).toEqual([`${id}-d1`]);
    expect((await s.mailbox(s.peer.id, 'inbound')).length).toBe(1);
    // The lost count is kept (it errs towards refusing): at most one send too many on the day.
    expect(await counted(s)).toBeGreaterThanOrEqual(1);
    expect(await counted(s)).toBeLessThanOrEqual(2);
  });
});
