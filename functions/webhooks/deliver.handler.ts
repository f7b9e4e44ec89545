import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { sqsWebhookQueue } from '../adapters/sqs-queues.ts';
import { loadLambdaDeps } from '../env.ts';
import { deliverBatch } from './deliver.ts';
import { systemPoster } from './http-client.ts';

/** Lambda entry of the webhook deliverer (SQS webhook-deliveries, partial batch responses, DLQ). */
const deps = await loadLambdaDeps('webhook-deliverer', {});
const ports = {
  queue: sqsWebhookQueue(process.env.PMAIL_WEBHOOK_QUEUE_URL ?? ''),
  post: systemPoster,
  jitter: Math.random,
};

export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  return deliverBatch(deps, ports, event);
}
