import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { sqsWebhooks } from '../adapters/sqs-queues.ts';
import { loadLambdaDeps, required } from '../env.ts';
import { deliverBatch } from './deliver.ts';
import { systemPoster } from './http-client.ts';

/** Lambda entry of the webhook deliverer (SQS webhook-deliveries, partial batch responses, DLQ). */
const deps = await loadLambdaDeps('webhook-deliverer', {});
const ports = {
  queue: sqsWebhooks(required),
  post: systemPoster,
  jitter: Math.random,
};

export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  return deliverBatch(deps, ports, event);
}
