import type { Client } from 'openapi-fetch';
import { type ErrorCode, errorFromResponse, PmailError } from './errors.ts';
import type { components, paths } from './schema.ts';

type Schemas = components['schemas'];
/** A message of a batch: a send body and, optionally, its key (one is generated when absent). */
export type SendBatchMessage = Schemas['SendMessageRequest'] & { idempotency_key?: string };

/** What one message of a batch came to: its key, its status, and its message or its error. */
export interface BatchResult {
  /** The message's key: yours, or a generated one. Reuse it to send this message again. */
  idempotencyKey: string;
  /** The status `messages.send` would have had: 202, or the error's. */
  status: number;
  message?: Schemas['SendMessageResponse'];
  error?: PmailError;
}

export interface BatchPorts {
  http: Client<paths>;
  /** Resends of the messages whose answer says to retry (default 3). */
  retries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  sleep: (ms: number) => Promise<void>;
  random: () => number;
}

/**
 * POST …/messages/batch, then the messages whose answer is retryable again (`not_attempted`,
 * `request_in_progress`, a 5xx, a 429 whose Retry-After is at most `maxDelayMs`), alone in a new
 * batch under the same keys, up to `retries` times: each one is still sent at most once. The
 * request itself is resent by the client's fetch after a network error, a 5xx or a 429 (every
 * message carries its key). Resolves to one result per message, in order.
 */
export async function sendBatch(
  ports: BatchPorts,
  identityId: string,
  messages: SendBatchMessage[],
): Promise<BatchResult[]> {
  const keyed = messages.map((m) => ({ ...m, idempotency_key: m.idempotency_key ?? crypto.randomUUID() }));
  const results: BatchResult[] = new Array(keyed.length);
  let pending = keyed.map((_, i) => i);
  for (let round = 0; pending.length > 0; round++) {
    const { data, error, response } = await ports.http.POST('/v1/identities/{identity_id}/messages/batch', {
      params: { path: { identity_id: identityId } },
      body: { messages: pending.map((i) => keyed[i]) },
    });
    if (!response.ok || !data) throw errorFromResponse(response, error);
    const again: number[] = [];
    let wait = 0;
    data.data.forEach((item, n) => {
      const i = pending[n];
      results[i] = resultOf(keyed[i].idempotency_key, item);
      const delay = retryDelay(item, round, ports);
      if (delay !== undefined && round < ports.retries) {
        again.push(i);
        wait = Math.max(wait, delay);
      }
    });
    pending = again;
    if (pending.length > 0) await ports.sleep(wait);
  }
  return results;
}

type Item = Schemas['SendBatchResult'];

function resultOf(idempotencyKey: string, item: Item): BatchResult {
  if (!item.error) return { idempotencyKey, status: item.status, message: item.message };
  const e = item.error;
  const error = new PmailError({
    code: e.code as ErrorCode,
    message: e.message,
    status: item.status,
    details: e.details,
    requestId: e.request_id,
    retryable: e.retryable,
    fix: e.fix,
    retryAfter: item.retry_after,
  });
  return { idempotencyKey, status: item.status, error };
}

/** How long to wait before sending a message again, or undefined when its answer is final. */
function retryDelay(item: Item, round: number, p: BatchPorts): number | undefined {
  const e = item.error;
  if (!e?.retryable) return undefined;
  // The single send's rule (retry.ts): a 5xx, a 429, and of the 409s only request_in_progress.
  if (item.status === 409 ? e.code !== 'request_in_progress' : item.status < 500 && item.status !== 429)
    return undefined;
  if (item.retry_after !== undefined) {
    const ms = item.retry_after * 1000;
    return ms > p.maxDelayMs ? undefined : ms;
  }
  const full = Math.min(p.maxDelayMs, p.baseDelayMs * 2 ** round);
  return Math.round(full / 2 + (full / 2) * p.random());
}
