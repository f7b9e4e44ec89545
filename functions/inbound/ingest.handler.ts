import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';

/**
 * Lambda entry of the inbound ingest (lib/inbound.ts: the ingest queue, partial batch responses).
 * A placeholder that hands every record back, so each one waits in the queue and then in its
 * dead-letter queue; the ingest (functions/inbound/ingest.ts) replaces it.
 */
export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  return { batchItemFailures: event.Records.map((r) => ({ itemIdentifier: r.messageId })) };
}
