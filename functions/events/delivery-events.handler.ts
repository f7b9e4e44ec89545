import { ChangeMessageVisibilityCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { loadLambdaDeps } from '../env.ts';
import { consumeBatch } from './consumer.ts';

/** Lambda entry of the delivery-events consumer (SQS, partial batch responses, DLQ). */
const sqs = new SQSClient({});
const deps = await loadLambdaDeps('delivery-events', {});

export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  return consumeBatch(deps, event, async (receiptHandle, seconds) => {
    await sqs.send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: process.env.PMAIL_EVENTS_QUEUE_URL,
        ReceiptHandle: receiptHandle,
        VisibilityTimeout: seconds,
      }),
    );
  });
}
