import type { MessageRecord } from './model.ts';
import { canonicalAddress } from './recipients.ts';

/**
 * The rules of reading mail as conversations (docs/guides/receiving.md › Threads), pure: what a
 * message adds to its thread's summary, the order of the thread list and its cursor, and the
 * summary as the API shows it. functions/store/thread-list.store.ts reads and writes.
 */

/** The addresses one message adds to its thread's participants, at most. */
export const MAX_PARTICIPANTS_PER_MESSAGE = 20;
/** A thread's view shows its latest messages, at most this many (each one's full text is on the message). */
export const MAX_THREAD_VIEW_MESSAGES = 100;

/** The addresses a message names that the thread lists: From, To and Cc (never Bcc), canonical, once each. */
export function participantsOf(m: Pick<MessageRecord, 'from' | 'to' | 'cc'>): string[] {
  const all = [m.from, ...m.to, ...m.cc].map((x) => canonicalAddress(x.address));
  return [...new Set(all)].slice(0, MAX_PARTICIPANTS_PER_MESSAGE);
}

/**
 * The thread list's sort key: the time of the thread's latest message write, then the thread id.
 * Newest activity first is this key descending.
 */
export const activityKey = (at: number, threadId: string) => `${String(at).padStart(15, '0')}#${threadId}`;

const ACTIVITY = /^[0-9]{15}#thr_[0-9a-z]{26}$/;

/** The opaque cursor of the thread list: the last key of the page. */
export const encodeThreadCursor = (key: string) => Buffer.from(key).toString('base64url');

/** The key a cursor names, or undefined for what is no cursor of this list. */
export function decodeThreadCursor(cursor: string): string | undefined {
  const key = Buffer.from(cursor, 'base64url').toString('utf8');
  return ACTIVITY.test(key) ? key : undefined;
}

export const threadIdOfKey = (key: string) => key.slice(16);

/** A thread's summary as stored on its item (`I#{identity}` / `TH#{thread}`). */
export interface ThreadSummary {
  id: string;
  subject: string;
  participants: string[];
  message_ids: string[];
  last_message_at: number;
  snippet: string;
}

/** The summary as the API shows it (openapi.yaml › ThreadSummary). */
export function toApiThreadSummary(t: ThreadSummary, labels: readonly string[] = []) {
  return {
    id: t.id,
    subject: t.subject,
    participants: [...t.participants].sort(),
    message_count: t.message_ids.length,
    last_message_at: new Date(t.last_message_at).toISOString(),
    snippet: t.snippet,
    labels: [...labels],
  };
}

/** The message ids a thread's view reads: the latest MAX_THREAD_VIEW_MESSAGES, oldest first (ids sort by time). */
export function viewedMessageIds(ids: readonly string[]): string[] {
  return [...ids].sort().slice(-MAX_THREAD_VIEW_MESSAGES);
}
