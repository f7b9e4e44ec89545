import { SQSClient } from '@aws-sdk/client-sqs';
import type { DeliveryEvent } from '../core/deliveries.ts';
import { sendInBatches } from '../store/sqs-batch.ts';

/**
 * Where provider events go: the delivery-events queue (SQS in AWS, an in-process queue locally).
 * The test transports publish their scripted events here, as a real provider would.
 */
export interface EventSink {
  publish(events: DeliveryEvent[], delaySeconds: number): Promise<void>;
}

export function sqsEventSink(queueUrl: string, client = new SQSClient({})): EventSink {
  return {
    publish: (events, delaySeconds) =>
      sendInBatches(
        client,
        queueUrl,
        events.map((e) => ({ body: JSON.stringify(e), delaySeconds })),
        'delivery events',
      ),
  };
}

/** The Lambda factory of the events port (functions/env.ts › loadLambdaDeps): the delivery-events queue. */
export const sqsEvents = (required: (name: string) => string): EventSink =>
  sqsEventSink(required('PMAIL_EVENTS_QUEUE_URL'));
