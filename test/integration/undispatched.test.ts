import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DomainRecord } from '../../functions/core/model.ts';
import { getDomain } from '../../functions/store/directory.store.ts';
import { saveDomain } from '../../functions/store/domains.store.ts';
import { ownTable, type TestStack, testStack } from '../support/local.ts';
import { localSes } from '../support/local-ses.ts';

/**
 * docs/guides/sending.md › The job model, undispatched: a live send whose sending domain has no transport configured waits as
 * `undispatched` under the tenant policy `unconfigured_transport: "hold"` (nothing started, nothing
 * coming), and the sweeper dispatches it exactly once when the transport is configured. The domain
 * is configured here as the domains API leaves a verified SES domain (its record: state, transport,
 * settings), sending through the local SES behind a recording proxy.
 */
let ses: Awaited<ReturnType<typeof localSes>>;
let s: TestStack;
let domain: string;
beforeAll(async () => {
  ses = await localSes();
  s = await testStack({
    table: ownTable('undispatched'),
    config: { simEventDelaySeconds: 0 },
    seed: { mode: 'live', transport: 'test' },
  });
  domain = s.agent.address.split('@')[1];
});
afterAll(async () => {
  await s.settle();
  await s.close();
  await ses.close();
});

/** Rewrite the seeded domain's record (what the domains API writes when it configures one). */
async function configure(fields: Partial<DomainRecord>) {
  const d = (await getDomain(s.deps.db, domain))!;
  const t = s.deps.clock();
  expect(await saveDomain(s.deps.db, { ...d, ...fields, updated_at: t }, d.updated_at)).toBe(true);
}

const policy = (p: Record<string, unknown>) =>
  s.call('PATCH', `/v1/tenants/${s.tenantId}/policy`, { body: p });

describe('undispatched (docs/guides/sending.md › The job model)', () => {
  it('refuses with 422 transport_unavailable by default, as before', async () => {
    const r = await s.send({ to: ['jo@example.net'], subject: 'Refused', text: 'x' });
    expect(r.status).toBe(422);
    expect(r.body.error).toMatchObject({
      code: 'transport_unavailable',
      details: { reason: 'transport_not_configured' },
    });
    const view = await s.call('GET', `/v1/tenants/${s.tenantId}/policy`);
    expect(view.body.policy.unconfigured_transport).toBe('refuse');
  });

  it('holds the send as undispatched under the hold policy, and the sweeper sends it exactly once when the transport is configured', async () => {
    const set = await policy({ unconfigured_transport: 'hold' });
    expect(set.status).toBe(200);
    const started = s.machine.started.length;
    const r = await s.send({ to: ['jo@example.net'], subject: 'Held', text: 'x' });
    expect(r.status).toBe(202);
    expect(r.body.status).toBe('undispatched');
    const id = r.body.id as string;
    expect((await s.message(s.agent.id, id))?.dispatch).toBeUndefined();

    // Nothing is coming while the configuration is incomplete: the sweeper leaves it.
    const first = await s.sweep();
    expect(first.dispatched).not.toContain(id);
    await s.settle();
    expect(s.machine.started.slice(started).filter((n) => n.startsWith(id))).toEqual([]);
    expect((await s.message(s.agent.id, id))?.status).toBe('undispatched');

    const before = ses.requests.length;
    await configure({ transport: 'ses', ses: { endpoint: ses.url } });
    // Two sweeper passes racing, then a third: one dispatch, one provider request.
    const [a, b] = await Promise.all([s.sweep(), s.sweep()]);
    expect([a.dispatched.includes(id), b.dispatched.includes(id)].filter(Boolean)).toHaveLength(1);
    await s.settle();
    expect((await s.sweep()).dispatched).not.toContain(id);
    await s.settle();
    expect(s.machine.started.slice(started).filter((n) => n.startsWith(id))).toEqual([`${id}-d1`]);
    const m = await s.message(s.agent.id, id);
    expect(m).toMatchObject({ status: 'submitted', provider: 'ses' });
    expect(ses.requests.slice(before)).toHaveLength(1);
  });

  it('cancels an undispatched message', async () => {
    await configure({ transport: 'test', ses: undefined });
    await policy({ unconfigured_transport: 'hold' });
    const r = await s.send({ to: ['jo@example.net'], subject: 'Held then canceled', text: 'x' });
    expect(r.body.status).toBe('undispatched');
    const c = await s.call('POST', `/v1/identities/${s.agent.id}/messages/${r.body.id}/cancel`);
    expect(c.status).toBe(200);
    expect(c.body.status).toBe('canceled');
    expect((await s.sweep()).dispatched).not.toContain(r.body.id);
  });
});
