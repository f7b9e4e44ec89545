import { ChangeMessageVisibilityCommand, SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { CloudflarePullPorts } from '../events/cloudflare-pull.ts';
import type { EventSink } from '../events/event-sink.ts';
import { sendInBatches } from '../store/sqs-batch.ts';
import type { WebhookQueue } from '../webhooks/webhook-queue.ts';

/** The SQS adapters of the queue ports: delivery events, webhook deliveries, the Cloudflare forward. */

export function sqsEventSink(queueUrl: string, client: SQSClient = new SQSClient({})): EventSink {
  return {
    publish: (events, delaySeconds) =>
      sendInBatches(
        client,
        queueUrl,
        events.map((e) => ({ body: JSON.stringify(e), delaySeconds })),
        'delivery events',
      ),
  };
}

/**
 * The Lambda factory of the events port (functions/env.ts › loadLambdaDeps): the delivery-events
 * queue. `client` (here and below) is for `npm run check:deploy`, which replays recorded calls.
 */
export const sqsEvents = (required: (name: string) => string, client?: SQSClient): EventSink =>
  sqsEventSink(required('PMAIL_EVENTS_QUEUE_URL'), client);

/** The webhook-deliveries queue of the fan-out and the deliverer (PMAIL_WEBHOOK_QUEUE_URL). */
export const sqsWebhooks = (required: (name: string) => string, client?: SQSClient): WebhookQueue =>
  sqsWebhookQueue(required('PMAIL_WEBHOOK_QUEUE_URL'), client);

/**
 * The delivery-events consumer's visibility change (a NotFound event comes back in 30 s):
 * ChangeMessageVisibility on its queue (PMAIL_EVENTS_QUEUE_URL).
 */
export function sqsVisibility(
  required: (name: string) => string,
  client = new SQSClient({}),
): (receiptHandle: string, seconds: number) => Promise<void> {
  const queueUrl = required('PMAIL_EVENTS_QUEUE_URL');
  return async (receiptHandle, seconds) => {
    await client.send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: queueUrl,
        ReceiptHandle: receiptHandle,
        VisibilityTimeout: seconds,
      }),
    );
  };
}

/** A job with a delay is a retry (functions/webhooks/webhook-queue.ts). */
export function sqsWebhookQueue(queueUrl: string, client: SQSClient = new SQSClient({})): WebhookQueue {
  return {
    send: (jobs) =>
      sendInBatches(
        client,
        queueUrl,
        jobs.map((j) => ({ body: JSON.stringify(j.job), delaySeconds: j.delaySeconds })),
        'webhook deliveries',
      ),
  };
}

/**
 * The Cloudflare pull consumer's forward (functions/events/cloudflare-pull.ts): one
 * SendMessageBatch, each body unchanged; what SQS took and the codes of what it refused.
 */
export function sqsForwardBatch(client: SQSClient, queueUrl: string): CloudflarePullPorts['forward'] {
  return async (entries) => {
    const out = await client.send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: entries.map((e) => ({ Id: e.id, MessageBody: e.body })),
      }),
    );
    return {
      sent: (out.Successful ?? []).flatMap((s) => (s.Id ? [s.Id] : [])),
      failedCodes: (out.Failed ?? []).map((f) => f.Code),
    };
  };
}
