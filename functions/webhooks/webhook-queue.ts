import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { DeliveryJob } from '../core/webhooks.ts';

/**
 * The webhook-deliveries queue: SQS in AWS, an in-process queue locally (functions/local/queue.ts).
 * A job with a delay is a retry; delays above SQS's 15 minutes are the caller's `due_at` to handle.
 */
export interface WebhookQueue {
  send(jobs: { job: DeliveryJob; delaySeconds: number }[]): Promise<void>;
}

export function sqsWebhookQueue(queueUrl: string, client = new SQSClient({})): WebhookQueue {
  return {
    async send(jobs) {
      for (let i = 0; i < jobs.length; i += 10) {
        const batch = jobs.slice(i, i + 10);
        const out = await client.send(
          new SendMessageBatchCommand({
            QueueUrl: queueUrl,
            Entries: batch.map((j, n) => ({
              Id: String(n),
              MessageBody: JSON.stringify(j.job),
              DelaySeconds: Math.min(900, Math.max(0, Math.ceil(j.delaySeconds))),
            })),
          }),
        );
        if (out.Failed?.length) throw new Error(`could not queue ${out.Failed.length} webhook deliveries`);
      }
    },
  };
}
