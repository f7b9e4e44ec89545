import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MessageRecord } from '../../functions/core/model.ts';
import { receivedEvent } from '../../functions/inbound/inbound-record.ts';
import { storeInbound } from '../../functions/store/inbound.store.ts';
import { receivedRecord } from '../support/feeds.ts';
import { type TestStack, testStack } from '../support/local.ts';

/**
 * The filters of GET …/messages and GET …/threads through the HTTP API on DynamoDB Local
 * (docs/design/search.md › Filters): received messages stored as the ingest stores them, with
 * their times set, labelled through the API, then listed by filter combinations and paged.
 */
let s: TestStack;
const T = Date.parse('2026-03-01T12:00:00Z');
const DAY = 86_400_000;
const ids: Record<string, MessageRecord> = {};

async function received(name: string, o: { from: string; subject: string; at: number }) {
  const id = `msg_${(await import('ulid')).ulid(o.at).toLowerCase()}`;
  const m: MessageRecord = {
    ...receivedRecord({ id, tenantId: s.tenantId, identityId: s.agent.id, subject: o.subject, at: o.at }),
    from: { address: o.from },
  };
  expect(
    await storeInbound(s.deps.db, {
      message: m,
      dedupeKey: `key-${m.id}`,
      event: receivedEvent(m, o.at),
      routedTo: 'agent@example.test',
      snippet: '',
      now: o.at,
    }),
  ).toBe('stored');
  ids[name] = m;
}

beforeAll(async () => {
  s = await testStack();
  await received('invoice', { from: 'billing@Brightwell.example', subject: 'Your Invoice #42', at: T });
  await received('late', { from: 'billing@brightwell.example', subject: 'Invoice overdue', at: T + 2 * DAY });
  await received('café', { from: 'ana@cafe.example', subject: 'Le café est prêt', at: T + DAY });
  await received('other', { from: 'ops@other.example', subject: 'Status', at: T + 3 * DAY });
  for (const name of ['invoice', 'café'])
    expect(
      (
        await s.call('POST', `/v1/identities/${s.agent.id}/messages/${ids[name]!.id}/labels`, {
          body: { add: ['needs-reply'] },
        })
      ).status,
    ).toBe(200);
  expect(
    (
      await s.call('POST', `/v1/identities/${s.agent.id}/threads/${ids.late!.thread_id}/labels`, {
        body: { add: ['escalated'] },
      })
    ).status,
  ).toBe(200);
}, 60_000);

afterAll(async () => {
  await s?.settle();
  await s?.close();
});

const list = async (query: Record<string, string>) => {
  const r = await s.call('GET', `/v1/identities/${s.agent.id}/messages`, { query });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body as { data: { id: string }[]; next_cursor: string | null };
};
const names = (page: { data: { id: string }[] }) =>
  page.data.map((m) => Object.keys(ids).find((n) => ids[n]!.id === m.id));

describe('GET …/messages with filters', () => {
  it.each([
    [{ label: 'needs-reply' }, ['café', 'invoice']],
    [{ from: 'brightwell.example' }, ['late', 'invoice']],
    [{ from: 'BILLING@brightwell.example', subject: 'invoice' }, ['late', 'invoice']],
    [{ from: 'brightwell.example', label: 'needs-reply' }, ['invoice']],
    [{ subject: 'CAFE' }, ['café']],
    [{ to: 'agent@example.test', since: '2026-03-02T00:00:00Z' }, ['other', 'late', 'café']],
    [{ since: '2026-03-02T00:00:00Z', until: '2026-03-03T23:00:00Z' }, ['late', 'café']],
    [{ direction: 'inbound', has_attachment: 'false', until: '2026-03-01T13:00:00Z' }, ['invoice']],
    [{ has_attachment: 'true' }, []],
    [{ direction: 'outbound', from: 'brightwell.example' }, []],
  ])('%j → %j, newest first', async (query, expected) => {
    expect(names(await list({ ...query, limit: '100' }))).toEqual(expected);
  });

  it('pages a filtered list with its cursor', async () => {
    const first = await list({ from: 'brightwell.example', limit: '1' });
    expect(names(first)).toEqual(['late']);
    expect(first.next_cursor).not.toBeNull();
    const second = await list({ from: 'brightwell.example', limit: '1', cursor: first.next_cursor! });
    expect(names(second)).toEqual(['invoice']);
  });

  it('refuses a bad time, and filters with after', async () => {
    const r = await s.call('GET', `/v1/identities/${s.agent.id}/messages`, { query: { since: 'yesterday' } });
    expect(r.status).toBe(400);
    const a = await s.call('GET', `/v1/identities/${s.agent.id}/messages`, {
      query: { after: ids.invoice!.id, label: 'x' },
    });
    expect(a.status).toBe(400);
  });
});

describe('GET …/threads with filters', () => {
  it.each([
    [{ label: 'escalated' }, ['late']],
    [{ from: 'cafe.example' }, ['café']],
    [{ subject: 'invoice' }, ['late', 'invoice']],
    [{ subject: 'invoice', since: '2026-03-02T00:00:00Z' }, ['late']],
  ])('%j → %j', async (query, expected) => {
    const r = await s.call('GET', `/v1/identities/${s.agent.id}/threads`, {
      query: { ...query, limit: '100' },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(
      r.body.data.map((t: { id: string }) => Object.keys(ids).find((n) => ids[n]!.thread_id === t.id)),
    ).toEqual(expected);
  });
});
