import { describe, expect, it } from 'vitest';
import type { AddressRecord } from '../../functions/core/model.ts';
import { loopbackTransport } from '../../functions/transports/loopback.transport.ts';
import { simulatorTransport } from '../../functions/transports/simulator.transport.ts';
import { chooseTransport, type TransportRequest } from '../../functions/transports/transport.ts';

const all = ['loopback', 'simulator', 'ses'] as const;

describe('chooseTransport (the resolver of the transport port)', () => {
  it.each([
    [
      'a test domain, simulator recipients',
      { transport: 'test' as const },
      ['a@x.test', 'bounce@simulator.invalid'],
      all,
      'simulator',
    ],
    ['a test domain, no simulator recipient', { transport: 'test' as const }, ['a@x.test'], all, 'loopback'],
    ['no domain (test tenants)', undefined, ['a@x.test'], all, 'loopback'],
    ['an ses domain', { transport: 'ses' as const }, ['a@x.test'], all, 'ses'],
    ['an smtp domain with no smtp task deployed', { transport: 'smtp' as const }, ['a@x.test'], all, 'none'],
  ])('%s → %s', (_, domain, recipients, available, expected) => {
    const choice = chooseTransport(
      domain,
      recipients.map((address) => ({ address })),
      available,
    );
    expect(choice.provider).toBe(expected);
    if (choice.provider === 'none') expect(choice.result.reason).toBe('sender_domain_unavailable');
  });
});

const request = (addresses: string[]): TransportRequest => ({
  tenant_id: 'ten_1',
  identity_id: 'idn_1',
  message_id: 'msg_01jbz0000000000000000000aa',
  claim_token: 'tok',
  attempt: 1,
  mime: { key: 'k', size: 1, load: async () => new Uint8Array() },
  rfc_message_id: 'x@y',
  subject: 's',
  kind: 'transactional',
  from: 'agent@x.test',
  envelope_from: 'agent@x.test',
  recipients: addresses.map((address) => ({ address, field: 'to' as const })),
  domain: { domain: 'x.test', tenant_id: 'ten_1', transport: 'test' },
  deadline: 0,
  signal: new AbortController().signal,
});

const directory = (known: string[]) => ({
  addresses: async (list: string[]) =>
    new Map(
      list
        .filter((a) => known.includes(a.toLowerCase()))
        .map((a): [string, AddressRecord] => [
          a.toLowerCase(),
          { address: a, identity_id: `idn_${a[0]}`, tenant_id: 'ten_2', domain: 'x.test', status: 'active' },
        ]),
    ),
});

describe('the loopback and simulator adapters', () => {
  it('loopback hands the inbound copies back in its result and refuses unknown addresses (550 5.1.1)', async () => {
    const out = await loopbackTransport(directory(['peer@x.test'])).send(
      request(['peer+t123@x.test', 'nobody@x.test']),
    );
    expect(out).toMatchObject({
      type: 'accepted',
      provider: 'loopback',
      refused: [{ address: 'nobody@x.test', code: '550' }],
      loopback: [{ recipient: 'peer+t123@x.test', tenant_id: 'ten_2', identity_id: 'idn_p' }],
    });
  });

  it('the simulator publishes its scripted events and hands the loopback recipients back', async () => {
    const published: unknown[] = [];
    const out = await simulatorTransport({
      ...directory(['peer@x.test']),
      events: { publish: async (e) => void published.push(...e) },
      clock: () => 1,
      eventDelaySeconds: 0,
    }).send(request(['bounce@simulator.invalid', 'peer@x.test']));
    expect(out).toMatchObject({
      type: 'accepted',
      provider: 'simulator',
      loopback: [{ recipient: 'peer@x.test' }],
    });
    expect(published).toEqual([
      expect.objectContaining({ kind: 'bounced', recipient: 'bounce@simulator.invalid' }),
    ]);
  });

  it('the simulator rejects without publishing anything when a script says reject', async () => {
    const published: unknown[] = [];
    const out = await simulatorTransport({
      ...directory([]),
      events: { publish: async (e) => void published.push(...e) },
      clock: () => 1,
      eventDelaySeconds: 0,
    }).send(request(['reject@simulator.invalid', 'delivered@simulator.invalid']));
    expect(out.type).toBe('rejected');
    expect(published).toEqual([]);
  });
});
