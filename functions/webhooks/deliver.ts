import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import * as z from 'zod';
import { sha256Hex } from '../core/fingerprint.ts';
import { ID_PATTERNS } from '../core/ids.ts';
import {
  attemptResult,
  classifyResponse,
  type DeliveryJob,
  loggableUrl,
  nextAttempt,
  openSecret,
  remainingDelaySeconds,
  secretAad,
  WEBHOOK_TIMEOUT_MS,
  webhookEnvelope,
  webhookHeaders,
} from '../core/webhooks.ts';
import type { Deps } from '../deps.ts';
import { errorFields } from '../log.ts';
import { getEvent, type OutboxEvent } from '../store/events.store.ts';
import { getTestEvent, recordAttempt } from '../store/webhook-deliveries.store.ts';
import { disableWebhook, getWebhook, type StoredWebhook } from '../store/webhooks.store.ts';
import type { WebhookPoster } from './http-client.ts';
import type { WebhookQueue } from './webhook-queue.ts';

/** What the deliverer needs besides the common ports. */
export interface DeliveryPorts {
  queue: WebhookQueue;
  post: WebhookPoster;
  /** Uniform in [0, 1): the ±10 % jitter of the retry schedule (Math.random in production). */
  jitter: () => number;
  /** Multiplies the retry schedule; 1 in production, tiny in tests so retries take milliseconds. */
  scheduleScale?: number;
}

export const deliveryJobSchema = z.object({
  tenant_id: z.string().regex(ID_PATTERNS.tenant),
  webhook_id: z.string().regex(ID_PATTERNS.webhook),
  event_id: z.string().min(1).max(200),
  attempt: z.number().int().min(1),
  due_at: z.number().int().optional(),
  test: z.literal(true).optional(),
});

export type DeliveryOutcome = 'delivered' | 'requeued' | 'retry' | 'dead' | 'disabled' | 'dropped';

/** Hashed ids for logs and metrics about failures (no endpoint or event id in the clear). */
const hashed = (id: string) => sha256Hex(id).slice(0, 16);

/**
 * One attempt of one delivery: the event's envelope POSTed to the endpoint, signed.
 * 2xx: done. 410: the endpoint is disabled. Anything else, an address the poster refused after
 * resolving the endpoint's host included (http-client.ts): a new job after the schedule's wait,
 * or dead after the last attempt. A job that arrives before its `due_at` waits again (SQS delays
 * stop at 15 minutes). A missing or disabled endpoint, or an expired event, drops the job.
 */
export async function deliverJob(
  deps: Pick<Deps, 'db' | 'clock' | 'log' | 'config'>,
  ports: DeliveryPorts,
  job: DeliveryJob,
): Promise<DeliveryOutcome> {
  const now = deps.clock();
  const wait = remainingDelaySeconds(job, now);
  if (wait > 0) {
    await ports.queue.send([{ job, delaySeconds: wait }]);
    return 'requeued';
  }
  const endpoint = await getWebhook(deps.db, job.tenant_id, job.webhook_id);
  const log = { webhook_id: job.webhook_id, event_id: job.event_id, attempt: job.attempt };
  if (endpoint?.status !== 'active') {
    deps.log.info('webhook delivery dropped', { ...log, reason: endpoint ? endpoint.status : 'deleted' });
    return 'dropped';
  }
  const event = job.test
    ? await getTestEvent(deps.db, job.tenant_id, job.webhook_id, job.event_id, now)
    : await getEvent(deps.db, job.tenant_id, job.event_id);
  if (!event) {
    deps.log.warn('webhook delivery dropped', { ...log, reason: 'event_expired' });
    return 'dropped';
  }
  const answer = await postSigned(deps, ports.post, endpoint, event, now);
  const verdict = classifyResponse(answer.status);
  const next =
    verdict === 'failed' ? nextAttempt(job, now, ports.jitter(), ports.scheduleScale ?? 1) : undefined;
  await keepAttempt(
    deps,
    job,
    event,
    answer,
    attemptResult(verdict, next !== undefined && 'dead' in next),
    now,
  );
  const fields = { ...log, endpoint: loggableUrl(endpoint.url), status: answer.status, error: answer.error };
  if (verdict === 'delivered') {
    deps.log.info('webhook delivered', fields);
    return 'delivered';
  }
  if (verdict === 'gone') {
    const disabled = await disableWebhook(deps.db, job.tenant_id, job.webhook_id, 'gone', deps.clock());
    deps.log.warn('webhook endpoint gone: disabled', { ...fields, disabled });
    return 'disabled';
  }
  if (!next || 'dead' in next) {
    deps.log.error('webhook delivery dead', deadFields(job, answer));
    return 'dead';
  }
  await ports.queue.send([next]);
  deps.log.warn('webhook delivery failed, will retry', {
    ...fields,
    retry_in_s: Math.round(next.delaySeconds),
  });
  return 'retry';
}

/** The event's envelope, signed with the endpoint's secret, POSTed to the endpoint once. */
function postSigned(
  deps: Pick<Deps, 'config'>,
  post: WebhookPoster,
  endpoint: StoredWebhook,
  event: OutboxEvent,
  now: number,
): ReturnType<WebhookPoster> {
  const secret = openSecret(
    deps.config.hashKey,
    secretAad(endpoint.tenant_id, endpoint.id),
    endpoint.secret_sealed,
  );
  const body = JSON.stringify(webhookEnvelope(event));
  const headers = webhookHeaders(secret, event.id, Math.floor(now / 1000), body);
  // The address rule is lifted only where plain http to this machine is allowed (local runtime).
  return post({
    url: endpoint.url,
    headers,
    body,
    timeoutMs: WEBHOOK_TIMEOUT_MS,
    allowInternal: deps.config.webhookAllowLocalHttp === true,
  });
}

/** A dead delivery's log fields: its ids hashed, so no endpoint or event id is logged in the clear. */
function deadFields(job: DeliveryJob, answer: { status?: number; error?: string }) {
  return {
    webhook: hashed(job.webhook_id),
    event: hashed(job.event_id),
    tenant: hashed(job.tenant_id),
    attempts: job.attempt,
    status: answer.status,
    error: answer.error,
  };
}

/**
 * The attempt, kept for `GET /v1/webhooks/{webhook_id}/deliveries`. A failure to keep it is
 * logged and nothing more: the POST happened, and failing the job would send it again.
 */
async function keepAttempt(
  deps: Pick<Deps, 'db' | 'clock' | 'log'>,
  job: DeliveryJob,
  event: OutboxEvent,
  answer: { status?: number; error?: string },
  result: ReturnType<typeof attemptResult>,
  startedAt: number,
): Promise<void> {
  try {
    await recordAttempt(deps.db, job.tenant_id, {
      webhook_id: job.webhook_id,
      event_id: job.event_id,
      event_type: event.type,
      attempt: job.attempt,
      ...(answer.status !== undefined ? { status_code: answer.status } : {}),
      ...(answer.error ? { error: answer.error } : {}),
      result,
      attempted_at: startedAt,
      duration_ms: Math.max(0, deps.clock() - startedAt),
    });
  } catch (err) {
    deps.log.warn('webhook attempt not kept', { webhook_id: job.webhook_id, ...errorFields(err) });
  }
}

/**
 * One SQS batch of the webhook-deliveries queue, each record on its own. A malformed body is
 * acked (logged): retrying cannot fix it. An infrastructure error fails the item, which SQS brings
 * back after its visibility timeout (and to the DLQ after maxReceiveCount).
 */
export async function deliverBatch(
  deps: Pick<Deps, 'db' | 'clock' | 'log' | 'config' | 'metrics'>,
  ports: DeliveryPorts,
  event: SQSEvent,
): Promise<SQSBatchResponse> {
  const failures: { itemIdentifier: string }[] = [];
  await Promise.all(
    event.Records.map(async (r) => {
      let job: DeliveryJob;
      try {
        job = deliveryJobSchema.parse(JSON.parse(r.body));
      } catch {
        deps.metrics.add('webhook_malformed');
        deps.log.error('webhook job malformed, acked');
        return;
      }
      try {
        deps.metrics.add('webhook_deliveries', { result: await deliverJob(deps, ports, job) });
      } catch (err) {
        deps.log.error('webhook delivery errored', { webhook_id: job.webhook_id, ...errorFields(err) });
        failures.push({ itemIdentifier: r.messageId });
      }
    }),
  );
  return { batchItemFailures: failures };
}
