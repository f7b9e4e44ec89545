import { describe, expect, it } from 'vitest';
import type { MessageRecord } from '../../functions/core/model.ts';
import {
  decideRecord,
  type RecordContext,
  recordsUnder,
  senderStop,
} from '../../functions/core/send-attempt.ts';
import type { TransportResult } from '../../functions/core/transport-result.ts';
import { outboundMessage } from '../support/records.ts';

/** The attempt's pure decisions (core/send-attempt.ts): Claim's sender re-check and Record's write, row by row. */
const message = (over: Partial<MessageRecord> = {}) =>
  outboundMessage({
    id: 'msg_01',
    status: 'queued',
    claim: { token: 'mine', at: 0, sending: true },
    deliveries: [{ address: 'r@example.net', field: 'to', status: 'queued', updated_at: 0 }],
    dispatch: { execution: 'msg_01-d1', at: 0, n: 1 },
    ...over,
  });

const accepted: TransportResult = {
  type: 'accepted',
  provider: 'ses',
  provider_message_id: 'p1',
  refused: [],
  deferred: [],
};
const later: TransportResult = { type: 'retry_later', class: 'RateLimit', code: '454', refused: [] };
const context = (over: Partial<RecordContext> = {}): RecordContext => ({
  claim: { token: 'mine' },
  result: accepted,
  now: 1_000,
  jitter: 0,
  ...over,
});

describe('decideRecord', () => {
  it.each<[string, MessageRecord, RecordContext, 'done' | 'wait' | 'start', string | undefined, string]>([
    ['own claim, accepted', message(), context(), 'done', undefined, 'submitted'],
    [
      'own claim, back-off under a parent',
      message(),
      context({ result: later, parent: 'msg_01-s1' }),
      'wait',
      'msg_01-s1',
      'queued',
    ],
    [
      'own claim, back-off, the parent hands off',
      message(),
      context({ result: later, parent: 'msg_01-s1', handOff: true }),
      'start',
      'msg_01-s2',
      'queued',
    ],
    ['own claim, back-off, no parent', message(), context({ result: later }), 'start', 'msg_01-s2', 'queued'],
  ])('%s → %s', (_name, m, c, result, execution, status) => {
    const out = decideRecord(m, c);
    expect(out.result).toBe(result);
    expect(out.next?.status).toBe(status);
    expect(out.next?.claim).toBeUndefined();
    expect(out.next?.recorded?.token).toBe('mine');
    expect(out.next?.recorded?.next).toBe(result);
    if (execution) expect(out.next?.dispatch?.execution).toBe(execution);
  });

  it.each<[string, MessageRecord, 'done' | 'wait' | 'start']>([
    ['another execution’s claim', message({ claim: { token: 'other', at: 0, sending: true } }), 'done'],
    [
      'recorded by this token already (a retry): its answer again',
      message({ claim: undefined, recorded: { token: 'mine', next: 'wait', seconds: 10 } }),
      'wait',
    ],
    [
      'recorded by another token',
      message({ claim: undefined, recorded: { token: 'other', next: 'start' } }),
      'done',
    ],
    ['no claim, the transport ran (not Claim’s own result)', message({ claim: undefined }), 'done'],
  ])('%s → no write, %s', (_name, m, result) => {
    const out = decideRecord(m, context());
    expect(out).toEqual({ result });
  });
});

describe('recordsUnder', () => {
  it.each<[string, MessageRecord, { token: string; provider?: string }, boolean]>([
    ['its own claim', message(), { token: 'mine' }, true],
    ['another’s claim', message({ claim: { token: 'other', at: 0 } }), { token: 'mine' }, false],
    [
      'recorded by this token',
      message({ claim: undefined, recorded: { token: 'mine', next: 'done' } }),
      { token: 'mine', provider: 'none' },
      false,
    ],
    [
      'Claim’s own result, queued without a claim',
      message({ claim: undefined }),
      { token: 'mine', provider: 'none' },
      true,
    ],
    [
      'Claim’s own result, another claim on it',
      message({ claim: { token: 'other', at: 900 } }),
      { token: 'mine', provider: 'none' },
      false,
    ],
    [
      'Claim’s own result, no longer queued',
      message({ claim: undefined, status: 'canceled' }),
      { token: 'mine', provider: 'none' },
      false,
    ],
  ])('%s → %s', (_name, m, claim, expected) => {
    expect(recordsUnder(m, claim, 1_000)).toBe(expected);
  });
});

describe('senderStop', () => {
  it.each<[string, { status: string } | undefined, { status: string } | undefined, string | undefined]>([
    ['both active', { status: 'active' }, { status: 'active' }, undefined],
    ['tenant suspended', { status: 'suspended' }, { status: 'active' }, 'tenant_suspended'],
    ['tenant suspended, identity paused', { status: 'suspended' }, { status: 'paused' }, 'tenant_suspended'],
    ['no tenant', undefined, { status: 'active' }, 'tenant_suspended'],
    ['identity paused', { status: 'active' }, { status: 'paused' }, 'identity_paused'],
    ['identity being deleted', { status: 'active' }, { status: 'deleting' }, 'identity_deleting'],
    ['no identity', { status: 'active' }, undefined, 'identity_deleted'],
  ])('%s → %s', (_name, tenant, identity, expected) => {
    expect(senderStop(tenant, identity)).toBe(expected);
  });
});
