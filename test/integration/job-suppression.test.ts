import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SuppressionReason } from '../../functions/core/suppressions.ts';
import { addressHash, addressHint } from '../../functions/core/suppressions.ts';
import type { MachineKind, SendInput } from '../../functions/send/dispatcher.ts';
import { putSuppressionIfAbsent } from '../../functions/store/suppressions.store.ts';
import { type TestStack, tenantItems, testStack } from '../support/local.ts';

/**
 * Suppression is checked at enqueue as well as at send (docs/guides/sending.md › The job model): the
 * kind decides which suppressions block a recipient, a send nobody may receive is born `suppressed`
 * with no execution, and the claim checks again (a recipient suppressed after enqueue is not sent to).
 */
const NO_WAITS = { Backoff: 0, WaitUntilSendAt: 0 };

/** Starts the runtime holds back until the test lets them go (a scheduled send waiting days). */
const held: { name: string; input: SendInput; machine?: MachineKind }[] = [];
let holding = false;
let s: TestStack;
beforeAll(async () => {
  s = await testStack({
    waitTimeOverrides: NO_WAITS,
    config: { simEventDelaySeconds: 0 },
    dispatcher: {
      start: async (name, input, machine) => {
        if (holding) held.push({ name, input, machine });
        else await s.machine.start(name, input, machine);
      },
    },
  });
});
afterAll(async () => {
  await s.settle();
  await s.close();
});

/** A second identity of the tenant receives by loopback; each test gets its own sub-address. */
let n = 0;
const peerAddress = () => {
  const [local, domain] = s.peer.address.split('@');
  return `${local}+j${++n}@${domain}`;
};

async function suppress(address: string, reason: SuppressionReason) {
  await putSuppressionIfAbsent(
    s.deps.db,
    s.tenantId,
    {
      address_hash: addressHash(s.deps.config.hashKey, address),
      address_hint: addressHint(address),
      reason,
      created_at: s.deps.clock(),
    },
    s.deps.clock(),
  );
}

const marketing = {
  kind: 'marketing',
  unsubscribe: { url: 'https://example.com/unsubscribe' },
  consent: { basis: 'opt_in' },
};

/** How many inbound copies of `subject` the peer identity holds (loopback: one per delivery). */
async function copies(subject: string) {
  return (await s.mailbox(s.peer.id, 'inbound')).filter((m) => m.subject.includes(subject)).length;
}

describe('suppression by kind', () => {
  it('still sends a transactional message to an unsubscribed address, and never an elective one', async () => {
    const to = peerAddress();
    await suppress(to, 'unsubscribe');
    const tx = await s.send({ to: [to], subject: 'Sign-in link 1', text: 'x' });
    expect(tx.status).toBe(202);
    expect(tx.body.status).toBe('queued');
    const el = await s.send({ to: [to], subject: 'Newsletter 1', text: 'x', ...marketing });
    expect(el.status).toBe(202);
    expect(el.body.status).toBe('suppressed');
    expect(el.body.deliveries).toEqual([
      expect.objectContaining({
        address: to,
        status: 'suppressed',
        smtp_response: 'policy: suppression (unsubscribe)',
      }),
    ]);
    await s.settle();
    expect((await s.message(s.agent.id, tx.body.id))?.status).toBe('delivered');
    expect((await s.message(s.agent.id, tx.body.id))?.consent_kind).toBe('transactional');
    expect((await s.message(s.agent.id, el.body.id))?.consent_kind).toBe('elective');
    expect(await copies('Sign-in link 1')).toBe(1);
    expect(await copies('Newsletter 1')).toBe(0);
  });

  it.each(['hard_bounce', 'complaint'] as const)(
    'sends neither kind to an address suppressed for %s',
    async (reason) => {
      const to = peerAddress();
      await suppress(to, reason);
      const tx = await s.send({ to: [to], subject: `Receipt ${reason}`, text: 'x' });
      const el = await s.send({ to: [to], subject: `Offer ${reason}`, text: 'x', ...marketing });
      for (const r of [tx, el]) {
        expect(r.status).toBe(202);
        expect(r.body.status).toBe('suppressed');
        expect(r.body.deliveries[0].smtp_response).toBe(`policy: suppression (${reason})`);
      }
      await s.settle();
      expect(await copies(`Receipt ${reason}`)).toBe(0);
      expect(await copies(`Offer ${reason}`)).toBe(0);
    },
  );

  it('refuses consent_kind from an API caller: the kind comes from a template, never from the caller', async () => {
    const r = await s.send({ to: [peerAddress()], subject: 'x', text: 'x', consent_kind: 'transactional' });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('invalid_request');
  });
});

describe('suppression at enqueue (born suppressed)', () => {
  it('answers 202 suppressed with each recipient’s reason and starts no execution when every recipient is blocked', async () => {
    const a = peerAddress();
    const b = peerAddress();
    await suppress(a, 'hard_bounce');
    await suppress(b, 'complaint');
    const before = s.machine.started.length;
    const r = await s.send({ to: [a], cc: [b], subject: 'Nobody', text: 'x' });
    expect(r.status).toBe(202);
    expect(r.body.status).toBe('suppressed');
    expect(r.body.deliveries.map((d: { smtp_response: string }) => d.smtp_response)).toEqual([
      'policy: suppression (hard_bounce)',
      'policy: suppression (complaint)',
    ]);
    await s.settle();
    expect(s.machine.started.slice(before).filter((x) => x.startsWith(r.body.id))).toEqual([]);
    const m = await s.message(s.agent.id, r.body.id);
    expect(m?.status).toBe('suppressed');
    expect(m?.dispatch).toBeUndefined();
    const events = (await tenantItems(s, 'E#')).map((i) => i.event);
    expect(
      events.filter((e) => e.type === 'message.suppressed' && e.data.message_id === r.body.id),
    ).toHaveLength(1);
  });

  it('sends to the recipients left when only some are blocked, and marks the others suppressed', async () => {
    const blocked = peerAddress();
    const open = peerAddress();
    await suppress(blocked, 'hard_bounce');
    const r = await s.send({ to: [blocked, open], subject: 'Half', text: 'x' });
    expect(r.status).toBe(202);
    expect(r.body.status).toBe('queued');
    await s.settle();
    const m = await s.message(s.agent.id, r.body.id);
    expect(m?.deliveries?.map((d) => [d.address, d.status])).toEqual([
      [blocked, 'suppressed'],
      [open, 'delivered'],
    ]);
    expect(m?.status).toBe('delivered');
  });
});

describe('suppression at send (the send is the authority)', () => {
  async function scheduled(to: string[], subject: string, extra: Record<string, unknown> = {}) {
    holding = true;
    const at = new Date(s.deps.clock() + 3 * 24 * 3600_000).toISOString();
    const r = await s.send({ to, subject, text: 'x', send_at: at, ...extra });
    holding = false;
    expect(r.status).toBe(202);
    expect(r.body.status).toBe('queued');
    const mine = held.splice(0).filter((h) => h.name.startsWith(r.body.id));
    expect(mine.map((h) => h.name)).toEqual([`${r.body.id}-s1`]);
    /** The days pass: the Standard execution's wait ends and the attempt claims. */
    const go = async () => {
      for (const h of mine) await s.machine.start(h.name, h.input, h.machine);
      await s.settle();
    };
    return { id: r.body.id as string, go };
  }

  it('ends a scheduled send suppressed, with no provider call, when its only recipient was suppressed after enqueue', async () => {
    const to = peerAddress();
    const job = await scheduled([to], 'Scheduled gone');
    await suppress(to, 'hard_bounce');
    await job.go();
    const m = await s.message(s.agent.id, job.id);
    expect(m).toMatchObject({ status: 'suppressed', status_reason: 'suppressed_at_send' });
    expect(m?.provider).toBeUndefined();
    expect(m?.provider_message_id).toBeUndefined();
    expect(m?.claim).toBeUndefined();
    expect(m?.dispatch).toBeUndefined();
    expect(m?.deliveries?.map((d) => [d.status, d.smtp_response])).toEqual([
      ['suppressed', 'policy: suppression (hard_bounce)'],
    ]);
    expect(await copies('Scheduled gone')).toBe(0);
    const events = (await tenantItems(s, 'E#')).map((i) => i.event);
    expect(
      events.filter((e) => e.type === 'message.suppressed' && e.data.message_id === job.id),
    ).toHaveLength(1);
  });

  it('sends a scheduled message to the recipients left when one was suppressed after enqueue', async () => {
    const gone = peerAddress();
    const stays = peerAddress();
    const job = await scheduled([gone, stays], 'Scheduled half');
    await suppress(gone, 'complaint');
    await job.go();
    const m = await s.message(s.agent.id, job.id);
    expect(m?.deliveries?.map((d) => [d.address, d.status])).toEqual([
      [gone, 'suppressed'],
      [stays, 'delivered'],
    ]);
    expect(m?.status).toBe('delivered');
    expect(await copies('Scheduled half')).toBe(1);
  });

  it('still sends a scheduled transactional message to an address unsubscribed after enqueue, but not an elective one', async () => {
    const to = peerAddress();
    const tx = await scheduled([to], 'Scheduled receipt');
    const el = await scheduled([to], 'Scheduled offer', marketing);
    await suppress(to, 'unsubscribe');
    await tx.go();
    await el.go();
    expect((await s.message(s.agent.id, tx.id))?.status).toBe('delivered');
    expect((await s.message(s.agent.id, el.id))?.status).toBe('suppressed');
    expect(await copies('Scheduled receipt')).toBe(1);
    expect(await copies('Scheduled offer')).toBe(0);
  });
});
