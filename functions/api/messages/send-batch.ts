import * as z from 'zod';
import { type BatchItem, type BatchItemAnswer, batchChains, parseBatch } from '../../core/batch.ts';
import { batchKeyHeader, notAttempted } from '../../core/errors.ts';
import { BATCH_CONCURRENCY, BATCH_TIME_BUDGET_MS, MAX_BATCH_BODY_BYTES } from '../../core/limits.ts';
import { type ApiResult, bodyOf, errorResponse, header, json, type RouteCall } from '../http.ts';
import { parseBody } from '../parse.ts';
import { routes } from '../routes.ts';
import type { MessagesDeps, ScopedRoute } from './operation.ts';
import { sendMessageRoute } from './send-message.ts';

const SEND_ROUTE = routes.find((r) => r.operation === 'sendMessage')!;

/**
 * POST …/messages/batch (docs/guides/sending.md › Batches): up to 100 sends in one request, each a
 * single send in full — the very handler of POST …/messages, under the message's own
 * idempotency_key and request id — so each replays, conflicts, counts, waits for approval or is
 * refused exactly as it would alone. 207 with each message's answer in batch order. What is wrong
 * with the batch as a whole (an Idempotency-Key header, its size, its envelope, a key given twice)
 * is refused before any message runs.
 */
export const sendBatchRoute: ScopedRoute = {
  permission: 'messages:send',
  handle: async (deps, call) => {
    if (header(call.event, 'idempotency-key') !== undefined) throw batchKeyHeader();
    const items = parseBatch(parseBody(bodyOf(call.event, MAX_BATCH_BODY_BYTES), z.unknown()));
    return json(207, { data: await runBatch(deps, call, items) }, call.requestId);
  },
};

/**
 * The messages, BATCH_CONCURRENCY chains at a time (core/batch.ts › batchChains: a thread's
 * messages in order). A message not started within BATCH_TIME_BUDGET_MS answers `not_attempted`:
 * nothing of it ran, so sending the batch (or it) again is safe.
 */
async function runBatch(deps: MessagesDeps, call: RouteCall, items: BatchItem[]): Promise<BatchItemAnswer[]> {
  const started = deps.clock();
  const answers: BatchItemAnswer[] = new Array(items.length);
  const chains = batchChains(items);
  let next = 0;
  const worker = async () => {
    for (let c = next++; c < chains.length; c = next++) {
      for (const i of chains[c]) {
        answers[i] =
          deps.clock() - started >= BATCH_TIME_BUDGET_MS
            ? answerOf(errorResponse(notAttempted(), `req_${deps.newId()}`, deps.log))
            : await runItem(deps, call, items[i]);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(BATCH_CONCURRENCY, chains.length) }, worker));
  return answers;
}

/** One message: POST …/messages with its body and its key, as its own request. */
async function runItem(deps: MessagesDeps, call: RouteCall, item: BatchItem): Promise<BatchItemAnswer> {
  const requestId = `req_${deps.newId()}`;
  const event = {
    ...call.event,
    headers: { ...call.event.headers, 'idempotency-key': item.idempotencyKey },
    body: JSON.stringify(item.body),
    isBase64Encoded: false,
    rawQueryString: '',
    queryStringParameters: undefined,
  };
  try {
    return answerOf(
      await sendMessageRoute(deps, { event, route: SEND_ROUTE, params: call.params, requestId }),
    );
  } catch (err) {
    return answerOf(errorResponse(err, requestId, deps.log));
  }
}

/** A single send's answer as a batch reports it: its status, and its message or its error. */
function answerOf(res: ApiResult): BatchItemAnswer {
  const status = res.statusCode ?? 500;
  const body = JSON.parse(String(res.body));
  if (status < 300) return { status, message: body };
  const retryAfter = res.headers['retry-after'];
  return { status, error: body.error, ...(retryAfter ? { retry_after: Number(retryAfter) } : {}) };
}
