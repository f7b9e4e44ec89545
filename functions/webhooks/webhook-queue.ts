import { SQSClient } from '@aws-sdk/client-sqs';
import type { DeliveryJob } from '../core/webhooks.ts';
import { sendInBatches } from '../store/sqs-batch.ts';

/**
 * The webhook-deliveries queue: SQS in AWS, an in-process queue locally (functions/local/queue.ts).
 * A job with a delay is a retry; delays above SQS's 15 minutes are the caller's `due_at` to handle.
 */
export interface WebhookQueue {
  send(jobs: { job: DeliveryJob; delaySeconds: number }[]): Promise<void>;
}

export function sqsWebhookQueue(queueUrl: string, client = new SQSClient({})): WebhookQueue {
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
