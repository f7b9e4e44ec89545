import type { AbuseMetrics } from '../core/abuse.ts';
import { type Db, isConditionFailed, writeToken } from './db.ts';
import { changeIdentityStatus } from './identity-status.store.ts';
import { mayHaveApplied } from './messages.store.ts';

/**
 * The per-identity outcome window of abuse auto-pause (docs/architecture.md › Items and their keys:
 * `I#{idn}` / `OW`): one compact item, updated read–modify–write under a version check.
 */
const windowKey = (identityId: string) => ({ pk: `I#${identityId}`, sk: 'OW' });

/**
 * How many of the last writes the window remembers by their token (`wts`): enough that a write
 * whose answer was lost is still named when it is read back a moment later, though other outcomes
 * of the identity landed in between.
 */
export const WINDOW_WRITERS = 8;

/** How often one outcome's write is sent while each answer is lost. */
const WINDOW_SENDS = 3;

/**
 * Push one outcome into the identity's window, read–modify–write under a version check. An owned
 * transition (docs/lost-answers.md) whose owner is the write itself: each put carries a token of its
 * own and keeps the last WINDOW_WRITERS tokens on the item, so when its answer is lost (in the table
 * client's retry or outside it) the window read again says whether it landed: its token there, the outcome
 * is in; absent, it is pushed again on the window as it is now. An outcome is counted once.
 */
export async function updateOutcomeWindow(
  db: Db,
  identityId: string,
  /** The window after this outcome, or undefined to leave it unwritten (core/abuse.ts › outcomeMatters). */
  next: (window: string) => string | undefined,
  now: number,
): Promise<string> {
  const token = writeToken();
  let lost = 0;
  for (let i = 0; i < 8; i++) {
    const out = await db.get({ TableName: db.table, Key: windowKey(identityId), ConsistentRead: true });
    const version = (out.Item?.version as number | undefined) ?? 0;
    const current = (out.Item?.outcomes as string | undefined) ?? '';
    const writers = (out.Item?.wts as string[] | undefined) ?? [];
    // The write whose answer was lost landed: the window read is the one it wrote, or later.
    if (lost > 0 && writers.includes(token)) return current;
    const window = next(current);
    if (window === undefined) return current;
    try {
      await db.put({
        TableName: db.table,
        Item: {
          ...windowKey(identityId),
          type: 'outcome_window',
          outcomes: window,
          version: version + 1,
          wts: [...writers, token].slice(-WINDOW_WRITERS),
          updated_at: now,
        },
        ConditionExpression: version === 0 ? 'attribute_not_exists(pk)' : 'version = :v',
        ...(version === 0 ? {} : { ExpressionAttributeValues: { ':v': version } }),
      });
      return window;
    } catch (err) {
      if (isConditionFailed(err)) continue;
      if (!mayHaveApplied(err) || ++lost >= WINDOW_SENDS) throw err;
    }
  }
  throw new Error('the outcome window kept changing');
}

/**
 * Abuse auto-pause: `status = paused` (pause_reason abuse_threshold) only from active,
 * and only then the identity.paused event and the audit entry — all three in one transaction.
 * Returns whether this call paused the identity.
 */
export function autoPauseIdentity(
  db: Db,
  args: {
    tenantId: string;
    identityId: string;
    now: number;
    eventId: string;
    auditId: string;
    metrics: AbuseMetrics;
  },
): Promise<boolean> {
  return changeIdentityStatus(db, {
    tenantId: args.tenantId,
    identityId: args.identityId,
    from: 'active',
    to: 'paused',
    reason: 'abuse_threshold',
    now: args.now,
    event: {
      id: args.eventId,
      type: 'identity.paused',
      data: { identity_id: args.identityId, reason: 'abuse_threshold', metrics: args.metrics },
    },
    audit: {
      id: args.auditId,
      action: 'identity.auto_pause',
      actor: 'system',
      details: { reason: 'abuse_threshold', metrics: args.metrics },
    },
  });
}
