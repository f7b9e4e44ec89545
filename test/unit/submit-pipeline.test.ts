import { describe, expect, it } from 'vitest';
import { PmailError } from '../../functions/core/errors.ts';
import type {
  AddressRecord,
  DomainRecord,
  Identity,
  MessageRecord,
  Tenant,
} from '../../functions/core/model.ts';
import {
  decideSubmit,
  emptyLoads,
  type SubmitDecision,
  type SubmitReads,
  type SubmitSnapshot,
} from '../../functions/core/submit-pipeline.ts';

/**
 * The submit pipeline's steps (docs/architecture.md › The submit path) as a table over snapshots:
 * each row is what the loader read, and the answer is a refusal code, the reads still needed, or the
 * decision. No table, no clock.
 */

const NOW = Date.UTC(2026, 11, 3, 12);
const tenant: Tenant = {
  id: 'ten_1',
  status: 'active',
  mode: 'live',
  name: 'T',
  timezone: 'UTC',
  policy: {},
};
const identity: Identity = {
  id: 'idn_1',
  tenant_id: 'ten_1',
  name: 'agent',
  status: 'active',
  owner_name: 'Ada',
  owner_email: 'ada@example.com',
  primary_address: 'agent@example.com',
  addresses: ['agent@example.com', 'old@example.com'],
};
const address = (
  a: string,
  status: AddressRecord['status'] = 'active',
  identity_id = 'idn_1',
): AddressRecord => ({
  address: a,
  identity_id,
  tenant_id: 'ten_1',
  domain: a.split('@')[1],
  status,
});
const domain = (d: string, over: Partial<DomainRecord> = {}): DomainRecord => ({
  domain: d,
  tenant_id: 'ten_1',
  state: 'healthy',
  transport: 'ses',
  reply_token: 'none',
  ...over,
});
const inbound: MessageRecord = {
  id: 'msg_01TARGET',
  tenant_id: 'ten_1',
  identity_id: 'idn_1',
  thread_id: 'thr_01TARGET',
  direction: 'inbound',
  status: 'received',
  from: { address: 'bob@peer.org' },
  to: [{ address: 'agent@example.com' }],
  cc: [{ address: 'carol@peer.org' }],
  bcc: [],
  reply_to: [],
  subject: 'Hello',
  kind: 'transactional',
  labels: [],
  flags: [],
  rfc_message_id: '<t@peer.org>',
  hop: 1,
  raw_key: 'raw/t.eml',
  created_at: NOW - 1000,
  updated_at: NOW - 1000,
  version: 1,
} as unknown as MessageRecord;

/** A snapshot where everything a plain send to bob@peer.org needs was read. */
function snapshot(over: Partial<SubmitSnapshot> = {}): SubmitSnapshot {
  const loads = emptyLoads();
  return {
    tenant,
    identity,
    operation: 'send',
    body: { kind: 'transactional', to: ['bob@peer.org'], subject: 'Hi', text: 'Hello' },
    ulid: '01NEWMESSAGE',
    now: NOW,
    hashKey: 'k',
    addresses: new Map([
      ['agent@example.com', address('agent@example.com')],
      ['old@example.com', address('old@example.com', 'retiring')],
    ]),
    ...loads,
    domains: { read: new Set(['example.com']), found: new Map([['example.com', domain('example.com')]]) },
    contacts: { read: new Set(['bob@peer.org']), found: new Map() },
    filters: { ...loads.filters, read: new Set(['bob@peer.org']) },
    ...over,
  };
}

function outcome(
  s: SubmitSnapshot,
): { code: string; details?: unknown } | { need: SubmitReads } | SubmitDecision {
  try {
    const o = decideSubmit(s);
    return o.type === 'need' ? { need: o.reads } : o.decision;
  } catch (err) {
    if (err instanceof PmailError) return { code: err.code, details: err.details };
    throw err;
  }
}
const decided = (s: SubmitSnapshot) => {
  const o = outcome(s);
  if (!('messageId' in o)) throw new Error(`not decided: ${JSON.stringify(o)}`);
  return o;
};

describe('decideSubmit: refusals in the table’s order', () => {
  const body = snapshot().body;
  it.each<[string, Partial<SubmitSnapshot>, string]>([
    ['a paused identity', { identity: { ...identity, status: 'paused' } }, 'identity_paused'],
    ['a deleting identity', { identity: { ...identity, status: 'deleting' } }, 'identity_not_found'],
    ['a suspended tenant', { tenant: { ...tenant, status: 'suspended' } }, 'tenant_suspended'],
    [
      'an identity without owner',
      { identity: { ...identity, owner_email: undefined } },
      'identity_owner_required',
    ],
    // Step 1 before step 5: a paused identity replying to a missing message is identity_paused.
    [
      'paused and no target',
      { identity: { ...identity, status: 'paused' }, operation: 'reply', targetMessageId: 'msg_01X' },
      'identity_paused',
    ],
    [
      'a reply to a missing message',
      { operation: 'reply', targetMessageId: 'msg_01X', body: { kind: 'transactional' } },
      'message_not_found',
    ],
    ['a send into a missing thread', { body: { ...body, thread_id: 'thr_01X' } }, 'thread_not_found'],
    ['no recipients', { body: { ...body, to: [] } }, 'invalid_request'],
    [
      'more recipients than the policy allows',
      {
        tenant: { ...tenant, policy: { max_recipients: 1 } },
        body: { ...body, to: ['a@peer.org', 'b@peer.org'] },
      },
      'too_many_recipients',
    ],
    [
      'marketing without consent',
      { body: { ...body, kind: 'marketing', unsubscribe: { url: 'https://u.example' } } },
      'marketing_requirements_missing',
    ],
    [
      'marketing with an http unsubscribe',
      {
        body: {
          ...body,
          kind: 'marketing',
          unsubscribe: { url: 'http://u.example' },
          consent: { basis: 'opt-in' },
        },
      },
      'marketing_requirements_missing',
    ],
    [
      'an auto-reply that is not a reply',
      { body: { ...body, kind: 'auto_reply' } },
      'auto_reply_not_allowed',
    ],
    ['a reserved header', { body: { ...body, headers: { 'X-Pmail-Hop': '3' } } }, 'header_not_allowed'],
    ['a subject over 998 characters', { body: { ...body, subject: 'x'.repeat(999) } }, 'invalid_request'],
    [
      'a from_address of nobody',
      { body: { ...body, from_address: 'nobody@example.com' } },
      'invalid_request',
    ],
    [
      'a retiring from_address outside a thread',
      { body: { ...body, from_address: 'old@example.com' } },
      'invalid_request',
    ],
    [
      'a domain still verifying',
      {
        domains: {
          read: new Set(['example.com']),
          found: new Map([['example.com', domain('example.com', { state: 'verifying' })]]),
        },
      },
      'domain_not_ready',
    ],
    [
      'a live tenant without a domain',
      { domains: { read: new Set(['example.com']), found: new Map() } },
      'transport_unavailable',
    ],
    [
      'a domain without transport',
      {
        domains: {
          read: new Set(['example.com']),
          found: new Map([['example.com', domain('example.com', { transport: 'test' })]]),
        },
      },
      'transport_unavailable',
    ],
    [
      'marketing through Cloudflare',
      {
        body: {
          ...body,
          kind: 'marketing',
          unsubscribe: { url: 'https://u.example' },
          consent: { basis: 'opt-in' },
        },
        domains: {
          read: new Set(['example.com']),
          found: new Map([['example.com', domain('example.com', { transport: 'cloudflare' })]]),
        },
      },
      'transport_unavailable',
    ],
    [
      'a test tenant to an outside address',
      {
        tenant: { ...tenant, mode: 'test' },
        directory: { read: new Set(['bob@peer.org']), found: new Map() },
      },
      'test_mode_recipient',
    ],
  ])('%s', (_name, over, code) => {
    expect(outcome(snapshot(over))).toMatchObject({ code });
  });

  it('names the reason of a refused auto-reply and the marketing fields missing', () => {
    expect(outcome(snapshot({ body: { ...body, kind: 'auto_reply' } }))).toMatchObject({
      details: { reason: 'not_a_reply' },
    });
    expect(outcome(snapshot({ body: { ...body, kind: 'marketing' } }))).toMatchObject({
      details: { missing: ['unsubscribe.url', 'consent'] },
    });
  });
});

describe('decideSubmit: the reads it still needs, named together and only after the checks before them', () => {
  it.each<[string, Partial<SubmitSnapshot>, SubmitReads]>([
    [
      'nothing read',
      { ...emptyLoads(), addresses: undefined },
      { addresses: ['agent@example.com', 'old@example.com'] },
    ],
    [
      'a reply: its thread and the Reply-To contacts',
      {
        operation: 'reply',
        targetMessageId: inbound.id,
        target: { ...inbound, reply_to: [{ address: 'Desk@Peer.org' }] },
        body: { kind: 'transactional', text: 'ok' },
      },
      { thread: 'thr_01TARGET', contacts: ['desk@peer.org'] },
    ],
    [
      'another From: its domain, with the recipients’ filters',
      {
        body: { kind: 'transactional', to: ['new@peer.org'], text: 'x', from_address: 'agent@example.com' },
        domains: { read: new Set(['other.com']), found: new Map() },
      },
      { domains: ['example.com'], filters: ['new@peer.org'] },
    ],
    [
      'a test tenant: the directory and the filters at once',
      {
        tenant: { ...tenant, mode: 'test' },
        body: { kind: 'transactional', to: ['x@peer.org', 'sink@simulator.invalid'] },
      },
      { directory: ['x@peer.org'], filters: ['x@peer.org', 'sink@simulator.invalid'] },
    ],
    [
      'a forward: its original',
      {
        operation: 'forward',
        targetMessageId: inbound.id,
        target: inbound,
        thread: null,
        body: { kind: 'transactional', to: ['bob@peer.org'], text: 'see below' },
      },
      { forwarded: true },
    ],
  ])('%s', (_name, over, reads) => {
    expect(outcome(snapshot(over))).toEqual({ need: reads });
  });

  it('refuses at step 7 without naming the recipients’ reads (a refusal reads nothing more)', () => {
    const s = snapshot({
      tenant: { ...tenant, mode: 'test', policy: { max_recipients: 1 } },
      body: { kind: 'transactional', to: ['a@peer.org', 'b@peer.org'] },
    });
    expect(outcome(s)).toMatchObject({ code: 'too_many_recipients' });
  });
});

describe('decideSubmit: what it decides', () => {
  it('a plain send: the primary From, default caps, one queued recipient, a fresh thread', () => {
    const d = decided(snapshot());
    expect(d).toMatchObject({
      messageId: 'msg_01NEWMESSAGE',
      threadId: 'thr_01NEWMESSAGE',
      threaded: false,
      from: { address: 'agent@example.com' },
      hop: 1,
      autoStreak: 0,
      caps: { tenant: 10_000, identity: 1_000 },
      references: [],
      linkLargeAttachments: false,
    });
    expect(d.decisions).toEqual([{ address: 'bob@peer.org', status: 'queued' }]);
    expect(d.replyTo).toBeUndefined();
  });

  it('suppressions and send lists decide each recipient; the contacts read are handed on', () => {
    const loads = emptyLoads();
    const d = decided(
      snapshot({
        body: { kind: 'transactional', to: ['bob@peer.org', 'eve@bad.org', 'ann@peer.org'], text: 'x' },
        contacts: {
          read: new Set(['bob@peer.org', 'eve@bad.org', 'ann@peer.org']),
          found: new Map([
            ['ann@peer.org', { inbound_count: 0, authenticated_inbound_count: 0, outbound_count: 3 }],
          ]),
        },
        filters: {
          ...loads.filters,
          read: new Set(['bob@peer.org', 'eve@bad.org', 'ann@peer.org']),
          suppressions: new Map([['bob@peer.org', { reason: 'hard_bounce' as const }]]),
          block: new Set(['@bad.org']),
        },
      }),
    );
    expect(d.decisions.map((x) => [x.address, x.status, x.status === 'suppressed' ? x.reason : ''])).toEqual([
      ['bob@peer.org', 'suppressed', 'hard_bounce'],
      ['eve@bad.org', 'suppressed', 'send_block'],
      ['ann@peer.org', 'queued', ''],
    ]);
    expect([...d.contacts.keys()]).toEqual(['ann@peer.org']);
  });

  it('a reply: from the address written to, Re: chain, hop + 1, the thread token on subaddress domains', () => {
    const d = decided(
      snapshot({
        operation: 'reply',
        targetMessageId: inbound.id,
        target: inbound,
        thread: null,
        body: { kind: 'transactional', text: 'ok' },
        domains: {
          read: new Set(['example.com']),
          found: new Map([['example.com', domain('example.com', { reply_token: 'subaddress' })]]),
        },
      }),
    );
    expect(d.threaded).toBe(true);
    expect(d.threadId).toBe('thr_01TARGET');
    expect(d.recipients.map((r) => r.address)).toEqual(['bob@peer.org']);
    expect(d.inReplyTo).toBe('<t@peer.org>');
    expect(d.references).toEqual(['<t@peer.org>']);
    expect(d.hop).toBe(2);
    expect(d.compose.subject).toBe('Hello');
    expect(d.replyTo?.address).toMatch(/^agent\+t01TARGET\.[0-9a-f]{6}@example\.com$/);
  });

  it('a thread keeps its retiring From; a from_address may name it there', () => {
    const over: Partial<SubmitSnapshot> = {
      operation: 'reply',
      targetMessageId: inbound.id,
      target: inbound,
      thread: { refs: [], seq: 1, auto_streak: 0, from_address: 'old@example.com' },
      body: { kind: 'transactional', text: 'ok' },
    };
    expect(decided(snapshot(over)).from.address).toBe('old@example.com');
    expect(
      decided(
        snapshot({ ...over, body: { kind: 'transactional', text: 'ok', from_address: 'old@example.com' } }),
      ).from.address,
    ).toBe('old@example.com');
  });

  it('an auto-reply within the cap counts the streak; at the cap it is refused', () => {
    const over: Partial<SubmitSnapshot> = {
      operation: 'reply',
      targetMessageId: inbound.id,
      target: inbound,
      body: { kind: 'auto_reply', text: 'away' },
    };
    expect(decided(snapshot({ ...over, thread: { refs: [], seq: 1, auto_streak: 1 } })).autoStreak).toBe(2);
    expect(outcome(snapshot({ ...over, thread: { refs: [], seq: 2, auto_streak: 2 } }))).toMatchObject({
      code: 'auto_reply_not_allowed',
      details: { reason: 'exchange_cap_reached', max_automatic_exchanges: 2 },
    });
  });

  it('a forward re-attaches the original’s attachments but never an executable, and none when asked', () => {
    const over: Partial<SubmitSnapshot> = {
      operation: 'forward',
      targetMessageId: inbound.id,
      target: inbound,
      thread: null,
      body: { kind: 'transactional', to: ['bob@peer.org'], text: 'see below' },
      forwarded: {
        text: 'original',
        attachments: [
          { filename: 'a.pdf', content_type: 'application/pdf', content_base64: 'AA==' },
          { filename: 'run.exe', content_type: 'application/octet-stream', content_base64: 'AA==' },
          { filename: 'x.txt', content_type: 'application/javascript', content_base64: 'AA==' },
        ],
      },
    };
    expect(decided(snapshot(over)).compose.forwardAttachments?.map((a) => a.filename)).toEqual(['a.pdf']);
    expect(decided(snapshot(over)).compose.forward).toMatchObject({ subject: 'Hello', text: 'original' });
    expect(
      decided(snapshot({ ...over, body: { ...over.body!, include_attachments: false } })).compose
        .forwardAttachments,
    ).toEqual([]);
  });

  it('a live domain without transport is held undispatched under unconfigured_transport: "hold"', () => {
    const noTransport: Partial<SubmitSnapshot> = {
      domains: {
        read: new Set(['example.com']),
        found: new Map([['example.com', domain('example.com', { transport: undefined })]]),
      },
    };
    expect(outcome(snapshot(noTransport))).toMatchObject({ code: 'transport_unavailable' });
    const held = decided(
      snapshot({ ...noTransport, tenant: { ...tenant, policy: { unconfigured_transport: 'hold' } } }),
    );
    expect(held.undispatched).toBe(true);
    expect(decided(snapshot()).undispatched).toBeUndefined();
  });

  it('takes the caps from the identity, then the tenant policy', () => {
    expect(
      decided(
        snapshot({
          tenant: { ...tenant, policy: { daily_send_cap: 50, identity_daily_send_cap: 20 } },
          identity: { ...identity, send_policy: { daily_cap: 5 } },
        }),
      ).caps,
    ).toEqual({ tenant: 50, identity: 5 });
  });

  it('a test tenant may send to the simulator and to a directory address', () => {
    const d = decided(
      snapshot({
        tenant: { ...tenant, mode: 'test' },
        body: { kind: 'transactional', to: ['sink@simulator.invalid', 'peer+x@example.com'], text: 'x' },
        directory: {
          read: new Set(['peer@example.com']),
          found: new Map([['peer@example.com', address('peer@example.com', 'active', 'idn_2')]]),
        },
        contacts: { read: new Set(['sink@simulator.invalid', 'peer+x@example.com']), found: new Map() },
        filters: { ...emptyLoads().filters, read: new Set(['sink@simulator.invalid', 'peer+x@example.com']) },
      }),
    );
    expect(d.decisions.every((x) => x.status === 'queued')).toBe(true);
  });
});
