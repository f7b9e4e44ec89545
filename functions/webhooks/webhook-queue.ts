import type { DeliveryJob } from '../core/webhooks.ts';

/**
 * The webhook-deliveries queue: SQS in AWS (functions/adapters/sqs-queues.ts), an in-process queue
 * locally (functions/local/queue.ts).
 * A job with a delay is a retry; delays above SQS's 15 minutes are the caller's `due_at` to handle.
 */
export interface WebhookQueue {
  send(jobs: { job: DeliveryJob; delaySeconds: number }[]): Promise<void>;
}
