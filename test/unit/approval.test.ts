import { describe, expect, it } from 'vitest';
import {
  alwaysNeedsApproval,
  approvalNeeded,
  approveMessage,
  REJECTED_BY_REVIEWER,
  refuseAtApproval,
  rejectMessage,
} from '../../functions/core/approval.ts';
import { bornStatus } from '../../functions/core/enqueue.ts';
import { PmailError } from '../../functions/core/errors.ts';
import { permissionsOf } from '../../functions/core/keys.ts';
import type { MessageStatus } from '../../functions/core/model.ts';
import { outboundMessage } from '../support/records.ts';

/** core/approval.ts as tables: who waits, what each decision leaves, and what it refuses. */
const NOW = Date.UTC(2030, 0, 1, 12);
const pending = (over = {}) => outboundMessage({ status: 'pending_approval', version: 3, ...over });
const executionFor = (n: number, scheduled: boolean) => `msg_1-${scheduled ? 's' : 'd'}${n}`;
const thrown = (f: () => unknown) => {
  try {
    f();
  } catch (err) {
    return err as PmailError;
  }
  throw new Error('did not throw');
};

describe('who waits for approval', () => {
  it.each([
    [undefined, false],
    [{}, false],
    [{ require_approval: false }, false],
    [{ require_approval: true }, true],
    [{ require_approval: true, daily_cap: 5 }, true],
  ])('send_policy %j → %s', (policy, waits) => {
    expect(alwaysNeedsApproval({ send_policy: policy }) !== undefined).toBe(waits);
  });

  const known = { inbound_count: 0, authenticated_inbound_count: 0, outbound_count: 1 };
  const spoofedOnly = { inbound_count: 3, authenticated_inbound_count: 0, outbound_count: 0 };
  const contacts = new Map([
    ['known@example.com', known],
    ['spoofed@example.com', spoofedOnly],
  ]);
  it.each([
    // [send_policy, draft-only key, recipients, why it waits]
    [{}, false, ['new@example.com'], undefined],
    [{}, true, ['known@example.com'], 'key'],
    [{ require_approval: false }, true, ['known@example.com'], 'key'],
    [{ require_approval: true }, false, ['known@example.com'], 'identity_policy'],
    [{ require_approval: 'first_contact' }, false, ['Known@Example.com'], undefined],
    [{ require_approval: 'first_contact' }, false, ['known@example.com', 'new@example.com'], 'first_contact'],
    // Unauthenticated mail from an address makes no contact of it.
    [{ require_approval: 'first_contact' }, false, ['spoofed@example.com'], 'first_contact'],
    [{ require_approval: 'first_contact' }, true, ['known@example.com'], 'key'],
  ] as const)('send_policy %j, draft-only %s, to %j → %s', (policy, draft, to, why) => {
    expect(
      approvalNeeded({ send_policy: policy as never }, { sends_need_approval: draft }, to, contacts),
    ).toBe(why);
  });

  it.each([
    [['queued'], false, false, 'queued'],
    [['queued'], false, true, 'pending_approval'],
    [['queued'], true, true, 'pending_approval'],
    [['suppressed'], false, true, 'suppressed'],
    [['queued', 'suppressed'], false, true, 'pending_approval'],
    [['queued'], true, false, 'undispatched'],
  ] as const)('born with %j, undispatched %s, approval %s → %s', (decisions, held, approval, status) => {
    expect(
      bornStatus(
        decisions.map((d) => ({ status: d })),
        held,
        approval,
      ),
    ).toBe(status);
  });

  it('an identity key never holds messages:approve by default; tenant and platform keys do', () => {
    expect(permissionsOf('identity')).not.toContain('messages:approve');
    expect(permissionsOf('tenant')).toContain('messages:approve');
    expect(permissionsOf('platform')).toContain('messages:approve');
  });
});

describe('approve', () => {
  it.each([
    ['now', undefined, false, { status: 'queued', dispatch: { execution: 'msg_1-d1', at: NOW, n: 1 } }],
    [
      'scheduled ahead',
      NOW + 3600_000,
      false,
      { status: 'queued', dispatch: { execution: 'msg_1-s1', at: NOW + 3600_000, n: 1 } },
    ],
    [
      'scheduled time passed while pending',
      NOW - 1,
      false,
      { status: 'queued', dispatch: { execution: 'msg_1-d1', at: NOW, n: 1 } },
    ],
    ['held for a transport', undefined, true, { status: 'undispatched', dispatch: undefined }],
  ])('%s → %j', (_name, sendAt, hold, expected) => {
    const m = approveMessage(pending(sendAt ? { send_at: sendAt } : {}), NOW, {
      quotaDay: '2030-01-01',
      hold,
      executionFor,
    });
    expect(m).toMatchObject({ ...expected, quota_day: '2030-01-01', version: 4, updated_at: NOW });
  });
});

describe('every decision needs a pending message', () => {
  const statuses: MessageStatus[] = ['queued', 'submitted', 'delivered', 'canceled', 'failed', 'uncertain'];
  const decisions = {
    approve: (m: ReturnType<typeof pending>) =>
      approveMessage(m, NOW, { quotaDay: 'd', hold: false, executionFor }),
    reject: (m: ReturnType<typeof pending>) => rejectMessage(m, NOW),
    refuse: (m: ReturnType<typeof pending>) =>
      refuseAtApproval(m, new PmailError('daily_cap_reached', 'cap'), NOW),
  };
  for (const [name, decide] of Object.entries(decisions)) {
    it.each(statuses)(`${name} on %s → 409 not_pending_approval with the state`, (status) => {
      const err = thrown(() => decide(pending({ status, status_reason: 'x' })));
      expect(err.code).toBe('not_pending_approval');
      expect(err.details).toEqual({ status, status_reason: 'x' });
    });
  }

  it('reject → canceled rejected_by_reviewer; a refusal → failed with its code', () => {
    expect(rejectMessage(pending(), NOW)).toMatchObject({
      status: 'canceled',
      status_reason: REJECTED_BY_REVIEWER,
      version: 4,
    });
    expect(refuseAtApproval(pending(), new PmailError('identity_paused', 'paused'), NOW)).toMatchObject({
      status: 'failed',
      status_reason: 'identity_paused',
      status_at: NOW,
      version: 4,
    });
  });
});
