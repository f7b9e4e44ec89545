import { messageNotFound } from '../core/errors.ts';
import { aboutMessage } from '../core/event-access.ts';
import { sha256Hex } from '../core/fingerprint.ts';
import { cancelMessage, resolveMessage, retryMessage } from '../core/message-actions.ts';
import { toApiMessage } from '../core/message-view.ts';
import type { MessageRecord, Tenant } from '../core/model.ts';
import { counterDay } from '../core/quota.ts';
import type { Deps } from '../deps.ts';
import { errorFields } from '../log.ts';
import { auditPut } from '../store/audit-log.store.ts';
import { eventPutItem } from '../store/events.store.ts';
import { completeIdempotencyUpdate } from '../store/idempotency.store.ts';
import { getOutboundMessage, putMessageAtVersion } from '../store/messages.store.ts';
import { releaseSend } from '../store/quota.store.ts';
import { releaseThreadLock } from '../store/threads.store.ts';
import { executionName, startExecution } from './dispatcher.ts';
import { type KeyRef, lookupKey, releaseKey, reserveKey } from './idempotency.ts';

/**
 * Read the message, decide with `decide` (pure; throws the API error; undefined leaves the message
 * as it is), and write the result with `extra` (its event, audit entry) in one transaction on the
 * message version (store/messages.store.ts › putMessageAtVersion). Retried on a lost race.
 */
async function transition(
  deps: Pick<Deps, 'db' | 'clock'>,
  identityId: string,
  messageId: string,
  decide: (m: MessageRecord, now: number) => MessageRecord | undefined,
  extra: (before: MessageRecord, after: MessageRecord, now: number) => unknown[],
): Promise<{ before: MessageRecord; after: MessageRecord; written: boolean }> {
  for (let i = 0; i < 8; i++) {
    const before = await getOutboundMessage(deps.db, identityId, messageId);
    if (!before) throw messageNotFound();
    const now = deps.clock();
    const after = decide(before, now);
    if (!after) return { before, after: before, written: false };
    if (await putMessageAtVersion(deps.db, after, before.version, extra(before, after, now))) {
      return { before, after, written: true };
    }
  }
  throw new Error(`message ${messageId} kept changing`);
}

/** The audit entry of an operator's action on a message. */
function actionAudit(
  deps: Pick<Deps, 'db' | 'newId'>,
  m: MessageRecord,
  entry: { action: string; actor: string; details: Record<string, unknown>; at: number },
) {
  return auditPut(deps.db, { id: deps.newId(), tenant_id: m.tenant_id, message_id: m.id, ...entry });
}

type CancelArgs = { tenant: Tenant; identityId: string; messageId: string; actor: string; reason?: string };

/**
 * Cancel: queued, no claim, nothing submitted → `canceled`; `message.canceled` and an audit
 * entry in the same write; then the thread lock and the day's count are given back. `actor` is the
 * key id, or `system` for the claim-time re-checks.
 */
export async function cancelSend(
  deps: Pick<Deps, 'db' | 'clock' | 'newId' | 'log'>,
  args: CancelArgs,
): Promise<MessageRecord> {
  const reason = args.reason ? { reason: args.reason } : {};
  const { before, after } = await transition(
    deps,
    args.identityId,
    args.messageId,
    (m, now) => cancelMessage(m, now, args.reason),
    (m, _after, now) => [
      eventPutItem(
        deps.db,
        {
          id: `evt_${deps.newId()}`,
          type: 'message.canceled',
          tenant_id: m.tenant_id,
          created_at: now,
          data: { ...aboutMessage(m), ...reason },
        },
        now,
      ),
      actionAudit(deps, m, { action: 'message.cancel', actor: args.actor, details: reason, at: now }),
    ],
  );
  if (before.holds_lock) await releaseThreadLock(deps.db, before.identity_id, before.thread_id, before.id);
  await giveBackDailyCount(deps, args.tenant, before);
  return after;
}

/**
 * A canceled message's count given back on exactly the day submit took it (`quota_day`: a send
 * near midnight may be counted on the day after its created_at; a message without one falls back
 * to created_at). A failure is logged: the count errs towards refusing.
 */
async function giveBackDailyCount(deps: Pick<Deps, 'db' | 'log'>, tenant: Tenant, m: MessageRecord) {
  try {
    const day = m.quota_day ?? counterDay(m.created_at, tenant.timezone).day;
    await releaseSend(deps.db, {
      tenantId: tenant.id,
      identityId: m.identity_id,
      day,
      now: m.created_at,
      daily: true,
      rate: false,
    });
  } catch (err) {
    deps.log.error('daily count release failed', { message_id: m.id, ...errorFields(err) });
  }
}

/** The Idempotency-Key of a resolve lives in the identity's key space under its own operation. */
const resolveKeyHash = (key: string) => sha256Hex(`resolve\n${key}`);

export type ResolveAnswer = { body: unknown; replayed: boolean };

type ResolveArgs = {
  identityId: string;
  messageId: string;
  outcome: 'sent' | 'not_sent';
  actor: string;
  idempotencyKey?: string;
  requestId: string;
};

/** A resolve's Idempotency-Key (when it has one), held by this request. */
type ResolveKey = KeyRef & { owner: string };

/**
 * Resolve (docs/guides/sending.md), with an optional Idempotency-Key: the same key and body replay the first
 * answer; the key with another body is `idempotency_conflict`. The key is completed in the
 * resolve's own transaction, and given back when the resolve fails.
 */
export async function resolveSend(
  deps: Pick<Deps, 'db' | 'clock' | 'newId' | 'log'>,
  args: ResolveArgs,
): Promise<ResolveAnswer> {
  const key: ResolveKey | undefined =
    args.idempotencyKey === undefined
      ? undefined
      : {
          identityId: args.identityId,
          keyHash: resolveKeyHash(args.idempotencyKey),
          fingerprint: sha256Hex(`resolve\n${args.messageId}\n${args.outcome}`),
          owner: args.requestId,
        };
  if (key) {
    const seen = await lookupKey(deps, key);
    if (seen !== undefined) return { body: JSON.parse(seen), replayed: true };
    const raced = await reserveKey(deps, { ...key, operation: 'resolve' });
    if (raced.type === 'replay') return { body: JSON.parse(raced.response), replayed: true };
  }
  try {
    const { after } = await transition(
      deps,
      args.identityId,
      args.messageId,
      (m, now) => resolveMessage(m, args.outcome, now),
      (m, next, now) => resolveItems(deps, args, key, m, next, now),
    );
    return { body: toApiMessage(after), replayed: false };
  } catch (err) {
    if (key) await releaseKey(deps, key, key.owner);
    throw err;
  }
}

/** What a resolve writes with the message: its event, its audit entry, and its key's answer. */
function resolveItems(
  deps: Pick<Deps, 'db' | 'newId'>,
  args: ResolveArgs,
  key: ResolveKey | undefined,
  m: MessageRecord,
  next: MessageRecord,
  now: number,
): unknown[] {
  const sent = args.outcome === 'sent';
  return [
    eventPutItem(
      deps.db,
      {
        id: `evt_${deps.newId()}`,
        type: sent ? 'message.sent' : 'message.failed',
        tenant_id: m.tenant_id,
        created_at: now,
        data: sent
          ? { ...aboutMessage(m), provider_message_id: null, resolved: true }
          : { ...aboutMessage(m), reason: 'resolved_not_sent' },
      },
      now,
    ),
    actionAudit(deps, m, {
      action: 'message.resolve',
      actor: args.actor,
      details: { outcome: args.outcome },
      at: now,
    }),
    ...(key
      ? [
          completeIdempotencyUpdate(deps.db, {
            identityId: args.identityId,
            keyHash: key.keyHash,
            owner: key.owner,
            messageId: m.id,
            response: JSON.stringify(toApiMessage(next)),
            now,
          }),
        ]
      : []),
  ];
}

/**
 * POST …/messages/{id}/retry: core/message-actions.ts › retryMessage decides; the re-queued message
 * (naming its next execution) and the audit entry are one transaction on the message's version, so
 * of two racing retries one writes and the other reads the message again and answers its state.
 * The execution is started after the write; if that start fails the message waits queued with its
 * dispatch and the sweeper starts it (docs/architecture.md › The send machines).
 */
export async function retrySend(
  deps: Pick<Deps, 'db' | 'clock' | 'newId' | 'log' | 'dispatcher'>,
  args: { identityId: string; messageId: string; actor: string },
): Promise<MessageRecord> {
  const out = await transition(
    deps,
    args.identityId,
    args.messageId,
    (m, now) => {
      const decision = retryMessage(m, now, (n) => executionName(m.id, n));
      return decision.type === 'current' ? undefined : decision.message;
    },
    (before, after, now) => [
      actionAudit(deps, before, {
        action: 'message.retry',
        actor: args.actor,
        details: { failure: before.status_reason ?? null, execution: after.dispatch!.execution },
        at: now,
      }),
    ],
  );
  if (!out.written) return out.before;
  try {
    await startExecution(deps.dispatcher, out.after);
  } catch (err) {
    deps.log.error('dispatch failed; the sweeper will retry', {
      message_id: out.after.id,
      ...errorFields(err),
    });
  }
  return out.after;
}
