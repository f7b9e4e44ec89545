import { type FieldError, invalidBatch, invalidRequest } from './errors.ts';
import { IDEMPOTENCY_KEY_PATTERN, MAX_BATCH_MESSAGES, MAX_BATCH_RECIPIENTS } from './limits.ts';

/**
 * A batch of sends (docs/guides/sending.md › Batches): `{ "messages": [ … ] }`, each message the
 * body of a single send plus its own `idempotency_key`. What is decided on the batch as a whole
 * is here, before any message runs; each message is then a single send in full (its body checked,
 * replayed, counted, approved or refused as one), answered in order as `{ status, message | error }`.
 */

/** One message of a batch: its key, and the body a single send of it takes (the key left out). */
export interface BatchItem {
  idempotencyKey: string;
  body: Record<string, unknown>;
}

/** What one message of a batch answered: the single send's status and its body or error. */
export type BatchItemAnswer =
  | { status: number; message: Record<string, unknown> }
  | { status: number; error: Record<string, unknown>; retry_after?: number };

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The recipients a message names (to, cc, bcc), counted as given: its own checks come later. */
const recipientsOf = (body: Record<string, unknown>) =>
  ['to', 'cc', 'bcc'].reduce((n, f) => n + (Array.isArray(body[f]) ? (body[f] as unknown[]).length : 0), 0);

/**
 * The batch's messages, or 400 invalid_request with every problem of the batch as a whole listed:
 * the envelope, the count (1–100), the recipients across the messages (≤ 1,000), each message's
 * `idempotency_key` (present, 1–255 printable ASCII, not the same as another message's).
 */
export function parseBatch(value: unknown): BatchItem[] {
  if (!isObject(value) || !Array.isArray(value.messages)) {
    throw invalidRequest([{ path: 'messages', message: 'required: an array of messages' }]);
  }
  const extra = Object.keys(value).filter((k) => k !== 'messages');
  const messages: unknown[] = value.messages;
  const errors: FieldError[] = extra.map((k) => ({ path: k, message: 'unknown field' }));
  if (messages.length === 0) errors.push({ path: 'messages', message: 'at least one message' });
  if (messages.length > MAX_BATCH_MESSAGES) {
    errors.push({ path: 'messages', message: `at most ${MAX_BATCH_MESSAGES} messages` });
  }
  const items: BatchItem[] = [];
  const seen = new Map<string, number>();
  for (const [i, m] of messages.entries()) {
    const checked = checkItem(m, `messages[${i}]`, seen);
    if ('path' in checked) errors.push(checked);
    else {
      seen.set(checked.idempotencyKey, i);
      items.push(checked);
    }
  }
  const recipients = items.reduce((n, item) => n + recipientsOf(item.body), 0);
  if (recipients > MAX_BATCH_RECIPIENTS) {
    errors.push({
      path: 'messages',
      message: `at most ${MAX_BATCH_RECIPIENTS} recipients across the batch (this one names ${recipients})`,
    });
  }
  if (errors.length > 0) throw invalidBatch(errors);
  return items;
}

/** One message of the batch, or what is wrong with it (`seen`: the keys of the messages before it). */
function checkItem(m: unknown, path: string, seen: Map<string, number>): BatchItem | FieldError {
  if (!isObject(m)) return { path, message: 'an object: a send body with its idempotency_key' };
  const { idempotency_key: key, ...body } = m;
  const at = `${path}.idempotency_key`;
  if (typeof key !== 'string') return { path: at, message: 'required' };
  if (!IDEMPOTENCY_KEY_PATTERN.test(key)) return { path: at, message: '1–255 printable ASCII characters' };
  const first = seen.get(key);
  if (first !== undefined) return { path: at, message: `the same key as messages[${first}]` };
  return { idempotencyKey: key, body };
}

/**
 * The order the messages run in: chains of message indexes, each run one after another, the
 * chains side by side. Messages naming the same `thread_id` share a chain in batch order (a thread
 * takes one message at a time, and its order is the batch's); every other message is a chain alone.
 */
export function batchChains(items: readonly BatchItem[]): number[][] {
  const chains: number[][] = [];
  const byThread = new Map<string, number[]>();
  for (const [i, item] of items.entries()) {
    const thread = item.body.thread_id;
    const chain = typeof thread === 'string' ? byThread.get(thread) : undefined;
    if (chain) chain.push(i);
    else {
      chains.push([i]);
      if (typeof thread === 'string') byThread.set(thread, chains[chains.length - 1]);
    }
  }
  return chains;
}
