import type { MessageRecord, MessageStatus } from './model.ts';

/**
 * A handler enqueues; it never sends. The status a send is born with. Nobody left to
 * send to → `suppressed` (final, no execution: the reason is on each delivery of the 202); a sending
 * domain whose transport is not configured, under the tenant's `hold` policy → `undispatched` (no
 * execution until the sweeper finds it configured); an identity whose sends need approval →
 * `pending_approval`; else `queued`, with its execution named.
 */
export function bornStatus(
  decisions: readonly { status: 'queued' | 'suppressed' }[],
  undispatched: boolean,
  approval = false,
): Extract<MessageStatus, 'queued' | 'suppressed' | 'undispatched' | 'pending_approval'> {
  if (decisions.every((d) => d.status === 'suppressed')) return 'suppressed';
  // An identity whose sends wait for a person's approval (core/approval.ts): no execution, no count.
  if (approval) return 'pending_approval';
  return undispatched ? 'undispatched' : 'queued';
}

/**
 * A held message is dispatched as soon as its transport exists. The held
 * message becomes `queued` and names the execution coming for it in the same conditional write
 * (`executionFor(n, scheduled)`: a send_at still ahead waits in the Standard machine). Undefined
 * when the message is no longer undispatched (another sweeper, or a cancel, won).
 */
export function dispatchHeld(
  m: MessageRecord,
  now: number,
  executionFor: (n: number, scheduled: boolean) => string,
): MessageRecord | undefined {
  if (m.status !== 'undispatched') return undefined;
  const scheduled = m.send_at !== undefined && m.send_at > now;
  return {
    ...m,
    status: 'queued',
    dispatch: { execution: executionFor(1, scheduled), at: scheduled ? m.send_at! : now, n: 1 },
    updated_at: now,
    version: m.version + 1,
  };
}
