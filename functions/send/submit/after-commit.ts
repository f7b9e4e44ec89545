import type { MessageRecord } from '../../core/model.ts';
import { counterDay, crossedThresholds } from '../../core/quota.ts';
import { canonicalAddress } from '../../core/suppressions.ts';
import type { Deps } from '../../deps.ts';
import { errorFields } from '../../log.ts';
import { countOutbound } from '../../store/contacts.store.ts';
import { appendEvent } from '../../store/events.store.ts';
import { markWarned } from '../../store/quota.store.ts';
import { startExecution } from '../dispatcher.ts';
import type { QuotaCounts } from './count.ts';
import type { Decided } from './decide.ts';
import type { Locked } from './lock.ts';

/** Start the execution the message names; a failure leaves it to the sweeper. */
export async function startDispatch(
  deps: Pick<Deps, 'dispatcher' | 'log'>,
  message: MessageRecord,
): Promise<void> {
  try {
    await startExecution(deps.dispatcher, message);
  } catch (err) {
    deps.log.error('dispatch failed; the sweeper will retry', {
      message_id: message.id,
      ...errorFields(err),
    });
  }
}

type AfterCommitArgs = Pick<Decided, 'tenant' | 'identity'> & Locked & { quota?: QuotaCounts };

/**
 * After commit: start the execution the message names (if that fails the message stays queued and
 * the sweeper dispatches it), count the contacts, emit quota warnings once per scope, threshold and
 * day. None of these can undo the accepted send.
 */
export async function afterCommit(
  deps: Pick<Deps, 'db' | 'clock' | 'dispatcher' | 'log' | 'newId'>,
  args: AfterCommitArgs,
): Promise<void> {
  const { identity, message, prepared } = args;
  if (message.status === 'queued') await startDispatch(deps, message);
  // A send waiting for approval makes no contact: its approval counts them (send/approval.ts).
  if (message.status === 'pending_approval') return;
  // A contact is written when it changes: a recipient already known (outbound_count > 0, read by
  // the pipeline) is not written again; only whether one was ever sent to is read. An
  // unconditional count (docs/lost-answers.md): never sent twice; a lost answer is logged, and the
  // next send to an address whose count it did not reach finds it at zero and writes it then.
  const queued = (message.deliveries ?? [])
    .filter((d) => d.status === 'queued')
    .map((d) => d.address)
    .filter((a) => (prepared.contacts.get(canonicalAddress(a))?.outbound_count ?? 0) <= 0);
  const side: Promise<unknown>[] = [
    ...countOutbound(deps.db, identity.id, queued, message.created_at),
    ...(args.quota ? quotaWarnings(deps, args, args.quota) : []),
  ];
  const results = await Promise.allSettled(side);
  for (const r of results) {
    if (r.status === 'rejected')
      deps.log.error('after-commit step failed', { message_id: message.id, ...errorFields(r.reason) });
  }
}

/** A `quota.warning` for each threshold this send's count crossed, once per scope, threshold and day. */
function quotaWarnings(
  deps: Pick<Deps, 'db' | 'clock' | 'newId'>,
  args: AfterCommitArgs,
  counts: QuotaCounts,
): Promise<unknown>[] {
  const { tenant, identity, message, prepared } = args;
  const { before, after } = counts;
  const { day, expiresAt } = counterDay(message.created_at, tenant.timezone);
  const scopes = [
    {
      scope: `identity:${identity.id}`,
      from: before.identity,
      to: after.identity,
      cap: prepared.caps.identity,
    },
    // The tenant's warnings follow its allowance leased to identities (it moves by blocks).
    { scope: 'tenant', from: before.tenant, to: after.tenant, cap: prepared.caps.tenant },
  ];
  const warning = (scope: string, threshold: number, cap: number) => ({
    id: `evt_${deps.newId()}`,
    type: 'quota.warning',
    tenant_id: tenant.id,
    created_at: message.created_at,
    data: {
      scope: scope.split(':')[0],
      identity_id: scope.startsWith('identity') ? identity.id : null,
      metric: 'sends',
      threshold,
      cap,
      day,
    },
  });
  return scopes.flatMap(({ scope, from, to, cap }) =>
    crossedThresholds(from, to, cap).map((threshold) =>
      markWarned(deps.db, { tenantId: tenant.id, day, scope, threshold, expiresAt }).then((first) =>
        first ? appendEvent(deps.db, warning(scope, threshold, cap), deps.clock()) : false,
      ),
    ),
  );
}
