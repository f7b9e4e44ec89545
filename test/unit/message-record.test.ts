import { describe, expect, it } from 'vitest';
import {
  type ComposedSend,
  type MessageRecordInput,
  messageRecord,
} from '../../functions/core/message-record.ts';

/**
 * The message record an accepted send is born with (core/message-record.ts), as a table: each row
 * changes the composed send or the request, and names the fields that decide what follows (status,
 * dispatch, lock, the MIME object's number, the counted day). No table, no clock.
 */

const NOW = Date.UTC(2026, 11, 3, 12);
const send: ComposedSend = {
  messageId: 'msg_01',
  threadId: 'thr_01',
  threaded: false,
  recipients: [
    { address: 'a@example.com', field: 'to', name: 'A' },
    { address: 'b@example.com', field: 'cc', typed: 'B@Example.com' },
  ],
  decisions: [
    { status: 'queued', address: 'a@example.com' },
    { status: 'queued', address: 'b@example.com' },
  ],
  from: { address: 'agent@example.com' },
  subject: 'Hi',
  hop: 0,
  compose: { rfcMessageId: '<m@example.com>', now: NOW - 5 },
  mime: { length: 42 },
};
const base: MessageRecordInput = {
  tenantId: 'ten_1',
  identityId: 'idn_1',
  operation: 'send',
  body: { kind: 'transactional' },
  send,
  attempt: 0,
  rawKey: 't/ten_1/i/idn_1/out/msg_01.eml',
  now: NOW,
  pending: false,
};
const suppressed = {
  status: 'suppressed' as const,
  reason: 'send_block' as const,
  smtp_response: '550',
};

const rows: [
  string,
  Partial<MessageRecordInput> & { sendOf?: Partial<ComposedSend> },
  Record<string, unknown>,
][] = [
  [
    'a queued send: dispatched now, no lock, no MIME number',
    {},
    {
      status: 'queued',
      dispatch: { execution: expect.any(String), at: NOW, n: 1 },
      holds_lock: undefined,
      raw_n: undefined,
      quota_day: undefined,
    },
  ],
  [
    'a scheduled send: dispatched for its send_at',
    { body: { kind: 'transactional', send_at: new Date(NOW + 60_000).toISOString() } },
    {
      status: 'queued',
      send_at: NOW + 60_000,
      dispatch: { execution: expect.any(String), at: NOW + 60_000, n: 1 },
    },
  ],
  [
    'a threaded queued send holds the lock',
    { sendOf: { threaded: true } },
    { status: 'queued', holds_lock: true },
  ],
  ['a takeover writes its own MIME object', { attempt: 2 }, { raw_n: 2 }],
  ['a counted send stores its day', { quotaDay: '2026-12-03' }, { quota_day: '2026-12-03' }],
  [
    'every recipient suppressed: born suppressed, not dispatched',
    {
      sendOf: {
        threaded: true,
        decisions: [
          { ...suppressed, address: 'a@example.com' },
          { ...suppressed, address: 'b@example.com' },
        ],
      },
    },
    { status: 'suppressed', dispatch: undefined, holds_lock: undefined },
  ],
  [
    'waiting for approval: not dispatched',
    { pending: true },
    { status: 'pending_approval', dispatch: undefined },
  ],
  [
    'held undispatched: not dispatched',
    { sendOf: { undispatched: true } },
    { status: 'undispatched', dispatch: undefined },
  ],
];

describe('messageRecord', () => {
  it.each(rows)('%s', (_name, change, expected) => {
    const { sendOf, ...rest } = change;
    const m = messageRecord({ ...base, ...rest, send: { ...send, ...sendOf } });
    expect(m).toMatchObject(Object.fromEntries(Object.entries(expected).filter(([, v]) => v !== undefined)));
    for (const [k, v] of Object.entries(expected))
      if (v === undefined) expect(m).not.toHaveProperty(k, expect.anything());
  });

  it('keeps each recipient by field, the typed address and a suppression reason', () => {
    const m = messageRecord({
      ...base,
      send: { ...send, decisions: [send.decisions[0], { ...suppressed, address: 'b@example.com' }] },
    });
    expect(m.to).toEqual([{ address: 'a@example.com', name: 'A' }]);
    expect(m.cc).toEqual([{ address: 'b@example.com' }]);
    expect(m.deliveries).toEqual([
      { address: 'a@example.com', field: 'to', status: 'queued', updated_at: NOW },
      {
        address: 'b@example.com',
        typed_address: 'B@Example.com',
        field: 'cc',
        status: 'suppressed',
        smtp_response: '550',
        updated_at: NOW,
      },
    ]);
    expect(m).toMatchObject({ created_at: NOW - 5, updated_at: NOW, raw_size: 42, raw_key: base.rawKey });
  });

  it('keeps a template send’s template and variables', () => {
    const rendered_template = { name: 'welcome', version: 3, category: 'transactional' };
    const m = messageRecord({
      ...base,
      body: { kind: 'transactional', rendered_template, variables: { n: 1 } } as MessageRecordInput['body'],
    });
    expect(m).toMatchObject({ template: rendered_template, template_variables: { n: 1 } });
  });
});
