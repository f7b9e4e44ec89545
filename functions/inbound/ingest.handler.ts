import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { sqsEvents } from '../adapters/sqs-queues.ts';
import { loadLambdaDeps } from '../env.ts';
import { s3Blobs } from '../store/blobs.ts';
import { ingestBatch } from './ingest.ts';

/**
 * Lambda entry of the inbound ingest (the ingest queue: SES's S3-action notifications, partial batch
 * responses, a dead-letter queue). It reads the raw message from the blob bucket and publishes the
 * delivery events of routed DSNs.
 */
const deps = await loadLambdaDeps('inbound-ingest', { blobs: s3Blobs, events: sqsEvents });

export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  return ingestBatch(deps, event);
}
