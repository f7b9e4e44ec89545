import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { sqsWebhooks } from '../adapters/sqs-queues.ts';
import { loadLambdaDeps, required } from '../env.ts';
import { fanOut } from './fan-out.ts';

/** Lambda entry of the webhook fan-out: the table's stream, filtered to outbox inserts (lib/webhooks.ts). */
const deps = await loadLambdaDeps('webhook-fan-out', {});
const queue = sqsWebhooks(required);

export async function handler(event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> {
  return fanOut(deps, queue, event.Records);
}
