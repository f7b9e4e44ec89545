import type { Operation } from './compose.ts';
import type { MessageRecord } from './model.ts';
import type { SendCommand } from './send-command.ts';

/**
 * A follow-up that waits for no answer (docs/guides/sending.md › A follow-up unless they reply),
 * pure. A scheduled reply or threaded send may carry `unless_reply: true`: when its time comes it is
 * canceled (`reply_received`) if a qualifying message arrived in its thread after it was accepted —
 * decided in the write that claims it (store/messages.store.ts › claimSending with the thread's
 * guard), so a reply landing at the last moment either cancels it or finds it already sent.
 *
 * "After it was accepted" is an order of commits, not of clocks: each message's number in its
 * identity's feed (`pos`, docs/design/ordering.md) is taken in the write that commits it, and every
 * qualifying received message adds its number to its thread's item (`reply_pos`, in the ingest's
 * transaction). A reply numbered above the follow-up's own number came after it.
 */

/** The reason code a follow-up canceled by an answer carries (`status_reason`, the event's `reason`). */
export const REPLY_RECEIVED = 'reply_received';

/**
 * Whether a stored received message counts as an answer: a person's mail — not automatic (an
 * out-of-office, an auto-reply, a list), not a delivery report kept as mail, not a duplicate or a
 * possible duplicate of a message already in, and not held back from the agent (a message carrying
 * a `held` marker is not shown to it, so it answers nothing until it is).
 */
export function qualifiesAsReply(m: MessageRecord): boolean {
  if (m.direction !== 'inbound') return false;
  const i = m.inbound;
  const held = (m as { held?: unknown }).held;
  return !(
    m.kind === 'auto_reply' ||
    m.flags.includes('auto_reply') ||
    i?.auto !== undefined ||
    i?.dsn_unmatched === true ||
    i?.threaded_by === 'duplicate' ||
    i?.possible_duplicate !== undefined ||
    (held !== undefined && held !== null && held !== false)
  );
}

/**
 * The request's own check: `unless_reply` is for a scheduled send in a thread — a reply, a
 * reply-all, a forward, or a send with `thread_id` — with `send_at` (a send made at once waits for
 * nothing). The field errors, empty when it holds.
 */
export function unlessReplyErrors(
  operation: Operation,
  body: SendCommand,
): { path: string; message: string }[] {
  if (body.unless_reply !== true) return [];
  return [
    ...(body.send_at === undefined
      ? [{ path: 'unless_reply', message: 'needs send_at: a send made at once waits for no answer' }]
      : []),
    ...(operation === 'send' && body.thread_id === undefined
      ? [{ path: 'unless_reply', message: 'needs thread_id: only a send in a thread can be answered' }]
      : []),
  ];
}

/** Nothing of the message has gone to the provider yet (a partly sent follow-up is sent through). */
const nothingSent = (m: MessageRecord) =>
  (m.deliveries ?? []).every((d) => d.status === 'queued' || d.status === 'suppressed');

/**
 * What the claim must check on the thread before it writes: the thread and the follow-up's own
 * number, or undefined for a message that waits for an answer of no one.
 */
export function unlessReplyCheck(m: MessageRecord): { thread_id: string; after: number } | undefined {
  if (m.unless_reply !== true || m.direction !== 'outbound' || !nothingSent(m)) return undefined;
  return { thread_id: m.thread_id, after: m.pos ?? 0 };
}

/** An answer arrived after the follow-up: one of the thread's qualifying numbers is above its own. */
export const answeredAfter = (after: number, replyPositions: readonly number[]): boolean =>
  replyPositions.some((p) => p > after);

/**
 * Where a follow-up that waits for no answer stands, as the MCP tools and the CLI say it: still
 * waiting for its time, canceled because an answer came first, or sent (no answer had come when
 * its time came); undefined for any other message.
 */
export function followUpState(m: {
  direction: string;
  status: string;
  status_reason: string | null;
  unless_reply: boolean | null;
}): 'waiting' | 'answered_first' | 'sent' | 'ended' | undefined {
  if (m.direction !== 'outbound' || m.unless_reply !== true) return undefined;
  if (m.status === 'canceled') return m.status_reason === REPLY_RECEIVED ? 'answered_first' : 'ended';
  if (['queued', 'pending_approval', 'undispatched'].includes(m.status)) return 'waiting';
  return ['submitted', 'delivered', 'deferred', 'bounced', 'complained'].includes(m.status)
    ? 'sent'
    : 'ended';
}

/** The sentence for each state (the MCP tools' note, the CLI's line). */
export const FOLLOW_UP_NOTES = {
  waiting:
    'FOLLOW-UP (unless_reply): scheduled; at its send_at it is canceled (status_reason reply_received) if an answer arrived in its thread first, else sent.',
  answered_first:
    'FOLLOW-UP NOT SENT: an answer arrived in its thread before its time, so it was canceled (status_reason reply_received). Read the thread for the answer.',
  sent: 'FOLLOW-UP SENT: no answer had arrived in its thread when its time came.',
  ended: 'FOLLOW-UP (unless_reply): it ended without being sent, for another reason (status_reason).',
} as const;
