import { describe, expect, it } from 'vitest';
import { claim, claimToken, record } from '../../functions/send/attempt.ts';
import { claimSending } from '../../functions/store/messages.store.ts';
import { stackPerTest } from '../support/local.ts';

/**
 * The local stack counts the metrics production writes as EMF (functions/metrics.ts), in
 * memory, readable here and printed by `npm start` on exit. Each test has its own runtime, so the
 * counts start at zero.
 */
const stack = stackPerTest({ ownTable: true });

describe('metrics counted through the local stack', () => {
  it('counts a send, its duplicate, a bounce with its suppression, a refusal and a dry run', async () => {
    const s = await stack();
    const m = s.metrics;

    const first = await s.send({ to: [s.peer.address], subject: 'Hi', text: 'one' }, 'metrics-1');
    expect(first.status).toBe(202);
    await s.settle();
    expect(m.get('sends_accepted')).toBe(1);
    expect(m.get('attempts', { transport: 'loopback', outcome: 'accepted' })).toBe(1);
    expect(m.get('sends_deduplicated')).toBe(0);

    // The same key again: the first message, counted as deduplicated, no second attempt.
    const again = await s.send({ to: [s.peer.address], subject: 'Hi', text: 'one' }, 'metrics-1');
    expect(again.status).toBe(202);
    expect(again.body.id).toBe(first.body.id);
    await s.settle();
    expect(m.get('sends_deduplicated')).toBe(1);
    expect(m.get('sends_accepted')).toBe(1);
    expect(m.get('attempts')).toBe(1);

    // A hard bounce: the simulator's event is applied by the consumer and suppresses the address.
    const bounce = await s.send({ to: ['bounce@simulator.invalid'], subject: 'B', text: 'two' }, 'metrics-2');
    expect(bounce.status).toBe(202);
    await s.settle();
    expect((await s.message(s.agent.id, bounce.body.id))!.status).toBe('bounced');
    expect(m.get('attempts', { transport: 'simulator', outcome: 'accepted' })).toBe(1);
    expect(m.get('delivery_events', { kind: 'bounced' })).toBe(1);
    expect(m.get('suppressions_created', { reason: 'hard_bounce' })).toBe(1);

    // Refusals, by code: the first key with another body, and a body with no recipient.
    const conflict = await s.send({ to: [s.peer.address], subject: 'Hi', text: 'other' }, 'metrics-1');
    expect(conflict.status).toBe(409);
    expect(m.get('sends_refused', { code: 'idempotency_conflict' })).toBe(1);
    const invalid = await s.send({ subject: 'no recipients', text: 'x' }, 'metrics-4');
    expect(invalid.status).toBe(400);
    expect(m.get('sends_refused', { code: 'invalid_request' })).toBe(1);
    expect(m.get('sends_refused')).toBe(2);

    const dry = await s.send({ to: [s.peer.address], subject: 'Dry', text: 'x' }, 'metrics-5', {
      query: { dry_run: 'true' },
    });
    expect(dry.status).toBe(200);
    expect(m.get('sends_dry_run')).toBe(1);
    expect(m.get('sends_accepted')).toBe(2);

    // What `npm start` prints on exit: one line per series, ids never among the dimensions.
    const lines = m.lines();
    expect(lines).toContain('sends_accepted 2');
    expect(lines).toContain('delivery_events{kind=bounced} 1');
    expect(lines.join('\n')).not.toMatch(/msg_|ten_|idn_|@/);
  });

  it('counts an uncertain attempt once, and the operator resolving it', async () => {
    const s = await stack();
    const res = await s.send({ to: ['timeout@simulator.invalid'], subject: 'T', text: 'x' }, 'metrics-u');
    await s.settle();
    expect((await s.message(s.agent.id, res.body.id))!.status).toBe('uncertain');
    expect(s.metrics.get('attempts', { outcome: 'unknown' })).toBe(1);
    expect(s.metrics.get('uncertain_created')).toBe(1);
    // A sweep finds nothing stale: the count does not move, and the run is counted.
    await s.sweep();
    expect(s.metrics.get('sweeper_runs')).toBe(1);
    expect(s.metrics.get('uncertain_created')).toBe(1);

    for (let i = 0; i < 2; i++) {
      const r = await s.call('POST', `/v1/identities/${s.agent.id}/messages/${res.body.id}/resolve`, {
        body: { outcome: 'not_sent' },
        headers: { 'idempotency-key': 'resolve-1' },
      });
      expect(r.status).toBe(200);
    }
    // The replayed resolve is not counted again.
    expect(s.metrics.get('uncertain_resolved', { outcome: 'not_sent' })).toBe(1);
  });

  it('counts a dead attempt’s stale claim once, and not the late Record that finds its claim gone', async () => {
    let now = Date.now();
    const s = await stack({ clock: () => now, dispatcher: { start: async () => undefined } });
    const sent = await s.send({ to: [s.peer.address], subject: 'Stale', text: 'x' }, 'metrics-stale');
    const input = { tenant_id: s.tenantId, identity_id: s.agent.id, message_id: sent.body.id };
    expect((await claim(s.deps, { ...input, execution_id: 'dead' })).outcome).toBe('claimed');
    // the dead attempt's transport wrote its claim with the `sending` mark, then died
    expect(
      (
        await claimSending(s.deps.db, input.identity_id, input.message_id, {
          token: claimToken('dead'),
          at: now,
        })
      ).written,
    ).toBe(true);
    now += 6 * 60_000;
    expect(await claim(s.deps, { ...input, execution_id: 'next' })).toEqual({
      outcome: 'stop',
      reason: 'stale',
    });
    expect(s.metrics.get('stale_claims', { by: 'claim' })).toBe(1);
    expect(s.metrics.get('uncertain_created', { reason: 'transport_connection_lost' })).toBe(1);
    await record(s.deps, {
      ...input,
      claim: { token: claimToken('dead') },
      result: { type: 'accepted', provider: 'loopback', provider_message_id: 'x', refused: [], deferred: [] },
    });
    expect(s.metrics.get('attempts')).toBe(0);
    expect(s.metrics.get('send_latency')).toBe(0);
    expect(s.metrics.get('uncertain_created')).toBe(1);
  });
});
