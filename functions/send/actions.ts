import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { messageNotFound } from '../core/errors.ts';
import { sha256Hex } from '../core/fingerprint.ts';
import { isId } from '../core/ids.ts';
import { cancelMessage, resolveMessage, retryMessage } from '../core/message-actions.ts';
import { toApiMessage } from '../core/message-view.ts';
import type { MessageRecord, Tenant } from '../core/model.ts';
import { localDay } from '../core/quota.ts';
import type { Deps } from '../deps.ts';
import { errorFields } from '../log.ts';
import { auditPut } from '../store/audit-log.store.ts';
import { failedConditions } from '../store/db.ts';
import { eventPutItem } from '../store/events.store.ts';
import { completeIdempotencyUpdate } from '../store/idempotency.store.ts';
import { getMessage, messagePutItem } from '../store/messages.store.ts';
import { releaseSend } from '../store/quota.store.ts';
import { releaseThreadLock } from '../store/threads.store.ts';
import { executionName, startExecution } from './dispatcher.ts';
import { lookupKey, releaseKey, reserveKey } from './idempotency.ts';

/**
 * Read the message, decide with `decide` (pure; throws the API error), and write the result with its
 * event and audit entry in one transaction on the message version. Retried on a lost race.
 */
async function transition(
  deps: Deps,
  identityId: string,
  messageId: string,
  decide: (m: MessageRecord, now: number) => MessageRecord,
  extra: (before: MessageRecord, after: MessageRecord, now: number) => unknown[],
): Promise<{ before: MessageRecord; after: MessageRecord }> {
  for (let i = 0; i < 8; i++) {
    const before = isId('message', messageId)
      ? await getMessage(deps.db, identityId, messageId, true)
      : undefined;
    if (before?.direction !== 'outbound') {
      throw messageNotFound();
    }
    const now = deps.clock();
    const after = decide(before, now);
    try {
      await deps.db.doc.send(
        new TransactWriteCommand({
          TransactItems: [
            messagePutItem(deps.db, after, before.version),
            ...extra(before, after, now),
          ] as never,
        }),
      );
      return { before, after };
    } catch (err) {
      // [message, ...extra]: only a lost race on the message's version is retried.
      if (!failedConditions(err, ['message'] as const).has('message')) throw err;
    }
  }
  throw new Error(`message ${messageId} kept changing`);
}

/**
 * Cancel: queued, no claim, nothing submitted → `canceled`; `message.canceled` and an audit
 * entry in the same write; then the thread lock and the day's count are given back. `actor` is the
 * key id, or `system` for the claim-time re-checks.
 */
export async function cancelSend(
  deps: Deps,
  args: { tenant: Tenant; identityId: string; messageId: string; actor: string; reason?: string },
): Promise<MessageRecord> {
  const { before, after } = await transition(
    deps,
    args.identityId,
    args.messageId,
    (m, now) => cancelMessage(m, now),
    (m, _after, now) => [
      eventPutItem(deps.db, {
        id: `evt_${deps.newId()}`,
        type: 'message.canceled',
        tenant_id: m.tenant_id,
        created_at: now,
        data: {
          message_id: m.id,
          identity_id: m.identity_id,
          ...(args.reason ? { reason: args.reason } : {}),
        },
      }),
      auditPut(deps.db, {
        id: deps.newId(),
        tenant_id: m.tenant_id,
        action: 'message.cancel',
        actor: args.actor,
        message_id: m.id,
        details: args.reason ? { reason: args.reason } : {},
        at: now,
      }),
    ],
  );
  if (before.holds_lock) await releaseThreadLock(deps.db, before.identity_id, before.thread_id, before.id);
  try {
    // Exactly the day whose count submit took (a send near midnight may have been counted on the
    // day after its created_at); messages stored before quota_day existed fall back to created_at.
    const day = before.quota_day ?? localDay(before.created_at, args.tenant.timezone || 'UTC');
    await releaseSend(deps.db, {
      tenantId: args.tenant.id,
      identityId: before.identity_id,
      day,
      now: before.created_at,
      daily: true,
      rate: false,
    });
  } catch (err) {
    deps.log.error('daily count release failed', { message_id: before.id, ...errorFields(err) });
  }
  return after;
}

/** The Idempotency-Key of a resolve lives in the identity's key space under its own operation. */
const resolveKeyHash = (key: string) => sha256Hex(`resolve\n${key}`);

export type ResolveAnswer = { body: unknown; replayed: boolean };

/**
 * Resolve (docs/guides/sending.md), with an optional Idempotency-Key: the same key and body replay the first
 * answer; the key with another body is `idempotency_conflict`.
 */
export async function resolveSend(
  deps: Deps,
  args: {
    identityId: string;
    messageId: string;
    outcome: 'sent' | 'not_sent';
    actor: string;
    idempotencyKey?: string;
    requestId: string;
  },
): Promise<ResolveAnswer> {
  const fingerprint = sha256Hex(`resolve\n${args.messageId}\n${args.outcome}`);
  const keyHash = args.idempotencyKey === undefined ? undefined : resolveKeyHash(args.idempotencyKey);
  const owner = args.requestId;
  const ref = keyHash ? { identityId: args.identityId, keyHash, fingerprint } : undefined;
  if (ref) {
    const seen = await lookupKey(deps, ref);
    if (seen !== undefined) return { body: JSON.parse(seen), replayed: true };
    const raced = await reserveKey(deps, { ...ref, operation: 'resolve', owner });
    if (raced.type === 'replay') return { body: JSON.parse(raced.response), replayed: true };
  }
  try {
    const { after } = await transition(
      deps,
      args.identityId,
      args.messageId,
      (m, now) => resolveMessage(m, args.outcome, now),
      (m, next, now) => [
        eventPutItem(deps.db, {
          id: `evt_${deps.newId()}`,
          type: args.outcome === 'sent' ? 'message.sent' : 'message.failed',
          tenant_id: m.tenant_id,
          created_at: now,
          data:
            args.outcome === 'sent'
              ? { message_id: m.id, identity_id: m.identity_id, provider_message_id: null, resolved: true }
              : { message_id: m.id, identity_id: m.identity_id, reason: 'resolved_not_sent' },
        }),
        auditPut(deps.db, {
          id: deps.newId(),
          tenant_id: m.tenant_id,
          action: 'message.resolve',
          actor: args.actor,
          message_id: m.id,
          details: { outcome: args.outcome },
          at: now,
        }),
        ...(keyHash
          ? [
              completeIdempotencyUpdate(deps.db, {
                identityId: args.identityId,
                keyHash,
                owner,
                messageId: m.id,
                response: JSON.stringify(toApiMessage(next)),
                now,
              }),
            ]
          : []),
      ],
    );
    return { body: toApiMessage(after), replayed: false };
  } catch (err) {
    if (ref) await releaseKey(deps, ref, owner);
    throw err;
  }
}

/**
 * POST …/messages/{id}/retry: core/message-actions.ts › retryMessage decides; the re-queued message
 * (naming its next execution) and the audit entry are one transaction on the message's version, so
 * of two racing retries one writes and the other reads the message again and answers its state.
 * The execution is started after the write; if that start fails the message waits queued with its
 * dispatch and the sweeper starts it (docs/architecture.md › The send machines).
 */
export async function retrySend(
  deps: Deps,
  args: { identityId: string; messageId: string; actor: string },
): Promise<MessageRecord> {
  for (let i = 0; i < 8; i++) {
    const before = isId('message', args.messageId)
      ? await getMessage(deps.db, args.identityId, args.messageId, true)
      : undefined;
    if (before?.direction !== 'outbound') {
      throw messageNotFound();
    }
    const now = deps.clock();
    const decision = retryMessage(before, now, (n) => executionName(before.id, n));
    if (decision.type === 'current') return before;
    const after = decision.message;
    try {
      await deps.db.doc.send(
        new TransactWriteCommand({
          TransactItems: [
            messagePutItem(deps.db, after, before.version),
            auditPut(deps.db, {
              id: deps.newId(),
              tenant_id: before.tenant_id,
              action: 'message.retry',
              actor: args.actor,
              message_id: before.id,
              details: { failure: before.status_reason ?? null, execution: after.dispatch!.execution },
              at: now,
            }),
          ] as never,
        }),
      );
    } catch (err) {
      if (!failedConditions(err, ['message'] as const).has('message')) throw err;
      continue;
    }
    try {
      await startExecution(deps.dispatcher, after);
    } catch (err) {
      deps.log.error('dispatch failed; the sweeper will retry', {
        message_id: after.id,
        ...errorFields(err),
      });
    }
    return after;
  }
  throw new Error(`message ${args.messageId} kept changing`);
}
