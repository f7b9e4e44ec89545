import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { MessageRecord } from '../core/model.ts';
import type { Deps } from '../deps.ts';
import type { QueueConsumer } from '../local/queue.ts';
import { errorFields } from '../log.ts';
import type { SesReceivedNotification } from './notification.ts';

/** What one notification's ingest did, recipient by recipient. */
export interface IngestReport {
  /** The stored inbound messages' ids (a repeat of an earlier ingest lists none). */
  stored: string[];
  /** Recipients whose message was stored already (a redelivery, a client's retry of the same bytes). */
  duplicates: number;
  /** Envelope recipients that are no identity's address: counted and dropped. */
  unknown_recipients: number;
  /** Recipients for whom the message was a DSN of their own outbound mail, routed as delivery events. */
  dsn_routed: number;
}

/**
 * What loopback delivery knows that the message does not say (functions/send/loopback-delivery.ts):
 * the copy is flagged `loopback` and names the outbound message it copies (`loopback_of`).
 */
export interface IngestOptions {
  loopbackOf?: NonNullable<MessageRecord['loopback_of']>;
}

export async function ingestNotification(
  _deps: Deps,
  _n: SesReceivedNotification,
  _opts: IngestOptions = {},
): Promise<IngestReport> {
  return { stored: [], duplicates: 0, unknown_recipients: 0, dsn_routed: 0 };
}

/**
 * The ingest queue's consumer (the Lambda's and the local queue's): each record is one
 * notification; a record that fails comes back (SQS's visibility timeout, the dead-letter queue
 * after its receives), the others are acked.
 */
export function ingestConsumer(deps: Deps): QueueConsumer {
  return (event) => ingestBatch(deps, event);
}

export async function ingestBatch(deps: Deps, event: SQSEvent): Promise<SQSBatchResponse> {
  const failures: { itemIdentifier: string }[] = [];
  await Promise.all(
    event.Records.map(async (r) => {
      try {
        await ingestNotification(deps, parseNotification(r.body));
      } catch (err) {
        deps.log.error('inbound ingest failed', { ...errorFields(err) });
        failures.push({ itemIdentifier: r.messageId });
      }
    }),
  );
  return { batchItemFailures: failures };
}

/** The queue body: the notification itself (raw message delivery), or an SNS envelope around it. */
export function parseNotification(body: string): SesReceivedNotification {
  const parsed = JSON.parse(body) as Record<string, unknown>;
  const inner =
    typeof parsed.Message === 'string' && parsed.Type === 'Notification'
      ? JSON.parse(parsed.Message)
      : parsed;
  if (inner?.notificationType !== 'Received' || !inner.mail || !inner.receipt?.action?.objectKey)
    throw new Error('not an SES received notification');
  return inner as SesReceivedNotification;
}
