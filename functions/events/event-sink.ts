import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { DeliveryEvent } from '../core/deliveries.ts';

/**
 * Where provider events go: the delivery-events queue (SQS in AWS, an in-process queue locally).
 * The test transports publish their scripted events here, as a real provider would.
 */
export interface EventSink {
  publish(events: DeliveryEvent[], delaySeconds: number): Promise<void>;
}

export function sqsEventSink(queueUrl: string, client = new SQSClient({})): EventSink {
  return {
    async publish(events, delaySeconds) {
      for (let i = 0; i < events.length; i += 10) {
        const batch = events.slice(i, i + 10);
        const out = await client.send(
          new SendMessageBatchCommand({
            QueueUrl: queueUrl,
            Entries: batch.map((e, j) => ({
              Id: String(j),
              MessageBody: JSON.stringify(e),
              DelaySeconds: Math.min(900, Math.max(0, Math.round(delaySeconds))),
            })),
          }),
        );
        if (out.Failed?.length) throw new Error(`could not queue ${out.Failed.length} delivery events`);
      }
    },
  };
}
