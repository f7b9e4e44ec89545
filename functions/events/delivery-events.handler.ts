import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { sqsVisibility } from '../adapters/sqs-queues.ts';
import { loadLambdaDeps, required } from '../env.ts';
import { consumeBatch } from './consumer.ts';

/** Lambda entry of the delivery-events consumer (SQS, partial batch responses, DLQ). */
const deps = await loadLambdaDeps('delivery-events', {});
const setVisibility = sqsVisibility(required);

export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  return consumeBatch(deps, event, setVisibility);
}
